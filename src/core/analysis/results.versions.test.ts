import { describe, expect, it } from 'vitest';
import {
  createRun,
  gameActionData,
  gameOpenData,
  parseActions,
  replayRecordedVersion,
  step,
  versionedGameId,
  type GameDefinition,
} from '../game';
import { games, solutions } from '../../games';
import { parseStudy, type StudyDefinition } from '../study/schema';
import { summarizeSession } from '../study/summary';
import type { ReplayGame, StoredEvent } from '../study/rules';
import { studyResults, type ResultsSession } from './results';

const glow = games.glow;
/** An earlier glow whose level 1 allowed one more charge. */
const oldGlow: GameDefinition<unknown, unknown> = {
  ...glow,
  levels: glow.levels.map((l, i) =>
    i === 0 ? { ...(l as { charges: number }), charges: (l as { charges: number }).charges + 1 } : l,
  ),
};

const parsed = parseStudy({
  title: 'Versions',
  consent: 'ok',
  completion: { code: 'X' },
  items: [{ kind: 'game', id: 'lamps', game: 'glow', seed: 0 }],
});
if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
const study: StudyDefinition = parsed.study;

/** A session that plays level 1 of `game` by its solution, `game.open` written by `open`. */
function events(game: GameDefinition<unknown, unknown>, open: Record<string, unknown>): StoredEvent[] {
  const out: StoredEvent[] = [];
  const add = (kind: string, data: Record<string, unknown>) =>
    out.push({ seq: out.length, t: out.length * 100, kind, data, receivedAt: out.length * 100 });
  add('item.start', { item: 'lamps', kind: 'game' });
  add('game.open', open);
  let run = createRun(game, 0);
  for (const input of parseActions(`RESET,${solutions.glow[0]}`)) {
    const r = step(run, input);
    run = r.run;
    add('game.action', { ...gameActionData('glow', input, r.response) });
  }
  return out;
}

const hook =
  (definitions: GameDefinition<unknown, unknown>[]): ReplayGame =>
  (_id, evs) => {
    const r = replayRecordedVersion(definitions, evs);
    return {
      problems: r.problems,
      actions: r.steps.length,
      levelsCompleted: r.run?.levelsCompleted ?? 0,
      version: r.version,
      ...(r.otherVersion ? { otherVersion: r.otherVersion } : {}),
    };
  };

const session = (id: string): ResultsSession => ({
  id,
  studyVersion: 1,
  params: { PROLIFIC_PID: id },
  order: [0],
  state: 'finished',
  createdAt: 0,
  lastEventAt: 1,
  finishedAt: 2,
  flags: [],
});

const sessions = {
  current: events(glow, { ...gameOpenData(glow, 0) }),
  old: events(oldGlow, { ...gameOpenData(oldGlow, 0) }),
  bareOld: events(oldGlow, { game: 'glow', seed: 0 }), // logged before versions were recorded
};

function results(definitions: GameDefinition<unknown, unknown>[]) {
  return studyResults({
    study: { id: 'v' },
    versions: [{ version: 1, definition: study }],
    version: null,
    now: 10,
    sessions: Object.entries(sessions).map(([id, evs]) => ({ session: session(id), events: evs, submissions: [] })),
    testCount: () => null,
    replay: hook(definitions),
    games: { glow: { title: glow.title, levels: glow.levels.length, version: versionedGameId(glow) } },
  });
}

describe('results per game version', () => {
  it('flags a log of a version the server cannot run as other_version, not unverified', () => {
    const s = summarizeSession(study, [0], sessions.old, [], () => [], hook([glow]));
    expect(s.flags).toEqual(['game_log_other_version:lamps']);
    expect(s.items[0].game).toMatchObject({
      status: 'other_version',
      version: versionedGameId(oldGlow),
      currentVersion: versionedGameId(glow),
    });
    // Not replayed: the logged actions are counted as the scorecard would (the solution's clicks;
    // the opening RESET is not an action).
    expect(s.items[0].actions).toBe(solutions.glow[0].split(',').length);
  });

  it('keeps a row per version: the current one with its players, another with the logs recorded on it', () => {
    const r = results([glow]);
    expect(r.games.map((g) => [g.version, g.current, g.participants, g.unverified, g.otherVersion])).toEqual([
      // The bare old log names no version and does not replay on the current one: unverified there.
      [versionedGameId(glow), true, 1, 1, 0],
      // The versioned old log is set apart as another version.
      [versionedGameId(oldGlow), false, 0, 0, 1],
    ]);
    expect(r.games[1].levels).toEqual([]);
    expect(r.participants.find((p) => p.sessionId === 'bareOld')?.flags).toEqual(['game_log_unverified:lamps']);
  });

  it("verifies old logs on a retired version kept by the server, into that version's own figures", () => {
    const r = results([glow, oldGlow]);
    const [all, cur, old] = r.games;
    // Players of two versions: the row of all versions comes first, adding both up.
    expect(all).toMatchObject({ version: null, allVersions: true, current: false, participants: 3 });
    expect(all.levels[0]).toMatchObject({ reached: 3, completed: 3 });
    expect(cur).toMatchObject({ version: versionedGameId(glow), participants: 1, unverified: 0, otherVersion: 0 });
    // Both old logs, the versioned one and the bare one, verify on the retired version.
    expect(old).toMatchObject({
      version: versionedGameId(oldGlow),
      current: false,
      participants: 2,
      unverified: 0,
      otherVersion: 0,
    });
    expect(old.levels[0]).toMatchObject({ reached: 2, completed: 2 });
    expect(old.levels[0].baselines.best.value).toBe(solutions.glow[0].split(',').length);
  });
});
