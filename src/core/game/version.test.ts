import { describe, expect, it } from 'vitest';
import { games, gameVersions, solutions } from '../../games';
import type { LogEvent } from '../log/events';
import { verifyGameLog, type ReplayGame } from '../study/rules';
import { parseActions } from './actions';
import type { GameDefinition } from './define';
import { createRun, step } from './engine';
import { gameActionData, gameOpenData, GameOpenSchema, replayRecordedVersion } from './replay';
import { ENGINE_VERSION, gameVersion, versionText, versionedGameId } from './version';
import { hash64 } from './hash';

const push = games.push;
type PushLevel = { map: string; energy: number };
const pushLevels = push.levels as readonly PushLevel[];
/** An earlier push whose level 1 was laid out differently (the block one cell further). */
const oldPush: GameDefinition<unknown, unknown> = {
  ...push,
  levels: [{ ...pushLevels[0], map: pushLevels[0].map.replace('.b', 'b.') }, ...pushLevels.slice(1)],
};

/** A log of `game` opened with `open` and played with `actions` (each logged with what the game answered). */
function log(
  game: GameDefinition<unknown, unknown>,
  actions: string,
  open: Record<string, unknown> = { ...gameOpenData(game, 0) },
): LogEvent[] {
  const events: LogEvent[] = [{ seq: 0, t: 0, kind: 'game.open', data: open }];
  let run = createRun(game, 0);
  for (const input of parseActions(actions)) {
    const r = step(run, input);
    run = r.run;
    events.push({
      seq: events.length,
      t: events.length * 10,
      kind: 'game.action',
      data: { ...gameActionData(game.id, input, r.response) },
    });
  }
  return events;
}

describe('game versions', () => {
  it('are 12 hex digits of content, the same for an equal copy and with the id in front outward', () => {
    expect(gameVersion(push)).toMatch(/^[0-9a-f]{12}$/);
    expect(gameVersion({ ...push })).toBe(gameVersion(push));
    expect(gameVersion({ ...push, title: 'Another title', summary: 'x' })).toBe(gameVersion(push));
    expect(versionedGameId(push)).toBe(`push-${gameVersion(push)}`);
  });

  it('hash a JSON text of exactly the documented fields, keys sorted, that can be rebuilt elsewhere', () => {
    const text = versionText(push);
    const content = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(content)).toEqual(['actions', 'fps', 'id', 'levels', 'revision', 'starts', 'undo']);
    expect(content).toMatchObject({
      id: 'push',
      actions: [1, 2, 3, 4, 5],
      undo: true,
      fps: push.fps ?? 10,
      revision: 0,
      levels: JSON.parse(JSON.stringify(pushLevels)),
    });
    expect((content.starts as string[]).every((h) => /^[0-9a-f]{8}$/.test(h))).toBe(true);
    expect(text).not.toMatch(/\s"|": /);
    expect(gameVersion(push)).toBe(hash64(text).slice(0, 12));
  });

  it('change with any level, the actions, undo, fps, the revision or what a level start shows', () => {
    const v = gameVersion(push);
    const changed: GameDefinition<unknown, unknown>[] = [
      oldPush,
      { ...push, levels: pushLevels.map((l, i) => (i === 5 ? { ...l, energy: l.energy + 1 } : l)) },
      { ...push, levels: pushLevels.slice(0, -1) },
      { ...push, actions: [1, 2, 3, 4] },
      { ...push, undo: false },
      { ...push, fps: (push.fps ?? 10) + 1 },
      { ...push, revision: 1 },
      {
        ...push,
        render: (s, frame, info) => {
          push.render(s, frame, info);
          frame[0] = (frame[0] + 1) % 16;
        },
      },
    ];
    const versions = changed.map(gameVersion);
    for (const w of versions) expect(w).not.toBe(v);
    expect(new Set(versions).size).toBe(changed.length);
  });

  it('are recorded in game.open with the engine version, and validate', () => {
    const data = gameOpenData(push, 7);
    expect(data).toEqual({ game: 'push', seed: 7, version: gameVersion(push), engine: ENGINE_VERSION });
    expect(gameOpenData(push, 7, 2)).toMatchObject({ level: 2 });
    expect(GameOpenSchema.safeParse(data).success).toBe(true);
    expect(GameOpenSchema.safeParse({ ...data, version: 'push-1' }).success).toBe(false);
  });
});

