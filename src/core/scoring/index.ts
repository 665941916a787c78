/**
 * Human baselines and RHAE scoring, as named, versioned presets. See docs/scoring.md.
 */
export * from './accounting';
export * from './baselines';
export * from './rhae';
