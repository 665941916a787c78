/**
 * RHAE (relative human action efficiency): how an agent's action counts per level compare with
 * the human baselines, under named, versioned presets. See docs/scoring.md for the formulas and
 * worked examples.
 *
 * With `h` the human baseline of a level, `a` the agent's actions on it and `w = k` the weight of
 * level `k` (1-based):
 * - `paper` (v1): level score `min(1, h/a)^2`; game score the weighted mean over the levels with
 *   a baseline; the agent's first run of each game; total the mean over games. Baseline:
 *   `second-best`.
 * - `toolkit-2026-04` (v2): the official toolkit's `scorecard.py`, rule for rule. Level score
 *   `min(1.15, (h/a)^2)`; game score `min(weighted mean, weight of levels scoring above 0 / total
 *   weight)` over the levels the baselines list; a run that completed more levels than the
 *   baselines list scores 0; the best run of each game; total the mean over games. Baseline:
 *   `upper-median`.
 *
 * Under both: a level not completed, or completed with 0 actions, scores 0; a game the baselines
 * do not hold (ids match exactly) scores 0 and still counts in the total. The baselines of a game
 * are the levels 1..m that have one (`coveredBaselines`); when m is short of the game's level
 * count, or a game has none, the result says so in `warnings`, which every report puts in its
 * headline: such a total is not a score over every level.
 */
import {
  BASELINE_PRESETS,
  levelBaseline,
  matchGame,
  otherVersions,
  type BaselinePresetName,
  type Baselines,
  type GameBaselines,
  type LevelBaselineUse,
} from './baselines';

/** The names of the scoring presets. */
export type ScoringPresetName = 'paper' | 'toolkit-2026-04';

/** A scoring rule: the baseline it compares with, the level score, the game score, the runs. */
export interface ScoringPreset {
  readonly name: ScoringPresetName;
  readonly version: number;
  /** Which human baseline the preset compares with. */
  readonly baseline: BaselinePresetName;
  readonly description: string;
  /** Score of a completed level with baseline `h` and `a` agent actions. */
  levelScore(h: number, a: number): number;
  /** Whether the game score is capped by the weight share of the levels scoring above 0. */
  readonly capByCompleted: boolean;
  /** Whether a run that completed more levels than the baselines list scores 0 (official "size mismatch"). */
  readonly sizeMismatchZero: boolean;
  /** Which run of a game counts when several are given. */
  readonly run: 'first' | 'best';
}

/** The scoring presets, by name. */
export const SCORING_PRESETS: Readonly<Record<ScoringPresetName, ScoringPreset>> = Object.freeze({
  paper: {
    name: 'paper',
    version: 2,
    baseline: 'second-best',
    capByCompleted: false,
    sizeMismatchZero: false,
    run: 'first',
    description:
      'ARC-AGI-3 paper: second-best human; level score min(1, h/a)^2; levels weighted by index; game score the weighted mean over the levels with a baseline; first run per game; total the mean over games',
    levelScore: (h: number, a: number) => (a > 0 ? Math.min(1, h / a) ** 2 : 0),
  },
  'toolkit-2026-04': {
    name: 'toolkit-2026-04',
    version: 2,
    baseline: 'upper-median',
    capByCompleted: true,
    sizeMismatchZero: true,
    run: 'best',
    description:
      'official toolkit since April 2026: upper-median human; level score min(1.15, (h/a)^2); levels weighted by index; game score the weighted mean capped by the weight share of levels scoring above 0; a run that completed more levels than the baselines list scores 0; best run per game; total the mean over games',
    levelScore: (h: number, a: number) => (a > 0 ? Math.min(1.15, (h / a) ** 2) : 0),
  },
});

/** True when `name` is a scoring preset's name. */
export function isScoringPreset(name: string): name is ScoringPresetName {
  return Object.prototype.hasOwnProperty.call(SCORING_PRESETS, name);
}

/** One run (play) of an agent on a game, as the official scorecard counts it. */
export interface AgentRun {
  /** The game id as the recording names it (matched to the baselines exactly). */
  readonly game: string;
  /** Where the run comes from, e.g. `ls20.recording.jsonl#1`. */
  readonly label: string;
  /**
   * Actions per level as the scorecard splits them (index 0 is level 1): one entry per level
   * completed, then the actions in the level being played when the run ended (see
   * `playLevelActions`). Levels past the end had no action.
   */
  readonly levelActions: readonly number[];
  /** Levels the scorecard counts as completed: the first `levelsCompleted` entries of `levelActions`. */
  readonly levelsCompleted: number;
  /** The game's level count when the run says (`win_levels`). */
  readonly winLevels?: number;
}

/** One level of a scored run. */
export interface LevelScore {
  /** 1-based. */
  readonly level: number;
  readonly weight: number;
  /** The human baseline with its preset and participant counts. */
  readonly human: LevelBaselineUse;
  readonly completed: boolean;
  /** The agent's actions on the level (null when the run never entered it). */
  readonly agentActions: number | null;
  /** Null when the level is outside the baselines (then it is left out of the game). */
  readonly score: number | null;
}

