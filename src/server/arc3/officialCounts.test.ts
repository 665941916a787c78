/**
 * Every count of the studio equals the official ARC-AGI-3 scorecard's, for sequences with
 * actions after GAME_OVER and after WIN (which the official engine answers with an empty frame
 * and its scorecard does not count): played through the participant route on the official
 * engine and logged as the browser logs them, then read back as the study's results (per-level
 * counts of completers, so baselines, and each participant's actions), as `firstRunLevels`
 * (baselines' reading of a log) and as `arc-studio games play`. The official figures come from
 * the vendored toolkit, run now on the same actions (src/core/scoring/fixtures/official_counts.py).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseActions } from '../../core/game';
import { decodeFrames } from '../../core/formats/frames';
import { serverStepEventData, type ServerRunReply, type ServerStep } from '../../core/game/serverGame';
import type { StudyResults } from '../../core/analysis/results';
import { firstRunLevels } from '../../core/scoring/baselines';
import type { LogEvent } from '../../core/log/events';
import { playArc3Game } from '../../cli/games';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { startArc3, studioGames, type Arc3Started } from './mount';
import { Arc3Worker } from './worker';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(process.env.ARC_AGI_3_VENDOR ?? path.join(ROOT, '../shared/vendor/arc-agi-3'));
const PYTHONPATH = path.join(VENDOR, 'python');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);
const OFFICIAL_GAMES = path.join(VENDOR, 'environment_files');
const FIXTURES = path.join(ROOT, 'e2e/fixtures/arc3-games');
const ENV = {
  ...process.env,
  ARC_STUDIO_PYTHONPATH: PYTHONPATH,
  ARC_STUDIO_ARC3_GAMES: '',
  PYTHONDONTWRITEBYTECODE: '1',
};
const ADMIN = 'researcher-token-for-official-count-tests';

const VC33 = 'vc33-5430563c';
const TG01 = 'tg01-5e1f0a27';
const times = (n: number, a: string) => Array<string>(n).fill(a);
/** vc33: clicks that solve levels 1 and 2, one that changes nothing, and 75 of one that end level 3 in GAME_OVER. */
const VC33_1 = times(3, 'ACTION6:60:32');
const VC33_2 = [...times(2, 'ACTION6:0:24'), ...times(5, 'ACTION6:0:44')];
const WASTE = 'ACTION6:10:60';
const VC33_LOSE = times(75, 'ACTION6:60:32');
/** tg01 (a fixture game in the official layout): its recorded solution, 10 actions per level. */
const TG01_WIN = [
  'ACTION2',
  'ACTION2',
  'ACTION4',
  'ACTION4',
  'ACTION4',
  'ACTION4',
  'ACTION4',
  'ACTION2',
  'ACTION2',
  'ACTION2',
  'ACTION6:12:52',
  'ACTION2',
  'ACTION2',
  'ACTION4',
  'ACTION4',
  'ACTION4',
  'ACTION4',
  'ACTION2',
  'ACTION2',
  'ACTION4',
];

interface Sequence {
  readonly name: string;
  readonly item: string;
  readonly game: string;
  readonly dir: string;
  readonly actions: readonly string[];
}
const SEQUENCES: readonly Sequence[] = [
  {
    name: 'vc33: GAME_OVER in level 3, four actions after it, a level RESET, then a new run',
    item: 'lose',
    game: VC33,
    dir: OFFICIAL_GAMES,
    actions: [
      'RESET',
      ...VC33_1,
      WASTE,
      ...VC33_2,
      ...VC33_LOSE,
      ...times(3, 'ACTION6:60:32'),
      WASTE,
      'RESET',
      WASTE,
      WASTE,
      'RESET',
      'RESET',
      ...VC33_1.slice(0, 2),
    ],
  },
  {
    name: 'vc33: GAME_OVER, actions after it, and a second GAME_OVER after the level RESET',
    item: 'lose',
    game: VC33,
    dir: OFFICIAL_GAMES,
    actions: ['RESET', ...VC33_1, ...VC33_2, ...VC33_LOSE, WASTE, 'RESET', ...VC33_LOSE, WASTE, WASTE],
  },
  {
    name: 'tg01: WIN, three actions after it, then a RESET that starts a new run',
    item: 'win',
    game: TG01,
    dir: FIXTURES,
    actions: ['RESET', ...TG01_WIN, 'ACTION1', 'ACTION6:12:52', 'ACTION2', 'RESET', 'ACTION1', 'ACTION2'],
  },
];

interface OfficialPlay {
  actions: number;
  level_actions: number[];
  state: string;
  levels_completed: number;
}