describe('replay on the recorded version', () => {
  const sol = `RESET,${solutions.push[0]}`;

  it('replays a log of the current version on it and names it', () => {
    const r = replayRecordedVersion([push], log(push, sol));
    expect(r.problems).toEqual([]);
    expect(r.version).toBe(versionedGameId(push));
    expect(r.otherVersion).toBeUndefined();
    expect(r.run?.levelsCompleted).toBe(1);
  });

  it('replays a log of a retired version on that version, not the current one', () => {
    const old = log(oldPush, 'RESET,ACTION4,ACTION4');
    expect(replayRecordedVersion([push], old).otherVersion).toBeDefined();
    const r = replayRecordedVersion([push, oldPush], old);
    expect(r.problems).toEqual([]);
    expect(r.version).toBe(versionedGameId(oldPush));
  });

  it('reports a log of a version it does not have as recorded on another version, naming both, without replaying it', () => {
    const r = replayRecordedVersion([push], log(oldPush, 'RESET,ACTION4,ACTION4'));
    expect(r.otherVersion).toEqual({ recorded: versionedGameId(oldPush), current: versionedGameId(push) });
    expect(r.version).toBe(versionedGameId(oldPush));
    expect(r.steps).toEqual([]);
    expect(r.problems).toEqual([]);
  });

  it('takes a log without versions (an older log) as the first version it replays on', () => {
    const bare = (g: GameDefinition<unknown, unknown>, actions: string) => log(g, actions, { game: 'push', seed: 0 });
    expect(replayRecordedVersion([push, oldPush], bare(push, sol)).version).toBe(versionedGameId(push));
    const old = replayRecordedVersion([push, oldPush], bare(oldPush, 'RESET,ACTION4,ACTION4'));
    expect(old.problems).toEqual([]);
    expect(old.version).toBe(versionedGameId(oldPush));
    // On none of them: the current version's problems.
    const bad = bare(push, sol).map((e) => (e.seq === 2 ? { ...e, data: { ...e.data, frameHash: '00000000' } } : e));
    const r = replayRecordedVersion([push, oldPush], bad);
    expect(r.version).toBe(versionedGameId(push));
    expect(r.problems).toEqual([{ seq: 2, message: expect.stringMatching(/^logged frame 00000000, replay gives/) }]);
  });

  it('names another engine version when a log does not replay', () => {
    const events = log(push, sol, { ...gameOpenData(push, 0), engine: '0' });
    events[2] = { ...events[2], data: { ...events[2].data, level: 3 } };
    expect(replayRecordedVersion([push], events).problems.map((p) => p.message)).toContain(
      `recorded with engine 0, replayed with engine ${ENGINE_VERSION}`,
    );
  });

  it('lists the current version first, then retired ones of the same id', () => {
    expect(gameVersions('push')[0]).toBe(push);
    expect(gameVersions('nope')).toEqual([]);
  });
});

describe('verifyGameLog with versions', () => {
  const hook =
    (definitions: GameDefinition<unknown, unknown>[]): ReplayGame =>
    (_id, events) => {
      const r = replayRecordedVersion(definitions, events);
      return {
        problems: r.problems,
        actions: r.steps.length,
        levelsCompleted: r.run?.levelsCompleted ?? 0,
        version: r.version,
        ...(r.otherVersion ? { otherVersion: r.otherVersion } : {}),
      };
    };
  const stored = (events: LogEvent[]) => events.map((e) => ({ ...e, receivedAt: 0 }));

  it('verifies a log of the current version and names the version', () => {
    const v = verifyGameLog({ game: 'push' }, stored(log(push, `RESET,${solutions.push[0]}`)), hook([push]));
    expect(v).toMatchObject({
      verified: true,
      status: 'verified',
      version: versionedGameId(push),
      levelsCompleted: 1,
      flags: [],
    });
  });

  it('gives a log of another version its own status with both versions named, not "unverified"', () => {
    const v = verifyGameLog({ game: 'push' }, stored(log(oldPush, 'RESET,ACTION4')), hook([push]));
    expect(v.status).toBe('other_version');
    expect(v.verified).toBe(false);
    expect(v.version).toBe(versionedGameId(oldPush));
    expect(v.currentVersion).toBe(versionedGameId(push));
    expect(v.flags).toEqual([
      `recorded on ${versionedGameId(oldPush)}; this server runs ${versionedGameId(push)} and cannot replay it`,
    ]);
  });

  it('still calls a tampered log of the current version unverified', () => {
    const events = log(push, `RESET,${solutions.push[0]}`);
    events[2] = { ...events[2], data: { ...events[2].data, level: 4 } };
    expect(verifyGameLog({ game: 'push' }, stored(events), hook([push])).status).toBe('unverified');
  });
});
