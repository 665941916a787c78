/**
 * RHAE (relative human action efficiency): how an agent's action counts per level compare with
 * the human baselines, under named, versioned presets. See docs/scoring.md for the formulas and
 * worked examples.
 *
 * With `h` the human baseline of a level, `a` the agent's actions on it and `w = k` the weight of
 * level `k` (1-based):
 * - `paper` (v1): level score `min(1, h/a)^2`, 0 for a level not completed; game score the
 *   weighted mean over the game's levels; the agent's first run of each game; total the mean
 *   over games. Baseline: `second-best`.
 * - `toolkit-2026-04` (v1): level score `min(1.15, (h/a)^2)`, 0 for a level not completed; game
 *   score `min(weighted mean, completed weight / total weight)`, so only a game whose every level
 *   was completed can reach 1 and the 1.15 bonus never lifts a game above 1; the best run of each
 *   game; total the mean over games. Baseline: `upper-median`.
 *
 * A level with no baseline (too few human completers) is left out of its game: out of the
 * weighted mean and out of both weight sums. It is listed with its reason.
 */
import {
  BASELINE_PRESETS, levelBaseline, matchGame, type BaselinePresetName, type Baselines, type LevelBaselineUse,
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
  /** Whether the game score is capped by the weight share of completed levels. */
  readonly capByCompleted: boolean;
  /** Which run of a game counts when several are given. */
  readonly run: 'first' | 'best';
}

/** The scoring presets, by name. */
export const SCORING_PRESETS: Readonly<Record<ScoringPresetName, ScoringPreset>> = Object.freeze({
  'paper': {
    name: 'paper', version: 1, baseline: 'second-best', capByCompleted: false, run: 'first',
    description: 'ARC-AGI-3 paper: second-best human; level score min(1, h/a)^2; levels weighted by index; game score the weighted mean; first run per game; total the mean over games',
    levelScore: (h: number, a: number) => Math.min(1, h / Math.max(a, 1)) ** 2,
  },
  'toolkit-2026-04': {
    name: 'toolkit-2026-04', version: 1, baseline: 'upper-median', capByCompleted: true, run: 'best',
    description: 'official toolkit since April 2026: upper-median human; level score min(1.15, (h/a)^2); levels weighted by index; game score the weighted mean capped by the weight share of completed levels; best run per game; total the mean over games',
    levelScore: (h: number, a: number) => Math.min(1.15, (h / Math.max(a, 1)) ** 2),
  },
});

/** True when `name` is a scoring preset's name. */
export function isScoringPreset(name: string): name is ScoringPresetName {
  return Object.prototype.hasOwnProperty.call(SCORING_PRESETS, name);
}

/** One run of an agent on a game, as the scorecard counts it. */
export interface AgentRun {
  /** The game id as the recording names it (matched to the baselines by `matchGame`). */
  readonly game: string;
  /** Where the run comes from, e.g. `ls20.recording.jsonl#1`. */
  readonly label: string;
  /** Actions per level entered (index 0 is level 1), see `splitRuns`. */
  readonly levelActions: readonly number[];
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
  /** Null when the level has no baseline (then it is left out of the game). */
  readonly score: number | null;
}

/** One scored run. */
export interface RunScore {
  readonly label: string;
  readonly levels: readonly LevelScore[];
  /** Sum of weight x score over the levels with a baseline, divided by the sum of their weights. */
  readonly weightedMean: number;
  /** Sum of the weights of completed levels with a baseline, divided by the sum of all their weights. */
  readonly completedShare: number;
  /** The run's game score under the preset (null when no level has a baseline). */
  readonly score: number | null;
}

/** One scored game. */
export interface GameScore {
  /** The game id in the baselines. */
  readonly game: string;
  /** First-time players behind the game's baselines (null for official metadata). */
  readonly participants: number | null;
  readonly runs: readonly RunScore[];
  /** Index in `runs` of the run that counts. */
  readonly counted: number;
  /** The counted run's score. */
  readonly score: number | null;
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
  /** Mean of the game scores (games with no usable baseline left out); null when none. */
  readonly total: number | null;
  /** Levels and games left out, and why. */
  readonly notes: readonly string[];
}

