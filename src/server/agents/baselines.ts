/**
 * Which human baselines an agent's scorecard is scored against, and under which preset.
 *
 * A scorecard names its study and preset in its tags, which the official toolkit sends unchanged
 * (`arcade.open_scorecard(tags=["study:<id>", "preset:paper"])`):
 * - `study:<id>`: its games are scored against that study's human baselines (the figures of the
 *   study's results), and its runs are shown in the study's results as agent runs;
 * - `preset:<name>`: `toolkit-2026-04` or `paper` (core/scoring/rhae.ts); the server's default
 *   (`serve --agent-preset`) otherwise;
 * - `reference:<group>`: its games are scored against that reference group's recordings (human
 *   runs recorded elsewhere and imported, server/reference), and nothing else: a game the group
 *   has no recordings of has no baselines, and the run's message says so.
 * Without a `reference:` tag, per game, the first source that has the game is used: the study's
 * baselines, then the baselines file given to the server (`serve --agent-baselines FILE`), then
 * the `baseline_actions` of an arcengine game's metadata. A game none of them has scores 0, as
 * the official scorer does.
 * A source's figures are used only for the version the agent played (an arcengine game's code, as
 * its runs recorded it): a source with baselines of the game's other versions only is refused, and
 * the run's message says which versions it has (`versionBaselines`).
 */
import type { StudyResults } from '../../core/analysis/results';
import {
  BASELINE_PRESET_NAMES,
  isScoringPreset,
  type BaselinePresetName,
  type Baselines,
  type GameBaselines,
  type ScoringPresetName,
} from '../../core/scoring';

export const STUDY_TAG = 'study:';
export const PRESET_TAG = 'preset:';
export const REFERENCE_TAG = 'reference:';

/** What a scorecard's tags ask for. */
export interface CardOptions {
  readonly study: string | null;
  readonly preset: ScoringPresetName | null;
  /** The reference group whose recordings are the baselines, when the tags name one. */
  readonly reference: string | null;
}

/** The study and preset a scorecard's tags name, or the message saying what is wrong with them. */
export function cardOptions(tags: readonly string[]): CardOptions | { problem: string } {
  const studies = [...new Set(tags.filter((t) => t.startsWith(STUDY_TAG)).map((t) => t.slice(STUDY_TAG.length)))];
  const presets = [...new Set(tags.filter((t) => t.startsWith(PRESET_TAG)).map((t) => t.slice(PRESET_TAG.length)))];
  const references = [
    ...new Set(tags.filter((t) => t.startsWith(REFERENCE_TAG)).map((t) => t.slice(REFERENCE_TAG.length))),
  ];
  if (studies.length > 1)
    return {
      problem: `a scorecard belongs to one study, and the tags name ${studies.map((s) => `"${s}"`).join(' and ')}; keep one "study:<id>" tag`,
    };
  if (studies[0] === '')
    return { problem: 'the tag "study:" names no study; write "study:<id>" with the id the studio shows' };
  if (presets.length > 1)
    return { problem: `the tags name the presets ${presets.join(' and ')}; keep one "preset:" tag` };
  if (presets.length && !isScoringPreset(presets[0]))
    return {
      problem: `unknown preset "${presets[0]}" in tag "preset:${presets[0]}"; use preset:toolkit-2026-04 or preset:paper`,
    };
  if (references.length > 1)
    return {
      problem: `the tags name the reference groups ${references.map((r) => `"${r}"`).join(' and ')}; keep one "reference:<group>" tag`,
    };
  if (references[0] === '')
    return { problem: 'the tag "reference:" names no group; write "reference:<group>" with the name the studio shows' };
  return {
    study: studies[0] ?? null,
    preset: (presets[0] as ScoringPresetName | undefined) ?? null,
    reference: references[0] ?? null,
  };
}

/**
 * A study's human baselines as its results show them: per game version (`push-<hash>`,
 * `ls20-9607627b`), every level's figure under every baseline preset. When two items play the
 * same version, the one with more first-time players counts.
 */
export function studyBaselines(results: StudyResults): Baselines {
  const games: Record<string, GameBaselines> = {};
  const players: Record<string, number> = {};
  for (const g of results.games) {
    if (g.version === null || (players[g.version] ?? -1) >= g.participants) continue;
    players[g.version] = g.participants;
    games[g.version] = {
      participants: g.participants,
      version: g.version,
      levels: g.levels.map((l) => ({
        level: l.level,
        reached: l.reached,
        completers: l.completed,
        baseline: Object.fromEntries(BASELINE_PRESET_NAMES.map((n) => [n, l.baselines[n].value])) as Record<
          BaselinePresetName,
          number | null
        >,
      })),
    };
  }
  return { source: 'arc-studio', games };
}

/**
 * The figures `source` (`baselines`) holds for the version of `gameId` an agent played (`played`:
 * the versions its runs recorded, `<game id>@<code hash>` or the id alone), or why they cannot be
 * used; null when the source has no figures of the game at all. An entry that names no version
 * (a file written before versions were recorded) stands for whichever version was played.
 */
export function versionBaselines(
  baselines: Baselines,
  gameId: string,
  played: readonly string[],
  source: string,
): { game: GameBaselines } | { problem: string } | null {
  const ofGame = Object.entries(baselines.games).filter(
    ([key, g]) =>
      key === gameId || key.startsWith(`${gameId}@`) || g.version === gameId || g.version?.startsWith(`${gameId}@`),
  );
  if (!ofGame.length) return null;
  if (played.length > 1)
    return {
      problem: `this scorecard's runs of ${gameId} were played on ${played.length} versions of its code (${played.join(', ')}), and ${source} holds figures per version; open one scorecard per version`,
    };
  const want = played[0] ?? gameId;
  const hit = ofGame.find(([key, g]) => (g.version !== undefined ? g.version === want : key === gameId));
  if (hit) return { game: hit[1] };
  const held = ofGame.map(([key, g]) => g.version ?? key);
  return {
    problem: `${source} has human baselines of ${held.join(', ')} only, and this agent played ${want}; score it against a study whose participants played that version, or collect baselines of it`,
  };
}
