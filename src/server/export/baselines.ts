/**
 * Per-level human baselines of a study's games, as this project's baselines JSON (the file
 * `arc-studio score --baselines` reads) and as CSV, one row per game, level and preset.
 *
 * Who counts: the first run of each game by first-time participants (a participant is known by
 * `PROLIFIC_PID`, else `workerId`, else the session; only their earliest session counts), in
 * non-practice items of sessions of the stage the export counts (`main` unless asked) that are neither playtests nor excluded by a
 * researcher, whose log the server's replay verifies (as the study results count by default).
 *
 * Baselines are kept per game version (levels may differ between versions): logs of the version
 * the server runs count under the game's id (`push`), logs verified on an earlier version the
 * server still keeps under that version's id (`push-<hash>`); each game says its `version`. A
 * server-run game's version is the code its run was opened on, as the server recorded it
 * (`ls20-9607627b@3f2a9c01d4e5`), so the runs of a game edited mid-study count apart. Logs
 * of a version the server cannot run are not verified and count nowhere (the study results and
 * the session's `game_log_other_version:<item>` flag show them).
 */
import { csvRecord } from '../../core/formats/csv';
import { inStage } from '../../core/study/stages';
import { eventsByItem, verifyGameLog } from '../../core/study/rules';
import {
  BASELINE_PRESETS,
  BASELINE_PRESET_NAMES,
  baselineOf,
  baselinesToJson,
  computeBaselines,
  firstRunLevels,
  type Baselines,
  type PlayerLevels,
} from '../../core/scoring/baselines';
import { mountedVersion } from '../../core/analysis/versions';
import { firstRunVersions } from '../campaign/versions';
import {
  type ExportContext,
  definitionFor,
  isExcludedSession,
  isPlaytestSession,
  participantId,
  sessionEvents,
} from './context';

export const BASELINES_CSV_VERSION = 2;

export const BASELINES_CSV_COLUMNS = [
  'game',
  'version',
  'level',
  'participants',
  'reached',
  'completers',
  'preset',
  'preset_version',
  'min_completers',
  'baseline',
  'reason',
] as const;

const computed = new WeakMap<ExportContext, Promise<Baselines>>();

/**
 * The baselines of the study's games (every game the server runs that a study item plays is
 * listed: built-in and arcengine games alike).
 * Computed once per context, so the bundle's JSON and CSV read the logs once.
 */
export function studyBaselines(ctx: ExportContext): Promise<Baselines> {
  let p = computed.get(ctx);
  if (!p) computed.set(ctx, (p = computeStudyBaselines(ctx)));
  return p;
}

async function computeStudyBaselines(ctx: ExportContext): Promise<Baselines> {
  const players: PlayerLevels[] = [];
  const winLevels: Record<string, number> = {};
  const versions: Record<string, string> = {};
  for (const def of ctx.versions.values()) {
    for (const item of def.items) {
      if (item.kind !== 'game' || item.practice) continue;
      const game = ctx.games[item.game];
      if (!game) continue;
      winLevels[item.game] = game.levels;
      const now = mountedVersion(game, item.game);
      if (now !== null) versions[item.game] = now;
    }
  }
  const runs = await firstRunVersions(ctx.store, ctx.studyId);
  for (const s of ctx.sessions) {
    if (isPlaytestSession(s) || isExcludedSession(s) || !inStage(s.stage, ctx.stage)) continue;
    const items = definitionFor(ctx, s).items.filter((i) => i.kind === 'game' && !i.practice);
    if (items.length === 0 || !ctx.replay) continue;
    const byItem = eventsByItem(await sessionEvents(ctx, s.id));
    for (const item of items) {
      if (item.kind !== 'game') continue;
      const evs = byItem.get(item.id);
      if (!evs) continue;
      const levels = firstRunLevels(evs, item.game);
      if (!levels) continue;
      const verification = verifyGameLog(item, evs, ctx.replay);
      if (!verification.verified) continue;
      // A server-run game keeps its id when its code changes: the run's record names the code.
      const version = runs.get(s.id)?.[item.id]?.version ?? verification.version ?? versions[item.game];
      const key = version === undefined || version === versions[item.game] ? item.game : version;
      if (version !== undefined) versions[key] = version;
      players.push({ participant: participantId(s), game: key, levels });
    }
  }
  const computed = computeBaselines(players, winLevels);
  return {
    ...computed,
    games: Object.fromEntries(
      Object.entries(computed.games).map(([id, g]) => [id, versions[id] ? { ...g, version: versions[id] } : g]),
    ),
  };
}

/** `baselines.json`: the arc-studio.baselines format, presets named with their versions. */
export async function* baselinesJson(ctx: ExportContext): AsyncGenerator<string> {
  yield baselinesToJson(await studyBaselines(ctx));
}

/** `baselines.csv`: one row per game, level and preset. */
export async function* baselinesCsv(ctx: ExportContext): AsyncGenerator<string> {
  const b = await studyBaselines(ctx);
  yield csvRecord(BASELINES_CSV_COLUMNS);
  for (const [game, g] of Object.entries(b.games)) {
    let chunk = '';
    for (const l of g.levels) {
      for (const name of BASELINE_PRESET_NAMES) {
        const figure = baselineOf(l.actions ?? [], name);
        chunk += csvRecord([
          game,
          g.version ?? '',
          l.level,
          g.participants,
          l.reached,
          l.completers,
          name,
          BASELINE_PRESETS[name].version,
          BASELINE_PRESETS[name].minCompleters,
          figure.value,
          figure.reason ?? '',
        ]);
      }
    }
    yield chunk;
  }
}
