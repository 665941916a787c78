/** Study results derived from event logs: distributions, per-task and per-level figures, baselines. */
export * from './dist';
export * from './results';
