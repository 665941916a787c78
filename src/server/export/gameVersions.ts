/**
 * Which code a study's game runs were played on, in the export bundle:
 *
 * - `game-runs.jsonl`: one line per stored run of a server-run game (arcengine or remote) of the
 *   exported sessions, with the version the run recorded when it was opened (`<id>@<code hash>`
 *   for an arcengine game) and the name of its recording in `recordings/`.
 * - `game-versions.json`: the versions the study started with (`study_game_pins`, recorded by its
 *   first session), every version the exported runs were opened on with how many runs, whether
 *   this database still keeps each version's files (so that `games verify-session` can play the
 *   runs again on them), and the version the exporting server mounts now.
 *
 * Built-in games' runs are not stored as runs: their version is in each run's `game.open` event
 * (`events.jsonl`, `data.version`) and the study's starting version in `game-versions.json`.
 */
import type { GameRunRecord } from '../store/types';
import { gameVersion } from '../arc3/gameCode';
import { type ExportContext, definitionFor, isExcludedSession, isPlaytestSession, practiceItems } from './context';
import { recordingName } from './recordings';

/** The format version of `game-runs.jsonl` and `game-versions.json`, written in their schemas. */
export const GAME_VERSIONS_VERSION = 1;

/** One line of `game-runs.jsonl`. */
export interface ExportedGameRun {
  readonly sessionId: string;
  readonly studyVersion: number;
  readonly item: string;
  /** 1-based among the item's stored runs, in the order they were opened (as in the recording's name). */
  readonly run: number;
  readonly runId: string;
  readonly gameId: string;
  /** `<game id>@<code hash>` for an arcengine run that recorded its code, else the game id. */
  readonly version: string;
  readonly codeHash: string | null;
  readonly source: 'arcengine' | 'remote';
  readonly engine: string;
  readonly seed: number;
  /** When the server opened the run, ms since the epoch. */
  readonly openedAt: number;
  /** The run's file in `recordings/` (not written when the README lists it as such). */
  readonly recording: string;
  readonly practice: boolean;
  readonly playtest: boolean;
  readonly excluded: boolean;
  /** The study's stage when the session started. */
  readonly stage: string;
}

/** A version the study's first session recorded for one of its games. */
export interface ExportedStartingVersion {
  readonly gameId: string;
  readonly version: string;
  readonly codeHash: string | null;
  /** The session that recorded it, and when (ms since the epoch). */
  readonly sessionId: string;
  readonly pinnedAt: number;
  /** The version the exporting server mounts now; null when it does not mount the game. */
  readonly current: string | null;
  /** True when `current` is not the version the study started with (or the game is not mounted). */
  readonly changed: boolean;
}

/** A version the exported runs were opened on. */
export interface ExportedRunVersion {
  readonly gameId: string;
  readonly version: string;
  readonly codeHash: string | null;
  readonly runs: number;
  readonly firstOpenedAt: number;
  readonly lastOpenedAt: number;
  /** The study started with this version. */
  readonly startedWith: boolean;
  /** The version the exporting server mounts now. */
  readonly current: boolean;
  /**
   * Whether this database keeps the version's files, so that its runs can be played again on
   * them (`games verify-session`); null for runs without a code hash (remote games, older runs).
   */
  readonly codeKept: boolean | null;
}

/** `game-versions.json`. */
export interface ExportedGameVersions {
  readonly format: 'arc-studio.game-versions';
  readonly formatVersion: number;
  readonly studyId: string;
  /** The study version exported, or null for every version. */
  readonly studyVersion: number | null;
  readonly startedWith: ExportedStartingVersion[];
  readonly versions: ExportedRunVersion[];
}

/** The version of `gameId` the exporting server mounts: `<id>@<hash>` for arcengine games; null when not mounted. */
function mountedVersion(ctx: ExportContext, gameId: string): string | null {
  const g = ctx.games[gameId];
  if (!g) return null;
  return g.codeHash ? gameVersion(gameId, g.codeHash) : (g.version ?? gameId);
}

/** The stored runs of every exported session, a session at a time, as `game-runs.jsonl` writes them. */
export async function* exportedGameRuns(ctx: ExportContext): AsyncGenerator<ExportedGameRun[]> {
  for (const s of ctx.sessions) {
    const def = definitionFor(ctx, s);
    if (!def.items.some((i) => i.kind === 'game')) continue;
    const runs: GameRunRecord[] = await ctx.store.listGameRuns(s.id);
    if (!runs.length) continue;
    const practice = practiceItems(def);
    const playtest = isPlaytestSession(s);
    const excluded = isExcludedSession(s);
    const perItem = new Map<string, number>();
    yield runs.map((r) => {
      const n = (perItem.get(r.item) ?? 0) + 1;
      perItem.set(r.item, n);
      const codeHash = r.codeHash ?? null;
      return {
        sessionId: s.id,
        studyVersion: s.studyVersion,
        item: r.item,
        run: n,
        runId: r.runId,
        gameId: r.gameId,
        version: gameVersion(r.gameId, codeHash),
        codeHash,
        source: r.source,
        engine: r.engine,
        seed: r.seed,
        openedAt: r.openedAt,
        recording: recordingName(s.id, r.item, n),
        practice: practice.has(r.item),
        playtest,
        excluded,
        stage: s.stage,
      };
    });
  }
}

