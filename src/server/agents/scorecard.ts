/**
 * An agent's scorecard in the official shape (`arc_agi.scorecard.EnvironmentScorecard`), with
 * every figure computed by ARC Studio's scorer: the plays split by core/scoring/scorecard.ts,
 * each scored by `scoreRun` (core/scoring/rhae.ts) against the game's human baselines. Scores
 * are on the official 0-115 scale (ARC Studio's 0-1.15 times 100).
 */
import type { GameAction, GameState } from '../../core/game/types';
import { SCORING_PRESETS, scoreRun, type Baselines, type ScoringPresetName } from '../../core/scoring';
import { playLevelActions, scorecardPlays, type Play, type ScorecardStep } from '../../core/scoring/scorecard';

/** One stored step of a game session, as the scorecard needs it. */
export interface CardStep {
  readonly guid: string;
  readonly gameId: string;
  readonly action: GameAction;
  readonly state: GameState;
  readonly levelsCompleted: number;
  readonly fullReset: boolean;
  /** When the step was answered (ms since the epoch). */
  readonly at?: number;
}

/** What the scorecard knows of a game: its tags and its human baselines (null: none). */
export interface CardGame {
  readonly tags: readonly string[];
  readonly baselines: Baselines | null;
  /** Where the baselines come from: `study:<id>`, `reference:<group>`, `file` (`serve --agent-baselines`) or `metadata`; null: none. */
  readonly baselinesFrom?: string | null;
  /** Why a source's baselines were refused (they are of other versions of the game); said in each run's message. */
  readonly refused?: string;
}

export interface CardHead {
  readonly cardId: string;
  readonly tags: readonly string[];
  readonly sourceUrl: string | null;
  readonly opaque: unknown;
}

interface RunJson {
  id: string;
  guid: string | null;
  score: number;
  levels_completed: number;
  actions: number;
  resets: number;
  state: string;
  completed: boolean;
  level_scores: number[];
  level_actions: number[];
  level_baseline_actions: number[];
  message?: string;
}

interface TagLevel {
  index: number;
  score: number;
  completed: boolean;
  actions: number;
}

/** The official calculator's game score: the weighted mean, capped by the weight share of levels scoring above 0. */
function tagScore(levels: readonly TagLevel[]): number {
  let total = 0,
    weights = 0,
    scoring = 0;
  for (const l of levels) {
    total += l.score * l.index;
    weights += l.index;
    if (l.score > 0) scoring += l.index;
  }
  return weights ? Math.min(total / weights, (scoring / weights) * 100) : 0;
}

function playsOf(steps: readonly CardStep[]): Play[] {
  const input: ScorecardStep[] = steps.map((s) => ({
    gameId: s.gameId,
    guid: s.guid,
    action: s.action,
    state: s.state,
    levelsCompleted: s.levelsCompleted,
    fullReset: s.fullReset,
    emptyFrame: false,
  }));
  return scorecardPlays(input).plays;
}

function runJson(
  play: Play,
  index: number,
  game: CardGame | undefined,
  preset: ScoringPresetName,
): { run: RunJson; levels: TagLevel[] } {
  const levelActions = playLevelActions(play);
  const completedLevels = play.levelChanges.length;
  const base = {
    id: play.gameId,
    guid: play.guid,
    levels_completed: play.levelsCompleted,
    actions: play.actions,
    resets: play.resets,
    state: play.state,
    completed: play.state === 'WIN',
  };
  const baselines = game?.baselines ?? null;
  const listed = baselines ? (baselines.games[play.gameId]?.levels.length ?? 0) : 0;
  const raw = (message: string) => ({
    run: {
      ...base,
      score: 0,
      level_scores: levelActions.map(() => 0),
      level_actions: levelActions,
      level_baseline_actions: levelActions.map(() => -1),
      message,
    },
    levels: [],
  });
  if (!baselines || listed === 0)
    return raw(
      game?.baselinesFrom?.startsWith('reference:')
        ? `Human baseline actions are not available for this environment: the reference group "${game.baselinesFrom.slice('reference:'.length)}" has no recordings of ${play.gameId}; import some in the studio (the game's Baselines page) or drop the "${game.baselinesFrom}" tag`
        : `Human baseline actions are not available for this environment${game?.refused ? `: ${game.refused}` : ''}`,
    );
  if (listed < completedLevels) return raw('Human baseline actions size mismatch');
  const scored = scoreRun(
    { game: play.gameId, label: `${play.guid ?? ''}#${index + 1}`, levelActions, levelsCompleted: completedLevels },
    baselines,
    preset,
  );
  // A study with no human who completed a level of the game yet: every baseline is unknown.
  // Said in the run's message (and the agents panel) rather than left as silent -1s.
  if (scored.levels.slice(0, listed).every((l) => l.human.value === null)) {
    const from = game?.baselinesFrom?.startsWith('study:')
      ? `study "${game.baselinesFrom.slice('study:'.length)}"`
      : (game?.baselinesFrom ?? 'the baselines');
    return raw(
      `Human baseline actions are not available for this environment: ${from} has no human baseline for any of its levels yet (no first-time player completed one), so every level scores 0`,
    );
  }
  const levels: TagLevel[] = [];
  const run: RunJson = {
    ...base,
    score: scored.score * 100,
    level_scores: [],
    level_actions: [],
    level_baseline_actions: [],
  };
  for (const l of scored.levels.slice(0, listed)) {
    const actions = l.agentActions ?? 0;
    const score = (l.score ?? 0) * 100;
    run.level_scores.push(score);
    run.level_actions.push(actions);
    run.level_baseline_actions.push(l.human.value ?? -1);
    levels.push({ index: l.level, score, completed: l.completed, actions });
  }
  return { run, levels };
}

