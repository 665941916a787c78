/**
 * Every count of the studio equals the official ARC-AGI-3 scorecard's, for sequences with
 * actions after GAME_OVER and after WIN (which the official engine answers with an empty frame
 * and its scorecard does not count): played through the participant route on the official
 * engine and logged as the browser logs them, then read back as the study's results (per-level
 * counts of completers, so baselines, and each participant's actions), as `firstRunLevels`
 * (baselines' reading of a log) and as `arc-studio games play`. The official figures come from
 * the vendored toolkit, run now on the same actions (src/core/scoring/fixtures/official_counts.py).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFrames } from '../../core/formats/frames';
import type { StudyResults } from '../../core/analysis/results';
import { firstRunLevels } from '../../core/scoring/baselines';
import { playArc3Game } from '../../cli/games';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import {
  ARC3_ENV,
  FIXTURE_GAMES,
  OFFICIAL_GAMES,
  PYTHONPATH,
  TG01,
  TG01_SOLUTION,
  VC33,
  VC33_MOVES,
  arc3Api,
  playArc3,
  runToolkit,
  times,
  type Arc3Api,
} from '../testing/arc3';
import { Arc3Worker } from './worker';

const ADMIN = 'researcher-token-for-official-count-tests';

const { solve1: VC33_1, solve2: VC33_2, waste: WASTE, lose: VC33_LOSE } = VC33_MOVES;
const TG01_WIN = TG01_SOLUTION;

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
    dir: FIXTURE_GAMES,
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
const official = (): OfficialPlay[][] =>
  runToolkit<OfficialPlay[][]>(
    'official_counts.py',
    SEQUENCES.map((s) => ({ dir: s.dir, game: s.game, actions: s.actions.join(',') })),
  );

const backend = backends.find((b) => b.name === 'pglite')!;

describe("counts equal the official scorecard's with actions after GAME_OVER and WIN", () => {
  let store: Store;
  let api: Arc3Api;
  let plays: OfficialPlay[][];

  beforeAll(async () => {
    plays = official();
    store = await backend.open();
    api = await arc3Api(store, { admin: ADMIN, dirs: [OFFICIAL_GAMES, FIXTURE_GAMES] });
  });
  afterAll(async () => {
    await api?.arc3.service.stop();
    await store?.close();
  });

  /** One participant in a study of its own plays the sequence through the routes and logs it as the browser does. */
  async function playThroughRoutes(s: Sequence, study: string) {
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
    return playArc3(api, { study, item: s.item, game: s.game, actions: s.actions.slice(1) });
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
      const results = (await api.call('GET', `/admin/studies/count_${i}/results`, ADMIN)).body as StudyResults;
      const game = results.games.find((g) => g.game === s.game && g.current)!;
      expect(game.participants).toBe(1);
      const completedCounts = game.levels.filter((l) => l.completed === 1).map((l) => l.actions.values[0]);
      expect(completedCounts).toEqual(first.level_actions.slice(0, first.levels_completed));
      expect(results.participants[0].actions).toBe(official.reduce((sum, p) => sum + p.actions, 0));

      // `arc-studio games play`: the last run's counts and the number of runs.
      const worker = new Arc3Worker({ gameDirs: [s.dir], pythonPath: PYTHONPATH, env: ARC3_ENV, timeoutMs: 60_000 });
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
