/**
 * Human baselines per game level, under named, versioned presets, and the baselines file
 * formats: this project's `arc-studio.baselines` JSON and the official game `metadata.json`
 * (its `baseline_actions` list). See docs/scoring.md.
 *
 * Who counts: first-time players only. For each participant and game, the first run of the game
 * in the session (from its first RESET to the next full reset or the next `game.open`) is taken;
 * later runs, replays after a win included, are ignored. A level is reached when the first run
 * entered it, completed when the run completed it; its action count is the scorecard's (see
 * `splitRuns`): from entering the level up to and including the completing action, level RESETs
 * and undos included.
 */
import { z } from 'zod';
import type { LogEvent } from '../log/events';
import type { GameAction, GameState } from '../game/types';
import { splitRuns, type AccountedStep } from './accounting';

/** The names of the baseline presets. */
export type BaselinePresetName = 'best' | 'second-best' | 'median' | 'upper-median';

/** A way of turning the completers' action counts of a level into one human baseline. */
export interface BaselinePreset {
  readonly name: BaselinePresetName;
  /** Bumped whenever the definition changes, so stored figures say which one made them. */
  readonly version: number;
  /** Fewer completers than this give no baseline. */
  readonly minCompleters: number;
  readonly description: string;
  /** The baseline from the completers' counts sorted ascending (at least `minCompleters`). */
  compute(sorted: readonly number[]): number;
}

/**
 * The presets, by name. With the counts sorted ascending, `c[0] <= c[1] <= ... <= c[n-1]`:
 * - `best`: `c[0]`, the fewest actions (1 completer or more).
 * - `second-best`: `c[1]`, the second-fewest, ties counted (`[5, 5, 9]` gives 5); the ARC-AGI-3
 *   paper's baseline (2 completers or more).
 * - `median`: `c[(n-1)/2]` for odd n, the mean of `c[n/2-1]` and `c[n/2]` for even n (may be
 *   a half).
 * - `upper-median`: `c[floor(n/2)]`: the middle value for odd n, the upper of the two middle
 *   values for even n; the official toolkit's baseline since April 2026.
 */