/**
 * The versions the runs written so far were opened on, with how many runs and when the first and
 * last were opened: filled while `game-runs.jsonl` is written, so that the bundle's
 * `game-versions.json` after it needs no second pass over the runs.
 */
export class RunVersionTally {
  /** The `game-versions.json` made from this tally, once made (the bundle's README names what changed). */
  document: ExportedGameVersions | null = null;
  readonly byVersion = new Map<
    string,
    { gameId: string; codeHash: string | null; runs: number; first: number; last: number }
  >();

  add(r: Pick<ExportedGameRun, 'gameId' | 'version' | 'codeHash' | 'openedAt'>): void {
    const v = this.byVersion.get(r.version);
    if (!v) {
      this.byVersion.set(r.version, {
        gameId: r.gameId,
        codeHash: r.codeHash,
        runs: 1,
        first: r.openedAt,
        last: r.openedAt,
      });
      return;
    }
    v.runs++;
    v.first = Math.min(v.first, r.openedAt);
    v.last = Math.max(v.last, r.openedAt);
  }
}

/** `game-runs.jsonl`: one line per stored run, a session's runs per chunk; each run is added to `tally` when given. */
export async function* gameRunsJsonl(ctx: ExportContext, tally?: RunVersionTally): AsyncGenerator<string> {
  for await (const runs of exportedGameRuns(ctx)) {
    if (tally) for (const r of runs) tally.add(r);
    yield runs.map((r) => JSON.stringify(r) + '\n').join('');
  }
}

/**
 * The content of `game-versions.json`. `tally`: the runs' versions as `gameRunsJsonl` counted them
 * for the same export; without it the runs are read here.
 */
export async function exportGameVersions(ctx: ExportContext, tally?: RunVersionTally): Promise<ExportedGameVersions> {
  const pins = await ctx.store.studyGamePins(ctx.studyId);
  const startedWith = pins.map((p): ExportedStartingVersion => {
    const current = mountedVersion(ctx, p.gameId);
    return {
      gameId: p.gameId,
      version: p.version,
      codeHash: p.codeHash,
      sessionId: p.sessionId,
      pinnedAt: p.pinnedAt,
      current,
      changed: current !== p.version,
    };
  });
  const pinned = new Set(pins.map((p) => p.version));
  let counted = tally;
  if (!counted) {
    counted = new RunVersionTally();
    for await (const runs of exportedGameRuns(ctx)) for (const r of runs) counted.add(r);
  }
  const byVersion = counted.byVersion;
  const versions: ExportedRunVersion[] = [];
  for (const [version, v] of byVersion) {
    versions.push({
      gameId: v.gameId,
      version,
      codeHash: v.codeHash,
      runs: v.runs,
      firstOpenedAt: v.first,
      lastOpenedAt: v.last,
      startedWith: pinned.has(version),
      current: mountedVersion(ctx, v.gameId) === version,
      codeKept: v.codeHash ? (await ctx.store.getGameCode(v.gameId, v.codeHash)) !== null : null,
    });
  }
  versions.sort((a, b) => a.firstOpenedAt - b.firstOpenedAt || a.version.localeCompare(b.version));
  const document: ExportedGameVersions = {
    format: 'arc-studio.game-versions',
    formatVersion: GAME_VERSIONS_VERSION,
    studyId: ctx.studyId,
    studyVersion: ctx.version,
    startedWith,
    versions,
  };
  if (tally) tally.document = document;
  return document;
}

/**
 * What a reader of the bundle should know about its games' versions, as README lines (none when
 * nothing changed): a game whose mounted version is not the one the study started with, and
 * versions whose runs cannot be played again because no server kept their code.
 */
export function gameVersionNotes(doc: ExportedGameVersions): string[] {
  const lines: string[] = [];
  for (const p of doc.startedWith.filter((x) => x.changed))
    lines.push(
      `- \`${p.gameId}\`: the study started with \`${p.version}\`; ${p.current ? `the exporting server mounts \`${p.current}\`` : 'the exporting server does not mount it'}.`,
    );
  for (const v of doc.versions.filter((x) => x.codeKept === false))
    lines.push(
      `- \`${v.version}\`: ${v.runs} run${v.runs === 1 ? '' : 's'} played on code this database no longer keeps; \`arc-studio games verify-session\` can play ${v.runs === 1 ? 'it' : 'them'} again only with the game's files put back as they were (their hash must be \`${v.codeHash}\`).`,
    );
  return lines;
}

/** `game-versions.json` as written (indented, one line end); `tally` as for {@link exportGameVersions}. */
export async function* gameVersionsJson(ctx: ExportContext, tally?: RunVersionTally): AsyncGenerator<string> {
  yield JSON.stringify(await exportGameVersions(ctx, tally), null, 2) + '\n';
}
