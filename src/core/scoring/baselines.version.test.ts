import { describe, expect, it } from 'vitest';
import { baselinesToJson, computeBaselines, parseBaselines } from './baselines';

describe('baselines per game version', () => {
  it("write and read the version each game's figures come from", () => {
    const computed = computeBaselines([
      { participant: 'a', game: 'push', levels: [{ completed: true, actions: 4 }] },
      { participant: 'a', game: 'push-0123456789ab', levels: [{ completed: true, actions: 9 }] },
    ]);
    const withVersions = {
      ...computed,
      games: {
        push: { ...computed.games.push, version: 'push-fedcba987654' },
        'push-0123456789ab': { ...computed.games['push-0123456789ab'], version: 'push-0123456789ab' },
      },
    };
    const text = baselinesToJson(withVersions);
    expect(text).toContain('"push": {"version": "push-fedcba987654", "participants": 1');
    const read = parseBaselines(text);
    expect(read.games.push.version).toBe('push-fedcba987654');
    expect(read.games['push-0123456789ab']).toMatchObject({ version: 'push-0123456789ab', levels: [{ actions: [9] }] });
    // Files written before versions were recorded still read.
    expect(parseBaselines(baselinesToJson(computed)).games.push.version).toBeUndefined();
  });
});
