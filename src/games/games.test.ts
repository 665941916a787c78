import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  actionCounts,
  advance,
  createRun,
  parseActions,
  randomPolicy,
  renderRun,
  solveLevel,
  step,
  versionedGameId,
  type ActionInput,
} from '../core/game';
import { goldenPin, pinChanges, type GamePin } from './golden';
import { gameVersions, games, getGame, retiredGames, solutions } from './index';

const GOLDEN = path.join(__dirname, 'golden.json');
const UPDATE = 'UPDATE_GOLDEN=1 npx vitest run src/games/games.test.ts';

describe('golden pins (src/games/golden.json)', () => {
  const now: Record<string, GamePin> = Object.fromEntries(
    Object.entries(games).map(([id, g]) => [id, goldenPin(g, solutions[id])]),
  );
  if (process.env.UPDATE_GOLDEN) writeFileSync(GOLDEN, `${JSON.stringify(now, null, 2)}\n`);
  const pinned = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, GamePin>;

  it('pin every game and no other', () => {
    expect(
      Object.keys(pinned).sort(),
      `games and pins differ; if a game was added or removed, update the pins: ${UPDATE}`,
    ).toEqual(Object.keys(games).sort());
  });

  for (const id of Object.keys(games)) {
    it(`${id}: the version, the engine and each level's final frame are as pinned`, () => {
      const was = pinned[id];
      if (!was) return; // reported by the test above
      const changes = pinChanges(was, now[id]);
      if (changes.length && was.version === now[id].version) {
        expect.fail(
          `${id} plays differently but its version is still ${was.version}: ${changes.join('; ')}. A change to how a game plays must change its version: bump \`revision\` in src/games/${id}/game.ts, then update the pins: ${UPDATE}`,
        );
      }
      if (changes.length) {
        expect.fail(
          `${id} changed: ${changes.join('; ')}. Logs recorded on ${was.version} will be reported as recorded on another version unless the old definition is kept in \`retiredGames\` (src/games/index.ts; see docs/authoring-games.md). If the change is intended, update the pins: ${UPDATE}`,
        );
      }
      expect(now[id].levels.every((l) => /^[0-9a-f]{8}$/.test(l.finalFrame))).toBe(true);
    });
  }
  it('name what changed: a rule change that the version does not see still shows in the final frames', () => {
    const push = games.push;
    // Winning shows nothing of the last move: the data and level starts are the same, so is the version.
    const changed = {
      ...push,
      step: (st: unknown, input: ActionInput, ctx: Parameters<typeof push.step>[2]) => {
        const next = push.step(st, input, ctx);
        return push.outcome(next) === 'won' ? { ...(next as object), agent: 0 } : next;
      },
    };
    const changes = pinChanges(now.push, goldenPin(changed, solutions.push));
    expect(changes[0]).toMatch(/^level 1: final frame [0-9a-f]{8} -> [0-9a-f]{8}$/);
    expect(changes.some((c) => c.startsWith('version'))).toBe(false);
    const bumped = { ...push, revision: 1 };
    expect(pinChanges(now.push, goldenPin(bumped, solutions.push))).toEqual([
      `version ${now.push.version} -> ${versionedGameId(bumped)}`,
    ]);
  });
});

const RANDOM_STEPS = 50_000;

for (const [id, game] of Object.entries(games)) {
  describe(`game ${id}`, () => {
    const sols = solutions[id];

    it('has a 4-character id, at least 6 levels and a recorded solution for each', () => {
      expect(game.id).toBe(id);
      expect(id).toMatch(/^[a-z]{4}$/);
      expect(game.levels.length).toBeGreaterThanOrEqual(6);
      expect(sols).toHaveLength(game.levels.length);
    });

    it('golden replay: every recorded solution wins its level, and all of them win the game', () => {
      game.levels.forEach((_, level) => {
        let run = createRun(game, { level });
        const inputs = parseActions(sols[level]);
        inputs.forEach((input, i) => {
          run = advance(run, input);
          if (i < inputs.length - 1) expect(run.levelsCompleted, `level ${level + 1} won early`).toBe(level);
        });
        expect(run.levelsCompleted, `level ${level + 1}`).toBe(level + 1);
      });
      let run = createRun(game);
      let frames = 0;
      for (const input of parseActions(['RESET', ...sols].join(','))) {
        const r = step(run, input as ActionInput);
        run = r.run;
        frames += r.response.frame.length;
        for (const f of r.response.frame) expect(f.every((v) => v < 16)).toBe(true);
      }
      expect(run.state).toBe('WIN');
      expect(actionCounts(run)).toEqual(sols.map((s) => s.split(',').length));
      expect(frames).toBeGreaterThan(run.actions);
    });

    it('recorded solutions are minimal: breadth-first search finds none shorter (the READMEs quote these counts)', () => {
      game.levels.forEach((_, level) => {
        expect(solveLevel(game, level)?.length, `level ${level + 1}`).toBe(sols[level].split(',').length);
      });
    });

    it('draws every level start in range and differently', () => {
      const hashes = new Set(game.levels.map((_, level) => renderRun(createRun(game, { level })).join('')));
      expect(hashes.size).toBe(game.levels.length);
    });

    it(`random policy: ${RANDOM_STEPS} seeded random steps win no level after the tutorial`, () => {
      for (let level = 1; level < game.levels.length; level++) {
        const r = randomPolicy(game, level, RANDOM_STEPS, 1234 + level);
        expect(r.wonAt, `level ${level + 1} won by chance at step ${r.wonAt}`).toBe(-1);
      }
      // The same policy does win the tutorial, so it is a real test of chance.
      expect(randomPolicy(game, 0, RANDOM_STEPS, 1234).wonAt).toBeGreaterThan(0);
    });
  });
}

describe('game ids', () => {
  it('take the short id and the versioned one; a version this build lacks is named with the ones it has', () => {
    expect(getGame('push')).toBe(games.push);
    expect(getGame(versionedGameId(games.push))).toBe(games.push);
    expect(() => getGame('push-000000000000')).toThrow(
      `game "push" has no version 000000000000 here; versions: ${gameVersions('push').map(versionedGameId).join(', ')} (the first is current).`,
    );
    // A retired version is still served by its versioned id.
    expect(getGame('push-f39e6e1680aa')).not.toBe(games.push);
    expect(versionedGameId(getGame('push-f39e6e1680aa'))).toBe('push-f39e6e1680aa');
    expect(() => getGame('nope')).toThrow(/no game "nope"; games: push, glow, flux/);
  });
  it('keep each retired version as it was: its levels share the current ones, so an edit there must not change it', () => {
    expect(retiredGames.map(versionedGameId)).toEqual(['push-f39e6e1680aa', 'glow-0772acacc911', 'flux-43f2a4b18d3f']);
  });
});