/** One scored run. */
export interface RunScore {
  readonly label: string;
  readonly levels: readonly LevelScore[];
  /** Sum of weight x score over the levels the baselines cover, divided by the sum of their weights. */
  readonly weightedMean: number;
  /** Sum of the weights of covered levels scoring above 0, divided by the sum of all their weights. */
  readonly completedShare: number;
  /** The run's game score under the preset. */
  readonly score: number;
  /** Why the run scores 0 whatever it did, when it does. */
  readonly zeroBecause?: string;
}

/** One scored game. */
export interface GameScore {
  /** The game id in the recordings (and in the baselines, when they hold it). */
  readonly game: string;
  /** Whether the baselines hold this game id. */
  readonly hasBaselines: boolean;
  /** First-time players behind the game's baselines (null for official metadata or no baselines). */
  readonly participants: number | null;
  /** The game's level count as far as known: its runs' `win_levels` and the baselines' levels. */
  readonly levelCount: number | null;
  /** Levels 1..coveredLevels have a baseline under the preset. */
  readonly coveredLevels: number;
  readonly runs: readonly RunScore[];
  /** Index in `runs` of the run that counts. */
  readonly counted: number;
  /** The counted run's score. */
  readonly score: number;
}

/** The result of scoring: per level, per run, per game and in total. */
export interface RhaeResult {
  readonly preset: ScoringPresetName;
  readonly version: number;
  readonly description: string;
  readonly baselinePreset: BaselinePresetName;
  readonly baselineVersion: number;
  readonly baselineSource: Baselines['source'];
  readonly games: readonly GameScore[];
  /** Mean of the game scores over every game played, those without baselines included (as 0). */
  readonly total: number;
  /** True when the baselines cover every level of every game played. */
  readonly complete: boolean;
  /** What the baselines do not cover: one sentence per game, for the headline of any report. */
  readonly warnings: readonly string[];
  /** Runs that score 0 whatever they did, and why. */
  readonly notes: readonly string[];
}

/** A run that cannot be scored against the baselines given. */
export class ScoringError extends Error {
  override readonly name = 'ScoringError';
}

/**
 * The baselines of a game's levels 1..m under `preset`: every level up to the first without one
 * (too few completers, or past the end of the list). The official scorer takes a game's
 * `baseline_actions` list as it is; this is that list.
 */
export function coveredBaselines(
  game: GameBaselines,
  source: Baselines['source'],
  preset: ScoringPresetName,
): LevelBaselineUse[] {
  const out: LevelBaselineUse[] = [];
  for (let k = 1; k <= game.levels.length; k++) {
    const b = levelBaseline(game, source, k, SCORING_PRESETS[preset].baseline);
    if (b.value === null) break;
    out.push(b);
  }
  return out;
}

const NO_BASELINES: LevelBaselineUse = {
  value: null,
  preset: 'metadata',
  version: null,
  completers: null,
  reached: null,
  reason: 'no baselines for this game',
};

/**
 * Scores one run of a game against its baselines under `preset`.
 * @example
 * // Baselines 4, 10, 6 (second-best); the agent took 8 and 10 actions and did not finish level 3:
 * // level scores 0.25, 1, 0; game score (1*0.25 + 2*1 + 3*0) / 6 = 0.375.
 */