/**
 * The scorecard of the given steps, as `GET /api/scorecard/<card_id>` and `POST /api/scorecard/close`
 * answer it. `games` holds each played game's tags and baselines.
 * @example officialScorecard(head, steps, { 'push-0123456789ab': { tags: [], baselines } }).environments[0].runs[0].score
 */
export function officialScorecard(
  head: CardHead,
  steps: readonly CardStep[],
  games: Readonly<Record<string, CardGame>>,
  preset: ScoringPresetName = 'toolkit-2026-04',
) {
  if (!SCORING_PRESETS[preset]) throw new Error(`unknown preset ${preset}`);
  const byGame = new Map<string, { runs: RunJson[]; levels: TagLevel[][]; best: number; bestLevels: number }>();
  playsOf(steps).forEach((play, i) => {
    let g = byGame.get(play.gameId);
    if (!g) byGame.set(play.gameId, (g = { runs: [], levels: [], best: -1, bestLevels: -1 }));
    const { run, levels } = runJson(play, i, games[play.gameId], preset);
    // The official scorecard's best play: the first with the most levels completed (it feeds the tags).
    if (play.levelsCompleted > g.bestLevels) {
      g.best = g.runs.length;
      g.bestLevels = play.levelsCompleted;
    }
    g.runs.push(run);
    g.levels.push(levels);
  });
  const tags = new Map<string, { levels: TagLevel[]; games: Set<string> }>();
  const environments = [...byGame].map(([id, g]) => {
    for (const tag of games[id]?.tags ?? []) {
      const levels = g.levels[g.best] ?? [];
      if (!levels.length) continue;
      let t = tags.get(tag);
      if (!t) tags.set(tag, (t = { levels: [], games: new Set() }));
      t.levels.push(...levels);
      t.games.add(id);
    }
    return {
      id,
      runs: g.runs,
      baselines: games[id]?.baselinesFrom ?? null,
      score: Math.max(...g.runs.map((r) => r.score)),
      actions: g.runs.reduce((s, r) => s + r.actions, 0),
      levels_completed: Math.max(...g.runs.map((r) => r.levels_completed)),
      completed: g.runs.some((r) => r.completed),
      level_count: Math.max(...g.runs.map((r) => r.level_scores.length)),
      resets: g.runs.reduce((s, r) => s + r.resets, 0),
    };
  });
  const tagsScores = [...tags].map(([tag, t]) => ({
    id: tag,
    score: tagScore(t.levels),
    levels_completed: t.levels.filter((l) => l.completed).length,
    actions: t.levels.reduce((s, l) => s + l.actions, 0),
    number_of_levels: t.levels.length,
    number_of_environments: t.games.size,
  }));
  return {
    ...(head.sourceUrl !== null ? { source_url: head.sourceUrl } : {}),
    tags: [...head.tags],
    ...(head.opaque !== null && head.opaque !== undefined ? { opaque: head.opaque } : {}),
    card_id: head.cardId,
    score: environments.length ? environments.reduce((s, e) => s + e.score, 0) / environments.length : 0,
    environments,
    tags_scores: tagsScores,
    competition_mode: false,
    total_environments_completed: environments.filter((e) => e.completed).length,
    total_environments: environments.length,
    total_levels_completed: environments.reduce((s, e) => s + e.levels_completed, 0),
    total_levels: environments.reduce((s, e) => s + e.level_count, 0),
    total_actions: environments.reduce((s, e) => s + e.actions, 0),
    preset,
  };
}

/**
 * One game's raw card, as the official `GET /api/scorecard/<card_id>/<game_id>` answers it
 * (`Scorecard.get_json_for`): the whole scorecard's totals and the game's per-play lists.
 */
export function rawGameCard(steps: readonly CardStep[], gameId: string) {
  const plays = playsOf(steps);
  const byGame = new Map<string, Play[]>();
  for (const p of plays) byGame.set(p.gameId, [...(byGame.get(p.gameId) ?? []), p]);
  const own = byGame.get(gameId) ?? [];
  const card = own.length
    ? {
        [gameId]: {
          game_id: gameId,
          total_plays: own.length,
          guids: own.map((p) => p.guid),
          levels_completed: own.map((p) => p.levelsCompleted),
          states: own.map((p) => p.state),
          actions: own.map((p) => p.actions),
          actions_by_level: own.map((p) => p.levelChanges.map((c) => [c.levelsCompleted, c.actions])),
          resets: own.map((p) => p.resets),
          total_actions: own.reduce((s, p) => s + p.actions, 0),
        },
      }
    : {};
  return {
    won: [...byGame.values()].filter((ps) => ps.some((p) => p.state === 'WIN')).length,
    played: byGame.size,
    total_actions: plays.reduce((s, p) => s + p.actions, 0),
    levels_completed: [...byGame.values()].reduce((s, ps) => s + Math.max(...ps.map((p) => p.levelsCompleted)), 0),
    cards: card,
  };
}
