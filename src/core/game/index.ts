/**
 * The ARC-AGI-3-style game engine: pure, deterministic, the same in the browser, the server,
 * workers and the CLI. See docs/authoring-games.md.
 */
export * from './types';
export * from './actions';
export * from './hash';
export * from './rng';
export * from './define';
export * from './accounting';
export * from './engine';
export * from './version';
export * from './draw';
export * from './replay';
export * from './explore';
export * from './serverGame';
