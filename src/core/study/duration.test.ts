import { describe, expect, it } from 'vitest';
import { spokenMinutes } from './duration';

describe('spokenMinutes', () => {
  it.each([
    [0.2, '12 seconds'],
    [0.5, '30 seconds'],
    [1 / 60, '1 second'],
    [1, '1 minute'],
    [1.5, '1 minute 30 seconds'],
    [2.5, '2 minutes 30 seconds'],
    [10, '10 minutes'],
    [90, '90 minutes'],
    // Rounded to the second: a limit is never read to a fraction of one.
    [0.3333, '20 seconds'],
    [0, '0 seconds'],
  ])('%s minutes read "%s"', (minutes, text) => {
    expect(spokenMinutes(minutes)).toBe(text);
  });
});