/** A run that cannot be scored against the baselines given. */
export class ScoringError extends Error {
  override readonly name = 'ScoringError';
}

/**
 * Scores one run of a game against its baselines under `preset`.
 * @example
 * // Baselines 4, 10, 6 (second-best); the agent took 8 and 10 actions and did not finish level 3:
 * // level scores 0.25, 1, 0; game score (1*0.25 + 2*1 + 3*0) / 6 = 0.375.
 */
export function scoreRun(run: AgentRun, baselines: Baselines, preset: ScoringPresetName): RunScore {
  const p = SCORING_PRESETS[preset];
  const id = matchGame(baselines, run.game);
  if (id === null) {
    throw new ScoringError(`${run.label}: the baselines have no game "${run.game}" (they have: ${Object.keys(baselines.games).join(', ') || 'none'}); give baselines that cover it.`);
  }
  const game = baselines.games[id];
  const n = Math.max(game.levels.length, run.winLevels ?? 0);
  const levels: LevelScore[] = [];
  let weights = 0, weighted = 0, completedWeights = 0;
  for (let k = 1; k <= n; k++) {
    const human = levelBaseline(game, baselines.source, k, p.baseline);
    const completed = k <= run.levelsCompleted;
    const agentActions = k <= run.levelActions.length ? run.levelActions[k - 1] : null;
    let score: number | null = null;
    if (human.value !== null) {
      score = completed && agentActions !== null ? p.levelScore(human.value, agentActions) : 0;
      weights += k;
      weighted += k * score;
      if (completed) completedWeights += k;
    }
    levels.push({ level: k, weight: k, human, completed, agentActions, score });
  }
  const weightedMean = weights ? weighted / weights : 0;
  const completedShare = weights ? completedWeights / weights : 0;
  const score = weights === 0 ? null : p.capByCompleted ? Math.min(weightedMean, completedShare) : weightedMean;
  return { label: run.label, levels, weightedMean, completedShare, score };
}

/**
 * Scores agent runs against human baselines: per level, per run, per game (the preset's run:
 * the first given, or the best) and the total, the mean over the games played.
 * @throws ScoringError when a run's game is not in the baselines, or no run is given.
 */
export function scoreRuns(runs: readonly AgentRun[], baselines: Baselines, preset: ScoringPresetName): RhaeResult {
  const p = SCORING_PRESETS[preset];
  if (!p) throw new ScoringError(`unknown preset "${String(preset)}"; presets: ${Object.keys(SCORING_PRESETS).join(', ')}.`);
  if (runs.length === 0) throw new ScoringError('no run to score: give at least one recording with an action in it.');
  const byGame = new Map<string, RunScore[]>();
  for (const run of runs) {
    const scored = scoreRun(run, baselines, preset);
    const id = matchGame(baselines, run.game)!;
    let list = byGame.get(id);
    if (!list) byGame.set(id, (list = []));
    list.push(scored);
  }
  const notes: string[] = [];
  const games: GameScore[] = [];
  for (const [game, list] of byGame) {
    let counted = 0;
    if (p.run === 'best') list.forEach((r, i) => { if ((r.score ?? -1) > (list[counted].score ?? -1)) counted = i; });
    const missing = new Map<string, number[]>();
    for (const l of list[counted].levels) {
      if (l.human.value !== null) continue;
      const why = `no ${l.human.preset} baseline (${l.human.reason})`;
      missing.set(why, [...(missing.get(why) ?? []), l.level]);
    }
    for (const [why, ls] of missing) notes.push(`${game} level${ls.length > 1 ? 's' : ''} ${ls.join(', ')}: left out, ${why}.`);
    const score = list[counted].score;
    if (score === null) notes.push(`${game}: left out of the total, no level has a baseline.`);
    games.push({ game, participants: baselines.games[game].participants, runs: list, counted, score });
  }
  const scored = games.filter((g) => g.score !== null);
  const total = scored.length ? scored.reduce((s, g) => s + g.score!, 0) / scored.length : null;
  return {
    preset, version: p.version, description: p.description, baselinePreset: p.baseline,
    baselineVersion: BASELINE_PRESETS[p.baseline].version, baselineSource: baselines.source, games, total, notes,
  };
}