/** The official toolkit's plays for each sequence. */
function official(): OfficialPlay[][] {
  const r = spawnSync('python3', [path.join(ROOT, 'src/core/scoring/fixtures/official_counts.py'), VENDOR], {
    input: JSON.stringify(SEQUENCES.map((s) => ({ dir: s.dir, game: s.game, actions: s.actions.join(',') }))),
    encoding: 'utf8',
    timeout: 180_000,
    env: ENV,
  });
  if (r.status !== 0) throw new Error(`the official toolkit failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as OfficialPlay[][];
}

const backend = backends.find((b) => b.name === 'pglite')!;

describe("counts equal the official scorecard's with actions after GAME_OVER and WIN", () => {
  let store: Store;
  let arc3: Arc3Started;
  let app: Hono;
  let plays: OfficialPlay[][];

  beforeAll(async () => {
    plays = official();
    store = await backend.open();
    arc3 = await startArc3({ dirs: [OFFICIAL_GAMES, FIXTURES], servers: [], env: ENV, workers: 1 }, store, () => {});
    app = createApi({
      library: new TaskLibrary(),
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken(ADMIN),
        replay: studioGames(arc3).replay,
        gameInfo: studioGames(arc3).gameInfo,
        games: new Set([...gameIds, ...arc3.service.ids]),
        arc3: { service: arc3.service, engine: arc3.engine },
      },
    });
  });
  afterAll(async () => {
    await arc3?.service.stop();
    await store?.close();
  });

  const call = async (method: string, url: string, token: string | null, body?: unknown) => {
    const res = await app.request(url, {
      method,
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200 && res.status !== 201)
      throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  /** One participant in a study of its own plays the sequence through the routes and logs it as the browser does. */
  async function playThroughRoutes(s: Sequence, study: string): Promise<{ steps: ServerStep[]; events: LogEvent[] }> {
    await store.saveStudy(
      study,
      {
        title: s.name,
        consent: 'Yes.',
        completion: { code: 'C' },
        items: [{ kind: 'game', id: s.item, game: s.game }],
      },
      'file',
      Date.now(),
    );
    const { sessionId, token } = (await call('POST', `/studies/${study}/sessions`, null, { params: {} })) as {
      sessionId: string;
      token: string;
    };
    const opened = (await call('POST', `/sessions/${sessionId}/runs`, token, {
      item: s.item,
    })) as unknown as ServerRunReply;
    const steps: ServerStep[] = [opened.steps[0]];
    for (const input of parseActions(s.actions.slice(1).join(','))) {
      steps.push(
        (await call('POST', `/sessions/${sessionId}/runs/${opened.run}/actions`, token, {
          step: steps.length,
          ...input,
        })) as unknown as ServerStep,
      );
    }
    // Answered before stored: the steps land before the item's end.
    await arc3.service.stepsStored();
    const events = [
      { kind: 'session.start', data: { wallClock: '2026-02-01T09:00:00.000Z' } },
      { kind: 'item.start', data: { item: s.item, kind: 'game' } },
      {
        kind: 'game.open',
        data: { game: s.game, seed: 0, run: opened.run, source: 'arcengine', engine: opened.game.engine },
      },
      ...steps.map((st) => ({ kind: 'game.action', data: serverStepEventData(st) })),
      { kind: 'item.end', data: { item: s.item } },
    ].map((e, seq) => ({ seq, t: seq * 200, ...e }));
    expect(await call('POST', `/sessions/${sessionId}/events`, token, { events })).toEqual({
      ackedThrough: events.length - 1,
    });
    return { steps, events };
  }

  it.each(SEQUENCES.map((s, i) => [s.name, i] as const))(
    '%s',
    async (_, i) => {
      const s = SEQUENCES[i];
      const official = plays[i];
      const first = official[0];
      const { steps, events } = await playThroughRoutes(s, `count_${i}`);
      // The sequence does what it is meant to: the official engine answered actions after the end with no frame.
      const ended = steps.filter(
        (st, k) =>
          k > 0 && st.action !== 'RESET' && (steps[k - 1].state === 'GAME_OVER' || steps[k - 1].state === 'WIN'),
      );
      expect(ended.length).toBeGreaterThan(0);
      for (const st of ended) expect(decodeFrames(st.frames)).toEqual([]);

      // Baselines' reading of the log: every level of the first run, completed or not.
      expect(firstRunLevels(events, s.game)?.map((l) => l.actions)).toEqual(first.level_actions);
      expect(firstRunLevels(events, s.game)?.filter((l) => l.completed).length).toBe(first.levels_completed);

      // The study's results: each completed level's count (what baselines are computed from) and the participant's actions.
      const results = (await call('GET', `/admin/studies/count_${i}/results`, ADMIN)) as unknown as StudyResults;
      const game = results.games.find((g) => g.game === s.game && g.current)!;
      expect(game.participants).toBe(1);
      const completedCounts = game.levels.filter((l) => l.completed === 1).map((l) => l.actions.values[0]);
      expect(completedCounts).toEqual(first.level_actions.slice(0, first.levels_completed));
      expect(results.participants[0].actions).toBe(official.reduce((sum, p) => sum + p.actions, 0));

      // `arc-studio games play`: the last run's counts and the number of runs.
      const worker = new Arc3Worker({ gameDirs: [s.dir], pythonPath: PYTHONPATH, env: ENV, timeoutMs: 60_000 });
      try {
        const played = await playArc3Game(worker, 'arcengine', s.game, s.actions.join(','));
        const last = official[official.length - 1];
        expect(played).toMatchObject({
          runs: official.length,
          actions: last.actions,
          level_actions: last.level_actions,
          state: last.state,
        });
      } finally {
        await worker.stop();
      }
    },
    300_000,
  );
});