export function scoreRun(run: AgentRun, baselines: Baselines, preset: ScoringPresetName): RunScore {
  const p = SCORING_PRESETS[preset];
  const id = matchGame(baselines, run.game);
  const game = id === null ? null : baselines.games[id];
  const covered = game ? coveredBaselines(game, baselines.source, preset) : [];
  const m = covered.length;
  const n = Math.max(m, game?.levels.length ?? 0, run.winLevels ?? 0, run.levelsCompleted);
  const levels: LevelScore[] = [];
  let weights = 0,
    weighted = 0,
    scoringWeights = 0;
  for (let k = 1; k <= n; k++) {
    const human = k <= m ? covered[k - 1] : game ? levelBaseline(game, baselines.source, k, p.baseline) : NO_BASELINES;
    const completed = k <= run.levelsCompleted;
    const agentActions = k <= run.levelActions.length ? run.levelActions[k - 1] : null;
    let score: number | null = null;
    if (k <= m) {
      score = completed ? p.levelScore(human.value!, agentActions ?? 0) : 0;
      weights += k;
      weighted += k * score;
      if (score > 0) scoringWeights += k;
    }
    levels.push({ level: k, weight: k, human, completed, agentActions, score });
  }
  const weightedMean = weights ? weighted / weights : 0;
  const completedShare = weights ? scoringWeights / weights : 0;
  const base = { label: run.label, levels, weightedMean, completedShare };
  if (!game) return { ...base, score: 0, zeroBecause: `the baselines have no game "${run.game}"` };
  if (m === 0)
    return {
      ...base,
      score: 0,
      zeroBecause: `no level of "${run.game}" has a ${baselines.source === 'metadata' ? 'baseline' : `${p.baseline} baseline`}`,
    };
  if (p.sizeMismatchZero && run.levelsCompleted > m) {
    return {
      ...base,
      score: 0,
      zeroBecause: `it completed ${run.levelsCompleted} levels and the baselines list ${m} (the official scorer's "size mismatch")`,
    };
  }
  return { ...base, score: p.capByCompleted ? Math.min(weightedMean, completedShare) : weightedMean };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Scores agent runs against human baselines: per level, per run, per game (the preset's run:
 * the first that took an action, or the best) and the total, the mean over the games played.
 * @throws ScoringError when no run is given.
 */
export function scoreRuns(runs: readonly AgentRun[], baselines: Baselines, preset: ScoringPresetName): RhaeResult {
  const p = SCORING_PRESETS[preset];
  if (!p)
    throw new ScoringError(`unknown preset "${String(preset)}"; presets: ${Object.keys(SCORING_PRESETS).join(', ')}.`);
  if (runs.length === 0) throw new ScoringError('no run to score: give at least one recording with an action in it.');
  const byGame = new Map<string, { runs: AgentRun[]; scores: RunScore[] }>();
  for (const run of runs) {
    let g = byGame.get(run.game);
    if (!g) byGame.set(run.game, (g = { runs: [], scores: [] }));
    g.runs.push(run);
    g.scores.push(scoreRun(run, baselines, preset));
  }
  const notes: string[] = [];
  const warnings: string[] = [];
  const games: GameScore[] = [];
  for (const [game, { runs: list, scores }] of byGame) {
    let counted = 0;
    if (p.run === 'best')
      scores.forEach((r, i) => {
        if (r.score > scores[counted].score) counted = i;
      });
    else
      counted = Math.max(
        0,
        list.findIndex((r) => r.levelActions.some((a) => a > 0)),
      );
    const id = matchGame(baselines, game);
    const gb = id === null ? null : baselines.games[id];
    const coveredLevels = gb ? coveredBaselines(gb, baselines.source, preset).length : 0;
    const known = Math.max(gb?.levels.length ?? 0, ...list.map((r) => r.winLevels ?? 0));
    const levelCount = known > 0 ? known : null;
    if (!gb) {
      const others = otherVersions(baselines, game);
      warnings.push(
        `${game}: the baselines have no game with this id${others.length ? ` (they have ${others.join(', ')}: another version of it, and baselines differ between versions, so they are not used)` : ''}; it scores 0 and counts in the total, as in the official scorer. Give baselines for ${game}.`,
      );
    } else if (coveredLevels === 0) {
      warnings.push(
        `${game}: no level has a ${baselines.source === 'metadata' ? '' : `${p.baseline} `}baseline; it scores 0 and counts in the total.`,
      );
    } else if (levelCount === null || coveredLevels < levelCount) {
      const of = levelCount === null ? " (the game's level count is unknown)" : ` of ${levelCount}`;
      const rest =
        levelCount === null
          ? 'levels past them are'
          : `level${levelCount - coveredLevels > 1 ? `s ${coveredLevels + 1}-${levelCount} are` : ` ${levelCount} is`}`;
      warnings.push(
        `${game}: baselines cover level${coveredLevels > 1 ? `s 1-${coveredLevels}` : ' 1'}${of} only; ${rest} left out of its score${p.sizeMismatchZero ? `, and a run that completed more than ${plural(coveredLevels, 'level')} scores 0 (official rule)` : ''}.`,
      );
    }
    scores.forEach((r) => {
      if (r.zeroBecause && gb && coveredLevels > 0) notes.push(`${r.label} scores 0: ${r.zeroBecause}.`);
    });
    games.push({
      game,
      hasBaselines: !!gb,
      participants: gb?.participants ?? null,
      levelCount,
      coveredLevels,
      runs: scores,
      counted,
      score: scores[counted].score,
    });
  }
  const total = games.reduce((s, g) => s + g.score, 0) / games.length;
  return {
    preset,
    version: p.version,
    description: p.description,
    baselinePreset: p.baseline,
    baselineVersion: BASELINE_PRESETS[p.baseline].version,
    baselineSource: baselines.source,
    games,
    total,
    complete: warnings.length === 0,
    warnings,
    notes,
  };
}

/**
 * The headline of a report: the total, and when the baselines do not cover every level, that
 * it is not a full score, with each gap.
 * @example rhaeHeadline(result) // ['Total RHAE 0.1071 over 1 game (preset toolkit-2026-04 v2).']
 */
export function rhaeHeadline(result: RhaeResult): string[] {
  const total = `Total RHAE ${result.total.toFixed(4)} over ${plural(result.games.length, 'game')} (preset ${result.preset} v${result.version})`;
  if (result.complete) return [`${total}.`];
  return [
    `${total}: NOT a score over every level, the baselines do not cover them all:`,
    ...result.warnings.map((w) => `- ${w}`),
  ];
}
