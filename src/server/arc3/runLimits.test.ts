/** The run limits a server starts with: the defaults, and the environment's overrides, a bad one refused by name. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN_LIMITS, runLimitsFromEnv } from './runs';

describe('run limits from the environment', () => {
  it('keeps the defaults, and takes each variable that is set', () => {
    expect(runLimitsFromEnv({})).toEqual(DEFAULT_RUN_LIMITS);
    expect(
      runLimitsFromEnv({
        ARC_STUDIO_RUNS_PER_ITEM: '3',
        ARC_STUDIO_OPEN_RUNS_PER_SESSION: '',
        ARC_STUDIO_MAX_OPEN_RUNS: '500',
        ARC_STUDIO_RUN_IDLE_MINUTES: '2.5',
      }),
    ).toEqual({ ...DEFAULT_RUN_LIMITS, runsPerItem: 3, openRuns: 500, idleMinutes: 2.5 });
  });

  it('refuses a value that is not a positive number, naming the variable and an example', () => {
    expect(() => runLimitsFromEnv({ ARC_STUDIO_RUNS_PER_ITEM: '0' })).toThrow(
      'ARC_STUDIO_RUNS_PER_ITEM=0 is not a positive whole number; unset it or give one, e.g. ARC_STUDIO_RUNS_PER_ITEM=5.',
    );
    expect(() => runLimitsFromEnv({ ARC_STUDIO_OPEN_RUNS_PER_SESSION: '1.5' })).toThrow(
      'ARC_STUDIO_OPEN_RUNS_PER_SESSION=1.5 is not a positive whole number',
    );
    expect(() => runLimitsFromEnv({ ARC_STUDIO_RUN_IDLE_MINUTES: 'soon' })).toThrow(
      'ARC_STUDIO_RUN_IDLE_MINUTES=soon is not a positive number; unset it or give one, e.g. ARC_STUDIO_RUN_IDLE_MINUTES=10.',
    );
  });
});