export const BASELINE_PRESETS: Readonly<Record<BaselinePresetName, BaselinePreset>> = Object.freeze({
  best: {
    name: 'best',
    version: 1,
    minCompleters: 1,
    description: 'fewest actions among first-time players who completed the level',
    compute: (c: readonly number[]) => c[0],
  },
  'second-best': {
    name: 'second-best',
    version: 1,
    minCompleters: 2,
    description: 'second-fewest actions among first-time players who completed the level (ARC-AGI-3 paper)',
    compute: (c: readonly number[]) => c[1],
  },
  median: {
    name: 'median',
    version: 1,
    minCompleters: 1,
    description:
      'median actions among first-time players who completed the level (mean of the two middle values for an even count)',
    compute: (c: readonly number[]) =>
      c.length % 2 ? c[(c.length - 1) / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2,
  },
  'upper-median': {
    name: 'upper-median',
    version: 1,
    minCompleters: 1,
    description:
      'upper median actions among first-time players who completed the level (the upper of the two middle values for an even count; official toolkit since April 2026)',
    compute: (c: readonly number[]) => c[Math.floor(c.length / 2)],
  },
});

/** The preset names in a fixed order (for tables and files). */
export const BASELINE_PRESET_NAMES: readonly BaselinePresetName[] = Object.freeze([
  'best',
  'second-best',
  'median',
  'upper-median',
] as const);

/** True when `name` is a baseline preset's name. */
export function isBaselinePreset(name: string): name is BaselinePresetName {
  return (BASELINE_PRESET_NAMES as readonly string[]).includes(name);
}

/** One baseline figure: its value, or null with the reason there is none. */
export interface BaselineFigure {
  readonly preset: BaselinePresetName;
  readonly version: number;
  readonly value: number | null;
  /** How many completers it was computed from. */
  readonly completers: number;
  readonly reason?: string;
}

/**
 * The baseline of one level under `preset` from the completers' action counts (any order).
 * @example baselineOf([9, 5], 'second-best') // { value: 9, completers: 2, ... }
 * @example baselineOf([7], 'second-best') // { value: null, reason: 'needs 2 completers, has 1', ... }
 */
export function baselineOf(counts: readonly number[], preset: BaselinePresetName): BaselineFigure {
  const p = BASELINE_PRESETS[preset];
  const sorted = [...counts].sort((a, b) => a - b);
  const base = { preset, version: p.version, completers: sorted.length };
  if (sorted.length < p.minCompleters) {
    return {
      ...base,
      value: null,
      reason: `needs ${p.minCompleters} completer${p.minCompleters > 1 ? 's' : ''}, has ${sorted.length}`,
    };
  }
  return { ...base, value: p.compute(sorted) };
}

/** How a first-time player did on one level (levels in order, the first is level 1). */
export interface LevelResult {
  readonly completed: boolean;
  /** Scorecard actions spent on the level (up to and including the completing one). */
  readonly actions: number;
}

/** A participant's first run of a game: one entry per level the run entered. */
export interface PlayerLevels {
  readonly participant: string;
  readonly game: string;
  readonly levels: readonly LevelResult[];
}

/** Options of `firstRunLevels`. */
export interface FirstRunOptions {
  /** Only the events of this study item (between its `item.start` and the next one). */
  readonly item?: string;
}

/**
 * The logged actions of a session's first run of `game` (each with its time `t`), up to the
 * second `game.open` of the game; `splitRuns` then ends the run at its first full reset. The one
 * reading of game logs that baselines and study results share.
 */
export function firstRunSteps(
  events: readonly LogEvent[],
  game: string,
  options: FirstRunOptions = {},
): (AccountedStep & { t: number })[] {
  const steps: (AccountedStep & { t: number })[] = [];
  let item: string | null = null;
  let opened = false;
  for (const e of events) {
    if (e.kind === 'item.start' && typeof e.data.item === 'string') item = e.data.item;
    if (options.item !== undefined && item !== options.item) continue;
    if ((e.kind !== 'game.open' && e.kind !== 'game.action') || e.data.game !== game) continue;
    if (e.kind === 'game.open') {
      if (opened && steps.length) break;
      opened = true;
      continue;
    }
    const d = e.data as { action?: unknown; level?: unknown; state?: unknown };
    if (typeof d.action !== 'string' || typeof d.level !== 'number' || typeof d.state !== 'string') continue;
    steps.push({ action: d.action as GameAction, levelsCompleted: d.level, state: d.state as GameState, t: e.t });
  }
  return steps;
}

/**
 * The per-level results of the first run of `game` in a session's events, from the logged
 * `game.action` fields (no engine needed; the server verifies logs by replay before trusting
 * them, see `verifyGameLog`). Null when the game was never played.
 *
 * The first run ends at the first full reset (a double RESET, a RESET after WIN) or at a second
 * `game.open` of the game (a reopened game starts over).
 */
export function firstRunLevels(
  events: readonly LogEvent[],
  game: string,
  options: FirstRunOptions = {},
): LevelResult[] | null {
  const steps = firstRunSteps(events, game, options);
  const [run] = splitRuns(steps);
  if (!run) return null;
  return run.levelActions.map((actions, k) => ({ completed: k < run.levelsCompleted, actions }));
}

/** The baselines of one level: who reached it, who completed it, and each preset's figure. */
export interface LevelBaselines {
  /** 1-based. */
  readonly level: number;
  /** First-time players whose first run entered the level (null when the source does not say). */
  readonly reached: number | null;
  /** Of those, how many completed it (null when the source does not say). */
  readonly completers: number | null;
  /** The completers' action counts, ascending, when known. */
  readonly actions?: readonly number[];
  /** Each preset's baseline; null when too few completers. */
  readonly baseline: Partial<Record<BaselinePresetName, number | null>>;
  /** The official `metadata.json` value, for a level read from one. */
  readonly official?: number | null;
}

/** The baselines of one game. */
export interface GameBaselines {
  /** First-time players of the game (null when the source does not say). */
  readonly participants: number | null;
  /** The game version the figures come from (`push-<hash>`), when the source says. */
  readonly version?: string;
  readonly levels: readonly LevelBaselines[];
}

/** Baselines of several games, from this project's file or official metadata. */
export interface Baselines {
  /** `arc-studio`: computed from participants, every preset; `metadata`: official `baseline_actions`. */
  readonly source: 'arc-studio' | 'metadata';
  readonly games: Readonly<Record<string, GameBaselines>>;
}

/**
 * Per game and level, who reached and completed it and the baseline under every preset.
 * `winLevels` (levels per game) adds levels nobody reached; otherwise a game has as many levels
 * as its furthest player entered. A participant listed twice for a game counts once, by their
 * first entry (only the first play is first-time).
 */
export function computeBaselines(
  players: readonly PlayerLevels[],
  winLevels: Readonly<Record<string, number>> = {},
): Baselines {
  const byGame = new Map<string, Map<string, readonly LevelResult[]>>();
  for (const p of players) {
    let m = byGame.get(p.game);
    if (!m) byGame.set(p.game, (m = new Map()));
    if (!m.has(p.participant)) m.set(p.participant, p.levels);
  }
  for (const g of Object.keys(winLevels)) if (!byGame.has(g)) byGame.set(g, new Map());
  const games: Record<string, GameBaselines> = {};
  for (const [game, byPlayer] of [...byGame].sort(([a], [b]) => a.localeCompare(b))) {
    const results = [...byPlayer.values()];
    const n = Math.max(winLevels[game] ?? 0, ...results.map((r) => r.length));
    const levels: LevelBaselines[] = [];
    for (let k = 0; k < n; k++) {
      const reached = results.filter((r) => r.length > k);
      const actions = reached
        .filter((r) => r[k].completed)
        .map((r) => r[k].actions)
        .sort((a, b) => a - b);
      const baseline: Partial<Record<BaselinePresetName, number | null>> = {};
      for (const name of BASELINE_PRESET_NAMES) baseline[name] = baselineOf(actions, name).value;
      levels.push({ level: k + 1, reached: reached.length, completers: actions.length, actions, baseline });
    }
    games[game] = { participants: results.length, levels };
  }
  return { source: 'arc-studio', games };
}

/** The baseline the scoring uses for a level, with where it came from. */
export interface LevelBaselineUse {
  readonly value: number | null;
  /** The preset it was computed with, or `metadata` for an official file's value. */
  readonly preset: BaselinePresetName | 'metadata';
  readonly version: number | null;
  readonly completers: number | null;
  readonly reached: number | null;
  /** Why there is no value, when there is none. */
  readonly reason?: string;
}

/**
 * The baseline of `level` (1-based) of a game under `preset`. Official metadata has a single
 * figure per level, whatever the preset, and says so through `preset: 'metadata'`.
 */
export function levelBaseline(
  game: GameBaselines,
  source: Baselines['source'],
  level: number,
  preset: BaselinePresetName,
): LevelBaselineUse {
  const l = game.levels[level - 1];
  if (source === 'metadata') {
    const value = l?.official ?? null;
    return {
      value,
      preset: 'metadata',
      version: null,
      completers: null,
      reached: null,
      ...(value === null ? { reason: 'no baseline_actions entry for this level' } : {}),
    };
  }
  const p = BASELINE_PRESETS[preset];
  if (!l)
    return {
      value: null,
      preset,
      version: p.version,
      completers: null,
      reached: null,
      reason: 'the baselines have no such level',
    };
  let value = l.baseline[preset];
  if (value === undefined) value = l.actions ? baselineOf(l.actions, preset).value : null;
  const base = { value, preset, version: p.version, completers: l.completers, reached: l.reached };
  if (value !== null) return base;
  return {
    ...base,
    reason:
      l.completers !== null && l.completers < p.minCompleters
        ? `needs ${p.minCompleters} completer${p.minCompleters > 1 ? 's' : ''}, has ${l.completers}`
        : `no ${preset} figure in the baselines`,
  };
}

/**
 * The id under which `baselines` hold the game a recording names: exactly the same id, as the
 * official scorer matches them (`ls20` and `ls20-9607627b` are different games to it: baselines
 * differ between versions of a game). Null when there is none; see `otherVersions`.
 */
export function matchGame(baselines: Baselines, gameId: string): string | null {
  return Object.prototype.hasOwnProperty.call(baselines.games, gameId) ? gameId : null;
}

/**
 * The games in `baselines` that share `gameId`'s name before its version suffix but are not it
 * (`ls20` or `ls20-1234abcd` for `ls20-9607627b`): said in messages, never used for scoring.
 */
export function otherVersions(baselines: Baselines, gameId: string): string[] {
  const stem = (id: string) => id.split('-')[0];
  return Object.keys(baselines.games).filter((g) => g !== gameId && stem(g) === stem(gameId));
}

// ---- files ---------------------------------------------------------------------------------

/** The format name of this project's baselines JSON. */
export const BASELINES_FORMAT = 'arc-studio.baselines';
/** Its current version. */
export const BASELINES_VERSION = 1;

const Count = z.number().int().nonnegative();
const Baseline = z.number().positive().nullable();

/** One level in a baselines file. */
export const LevelBaselinesSchema = z
  .object({
    level: z.number().int().positive(),
    reached: Count,
    completers: Count,
    actions: z.array(z.number().int().positive()).optional(),
    baseline: z
      .object({ best: Baseline, 'second-best': Baseline, median: Baseline, 'upper-median': Baseline })
      .partial(),
  })
  .refine((l) => l.completers <= l.reached, { message: 'completers cannot exceed reached' })
  .refine((l) => !l.actions || l.actions.length === l.completers, {
    message: 'actions must list one count per completer',
  });

/** The baselines JSON (version 1), validated. See docs/scoring.md. */
export const BaselinesFileSchema = z.object({
  format: z.literal(BASELINES_FORMAT),
  version: z.literal(BASELINES_VERSION),
  /** Preset names with the version each figure was computed with. */
  presets: z.record(z.string(), z.number().int().positive()),
  games: z.record(
    z.string().min(1),
    z.object({
      version: z
        .string()
        .min(1)
        .optional()
        .describe(
          "The game version the figures come from (a built-in game's id-hash, e.g. push-f39e6e1680aa; a server-run game's code its runs were opened on, e.g. ls20-9607627b@3f2a9c01d4e5); the game key is the short id for the version the server ran when exporting.",
        ),
      participants: Count,
      levels: z.array(LevelBaselinesSchema).refine((ls) => ls.every((l, i) => l.level === i + 1), {
        message: 'levels must be numbered 1, 2, 3, ... in order',
      }),
    }),
  ),
});

export type BaselinesFile = z.infer<typeof BaselinesFileSchema>;

/** The official per-game `metadata.json`: only what scoring needs; other fields are ignored. */
export const OfficialMetadataSchema = z.object({
  game_id: z.string().min(1).optional(),
  baseline_actions: z.array(z.number().positive().nullable()),
});

/** A baselines file that cannot be used; the message says what is wrong and what to do. */
export class BaselinesError extends Error {
  override readonly name = 'BaselinesError';
}

/** `baselines` as this project's baselines JSON (pretty-printed, one level per line). */
export function baselinesToJson(baselines: Baselines): string {
  if (baselines.source !== 'arc-studio')
    throw new BaselinesError(
      'only baselines computed from participants can be written as arc-studio.baselines; official metadata stays in its own file.',
    );
  const presets = Object.fromEntries(BASELINE_PRESET_NAMES.map((n) => [n, BASELINE_PRESETS[n].version]));
  const file: BaselinesFile = {
    format: BASELINES_FORMAT,
    version: BASELINES_VERSION,
    presets,
    games: Object.fromEntries(
      Object.entries(baselines.games).map(([id, g]) => [
        id,
        {
          ...(g.version ? { version: g.version } : {}),
          participants: g.participants ?? 0,
          levels: g.levels.map((l) => ({
            level: l.level,
            reached: l.reached ?? 0,
            completers: l.completers ?? 0,
            ...(l.actions ? { actions: [...l.actions] } : {}),
            baseline: { ...l.baseline },
          })),
        },
      ]),
    ),
  };
  const games = Object.entries(file.games).map(([id, g]) => {
    const levels = g.levels.map((l) => `        ${JSON.stringify(l)}`).join(',\n');
    const version = g.version ? `"version": ${JSON.stringify(g.version)}, ` : '';
    return `    ${JSON.stringify(id)}: {${version}"participants": ${g.participants}, "levels": [\n${levels}\n    ]}`;
  });
  return `{\n  "format": "${BASELINES_FORMAT}", "version": ${BASELINES_VERSION},\n  "presets": ${JSON.stringify(presets)},\n  "games": {\n${games.join(',\n')}\n  }\n}\n`;
}

function issues(e: z.ZodError): string {
  return e.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`)
    .join('; ');
}

/** Options of `parseBaselines`. */
export interface ParseBaselinesOptions {
  /** The game a `metadata.json` without `game_id` is for. */
  readonly defaultGameId?: string;
}

/**
 * Reads a baselines file: this project's JSON (`"format": "arc-studio.baselines"`), an official
 * `metadata.json` (`baseline_actions`, plus `game_id` when present), or a list of those.
 * @throws BaselinesError naming what is wrong.
 */
export function parseBaselines(text: string, options: ParseBaselinesOptions = {}): Baselines {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new BaselinesError(
      `the baselines file is not JSON (${(e as Error).message}); give an arc-studio baselines JSON or an official metadata.json.`,
    );
  }
  const obj = json as Record<string, unknown> | null;
  if (obj && typeof obj === 'object' && !Array.isArray(obj) && 'format' in obj) {
    const parsed = BaselinesFileSchema.safeParse(json);
    if (!parsed.success)
      throw new BaselinesError(
        `the baselines file is not valid ${BASELINES_FORMAT} version ${BASELINES_VERSION}: ${issues(parsed.error)}.`,
      );
    const games: Record<string, GameBaselines> = {};
    for (const [id, g] of Object.entries(parsed.data.games))
      games[id] = { participants: g.participants, levels: g.levels, ...(g.version ? { version: g.version } : {}) };
    return { source: 'arc-studio', games };
  }
  const list = Array.isArray(json) ? json : [json];
  if (list.length && list.every((m) => m && typeof m === 'object' && 'baseline_actions' in m)) {
    const games: Record<string, GameBaselines> = {};
    list.forEach((m, i) => {
      const parsed = OfficialMetadataSchema.safeParse(m);
      const where = Array.isArray(json) ? `entry ${i + 1} of the metadata list` : 'the metadata.json';
      if (!parsed.success)
        throw new BaselinesError(
          `${where} is not usable: ${issues(parsed.error)}; baseline_actions must be a list of positive action counts, one per level.`,
        );
      const id = parsed.data.game_id ?? options.defaultGameId;
      if (!id)
        throw new BaselinesError(
          `${where} has no game_id: add "game_id" to it, or score recordings of a single game so the game is known.`,
        );
      games[id] = {
        participants: null,
        levels: parsed.data.baseline_actions.map((v, k) => ({
          level: k + 1,
          reached: null,
          completers: null,
          baseline: {},
          official: v,
        })),
      };
    });
    return { source: 'metadata', games };
  }
  throw new BaselinesError(
    `the baselines file is neither ${BASELINES_FORMAT} JSON (a "format" field) nor an official metadata.json (a "baseline_actions" list).`,
  );
}
