/**
 * `arc-studio score`: RHAE of agent recordings (official `.recording.jsonl`) against human
 * baselines (this project's baselines JSON or an official `metadata.json`), as a table or JSON.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Command } from './command';
import { parseCommandArgs, usageError } from './args';
import { readRecordingLines, recordingAgentRuns, type RecordingRead } from '../core/formats/recording';
import { BaselinesError, parseBaselines, type Baselines } from '../core/scoring/baselines';
import {
  SCORING_PRESETS,
  isScoringPreset,
  rhaeHeadline,
  scoreRuns,
  type AgentRun,
  type RhaeResult,
  type ScoringPresetName,
} from '../core/scoring/rhae';

const PRESETS = Object.keys(SCORING_PRESETS).join('|');
const USAGE = `score <recording.jsonl>... --baselines <file|study:ID|reference:GROUP> [--preset ${PRESETS}] [--json] [--data-dir DIR] [--arc3-games DIR]...`;
/** The preset used when `--preset` is not given: the official toolkit's current rule. */
export const DEFAULT_PRESET: ScoringPresetName = 'toolkit-2026-04';

/** The lines of a file, read in 1 MiB chunks: recordings with frames run to gigabytes. */
export function* fileLines(file: string): Generator<string> {
  const fd = openSync(file, 'r');
  try {
    const decoder = new StringDecoder('utf8');
    const buf = Buffer.alloc(1 << 20);
    let rest = '';
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) {
      const parts = (rest + decoder.write(buf.subarray(0, n))).split('\n');
      rest = parts.pop()!;
      for (const p of parts) yield p.endsWith('\r') ? p.slice(0, -1) : p;
    }
    rest += decoder.end();
    if (rest) yield rest;
  } finally {
    closeSync(fd);
  }
}

/** One recording file as read. */
export interface ScoredFile {
  readonly file: string;
  readonly runs: number;
  readonly skipped: RecordingRead['skipped'];
  /** Frame lines no run counts (an empty frame, an action after GAME_OVER or WIN, before any RESET). */
  readonly unscored: RecordingRead['unscored'];
  /** RESET lines that say `full_reset: false` but start a new run by the engine's rule. */
  readonly fullResetsInferred: readonly number[];
}

/** What `score` computes: the RHAE figures and, per file, its runs and skipped lines. */
export interface ScoreReport {
  readonly baselines: string;
  readonly files: readonly ScoredFile[];
  readonly result: RhaeResult;
}

function fail(message: string): never {
  throw new Error(message);
}

/**
 * Reads the baselines (a file, or `fromStudy` already computed for `study:ID`) and the
 * recordings and scores them. Errors say what to do.
 */
export function scoreFiles(
  recordings: readonly string[],
  baselinesArg: string,
  preset: ScoringPresetName,
  fromStudy?: Baselines,
): ScoreReport {
  const reads: { file: string; read: RecordingRead }[] = [];
  for (const file of recordings) {
    if (!statSync(file, { throwIfNoEntry: false })?.isFile())
      fail(`recording "${file}" does not exist or is not a file; name .recording.jsonl files.`);
    let read: RecordingRead;
    try {
      read = readRecordingLines(fileLines(file));
    } catch (e) {
      fail(`cannot read recording "${file}" (${(e as Error).message}).`);
    }
    if (read.steps.length === 0) {
      const why = read.skipped.length
        ? ` (${read.skipped.length} line${read.skipped.length > 1 ? 's' : ''} skipped, the first: line ${read.skipped[0].line} ${read.skipped[0].reason})`
        : ' (it is empty)';
      fail(
        `recording "${file}" has no frame lines${why}; it should hold one {"timestamp", "data": {...}} line per action.`,
      );
    }
    reads.push({ file, read });
  }
  const gameIds = [...new Set(reads.flatMap((r) => r.read.runs.map((run) => run.gameId)))];
  let baselines: Baselines;
  if (fromStudy) baselines = fromStudy;
  else {
    let text: string;
    try {
      text = readFileSync(baselinesArg, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      fail(
        `cannot read the baselines file "${baselinesArg}" (${code === 'ENOENT' ? 'no such file' : (e as Error).message}); give an arc-studio baselines JSON, an official metadata.json, or study:ID.`,
      );
    }
    try {
      baselines = parseBaselines(text, gameIds.length === 1 ? { defaultGameId: gameIds[0] } : {});
    } catch (e) {
      if (e instanceof BaselinesError) fail(`baselines file "${baselinesArg}": ${e.message}`);
      throw e;
    }
  }
  const runs: AgentRun[] = [];
  for (const { file, read } of reads) {
    if (read.runs.length === 0)
      fail(
        `recording "${file}" has no run: none of its ${read.steps.length} frame lines follows a RESET; a recording starts with the RESET that starts the game.`,
      );
    runs.push(...recordingAgentRuns(read, path.basename(file)));
  }
  // Games the baselines do not hold score 0 and count in the total, as in the official scorer;
  // the report's headline says so.
  const result = scoreRuns(runs, baselines, preset);
  return {
    baselines: baselinesArg,
    files: reads.map(({ file, read }) => ({
      file,
      runs: read.runs.length,
      skipped: read.skipped,
      unscored: read.unscored,
      fullResetsInferred: read.fullResetsInferred,
    })),
    result,
  };
}

const fixed = (v: number | null) => (v === null ? '-' : v.toFixed(4));

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd(),
  );
}

/** The report as the table `score` prints: every figure with its preset and participant counts. */
export function formatReport(report: ScoreReport): string {
  const r = report.result;
  const out: string[] = [
    ...rhaeHeadline(r),
    `RHAE, preset ${r.preset} v${r.version}: ${r.description}.`,
    r.baselineSource === 'metadata'
      ? `Human baselines: official metadata.json baseline_actions from ${report.baselines}.`
      : `Human baselines: ${r.baselinePreset} v${r.baselineVersion} of first-time players, from ${report.baselines}.`,
    '',
  ];
  const rows: string[][] = [
    ['game', 'run', 'level', 'weight', 'human', 'preset', 'completers/reached', 'agent', 'completed', 'score'],
  ];
  for (const g of r.games) {
    const run = g.runs[g.counted];
    for (const l of run.levels) {
      const h = l.human;
      rows.push([
        g.game,
        run.label,
        String(l.level),
        String(l.weight),
        h.value === null ? `- (${h.reason})` : String(h.value),
        h.preset,
        h.completers === null ? '-' : `${h.completers}/${h.reached}`,
        l.agentActions === null ? '-' : String(l.agentActions),
        l.completed ? 'yes' : 'no',
        fixed(l.score),
      ]);
    }
  }
  out.push(...table(rows), '');
  for (const g of r.games) {
    const others =
      g.runs.length > 1
        ? `, ${r.preset === 'paper' ? 'first' : 'best'} of ${g.runs.length} runs (${g.runs.map((x) => `${x.label} ${fixed(x.score)}`).join(', ')})`
        : '';
    const people = !g.hasBaselines
      ? 'no baselines'
      : g.participants === null
        ? 'official baselines'
        : `${g.participants} first-time player${g.participants === 1 ? '' : 's'}`;
    out.push(
      `game ${g.game}: ${fixed(g.score)} (run ${g.runs[g.counted].label}${others}; weighted mean ${fixed(g.runs[g.counted].weightedMean)}, completed share ${fixed(g.runs[g.counted].completedShare)}; ${people})`,
    );
  }
  const n = r.games.length;
  out.push(
    `total: ${fixed(r.total)}, mean over ${n} game${n === 1 ? '' : 's'} (preset ${r.preset})${r.complete ? '' : '; NOT a score over every level, the baselines do not cover them all (see the top)'}`,
  );
  for (const note of r.notes) out.push(`note: ${note}`);
  const lines = (k: number) => `${k} line${k > 1 ? 's' : ''}`;
  const why = {
    'empty-frame': 'an empty frame',
    'after-game-over': 'an action after GAME_OVER or WIN',
    'before-reset': 'before any RESET of the game',
  };
  for (const f of report.files) {
    if (f.skipped.length)
      out.push(
        `note: ${f.file}: ${lines(f.skipped.length)} that are not frames skipped (first: line ${f.skipped[0].line}, ${f.skipped[0].reason}).`,
      );
    if (f.unscored.length)
      out.push(
        `note: ${f.file}: ${lines(f.unscored.length)} not scored, as the official scorecard does not score them (first: line ${f.unscored[0].line}, ${why[f.unscored[0].reason]}).`,
      );
    if (f.fullResetsInferred.length)
      out.push(
        `note: ${f.file}: ${lines(f.fullResetsInferred.length)} (${f.fullResetsInferred.slice(0, 5).join(', ')}${f.fullResetsInferred.length > 5 ? ', ...' : ''}) say full_reset false for a RESET that starts a new run by the engine's rule; counted as full resets (REST responses carry no full_reset).`,
      );
  }
  return out.join('\n');
}

const SCORE = {
  command: 'score',
  usage: USAGE,
  summary:
    'Score agent recordings (.recording.jsonl) against human baselines with RHAE: per level, per game and in total, as a table or JSON.',
  positionals: { name: '<recording.jsonl>...', help: 'official ARC-AGI-3 recordings of agent runs' },
  options: {
    baselines: {
      type: 'string',
      value: '<file|study:ID|reference:GROUP>',
      help: 'an arc-studio baselines JSON, an official metadata.json, study:ID for a study in the serve store, or reference:GROUP for a reference group imported there (arc-studio recordings import)',
    },
    preset: {
      type: 'string',
      value: 'NAME',
      default: DEFAULT_PRESET,
      help: `scoring preset: ${Object.keys(SCORING_PRESETS).join(', ')}`,
    },
    json: { type: 'boolean', help: 'print the whole report as JSON' },
    'data-dir': {
      type: 'string',
      value: 'DIR',
      default: '.arc-studio',
      help: 'the data folder "arc-studio serve" uses, for study:ID and reference:GROUP; ignored when DATABASE_URL is set',
    },
    'arc3-games': {
      type: 'string',
      value: 'DIR',
      multiple: true,
      help: 'for study:ID, the arcengine game folders "arc-studio serve" mounts, so their levels are in the baselines; default: ARC_STUDIO_ARC3_GAMES',
    },
  },
} as const;

function parseArgs(args: string[]): {
  files: string[];
  baselines: string;
  preset: ScoringPresetName;
  json: boolean;
  dataDir: string;
  arc3Games: readonly string[];
} {
  const { values, positionals: files } = parseCommandArgs(SCORE, args);
  const { baselines, preset, json } = values;
  if (files.length === 0) throw usageError(SCORE, 'name at least one recording file.');
  if (baselines === undefined)
    throw usageError(
      SCORE,
      'give the human baselines with --baselines <file> (arc-studio.baselines JSON or an official metadata.json), --baselines study:ID or --baselines reference:GROUP.',
    );
  if (!isScoringPreset(preset))
    fail(`unknown preset "${preset}"; presets: ${Object.keys(SCORING_PRESETS).join(', ')}.`);
  return { files, baselines, preset, json, dataDir: values['data-dir'], arc3Games: values['arc3-games'] };
}

/**
 * The baselines of a study in the serve store (PGlite in `dataDir`, or DATABASE_URL), computed as
 * the study's baselines export computes them.
 */
async function studyBaselinesFrom(studyId: string, dataDir: string, arc3Games: readonly string[]): Promise<Baselines> {
  const { existsSync } = await import('node:fs');
  const { openStore } = await import('../server/store/open');
  const { exportContext, ExportError } = await import('../server/export/context');
  const { studyBaselines } = await import('../server/export/baselines');
  const { mountStudyGames, unresolvedGames, unresolvedMessage } = await import('./studyGames');
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const dir = path.resolve(dataDir);
  if (!databaseUrl && !existsSync(path.join(dir, 'db'))) {
    fail(
      `--baselines study:${studyId}: no database in ${path.join(dir, 'db')}; give the --data-dir that "arc-studio serve" uses (default .arc-studio), or set DATABASE_URL.`,
    );
  }
  const store = await openStore(databaseUrl ? { databaseUrl } : { dataDir: dir });
  // The study's arcengine games as the server ran them, so their levels are in the baselines.
  const mounted = await mountStudyGames(store, arc3Games, (line) => console.error(line));
  try {
    const ctx = await exportContext({
      store,
      studyId,
      version: null,
      library: null,
      replay: mounted.replay,
      games: mounted.games,
      now: Date.now(),
    }).catch((e: Error) => {
      if (e instanceof ExportError) fail(`--baselines study:${studyId}: ${e.message}`);
      throw e;
    });
    const missing = unresolvedGames(ctx);
    if (missing.length) fail(`--baselines study:${studyId}: ${unresolvedMessage(studyId, missing, mounted.dirs)}`);
    return await studyBaselines(ctx);
  } finally {
    await mounted.stop();
    await store.close();
  }
}

/**
 * The baselines of a reference group in the serve store: every game with a group of that name,
 * each recording one first-time player (server/reference `referenceBaselines`).
 */
async function referenceBaselinesFrom(group: string, dataDir: string): Promise<Baselines> {
  const { openServeStore } = await import('./runStore');
  const { referenceBaselines } = await import('../server/reference/importer');
  const { store, where } = await openServeStore(dataDir);
  try {
    const groups = (await store.references.listReferenceGroups(null)).filter((g) => g.name === group);
    if (!groups.length)
      fail(
        `--baselines reference:${group}: ${where} has no reference group "${group}"; import one with "arc-studio recordings import".`,
      );
    const games: Baselines['games'] = {};
    for (const g of groups) Object.assign(games, (await referenceBaselines(store.references, g.gameId, group))?.games);
    return { source: 'arc-studio', games };
  } finally {
    await store.close();
  }
}

export const scoreCommand: Command = {
  summary: `Score agent recordings (.recording.jsonl) against human baselines with RHAE: per level, per game and in total, as a table or JSON. Presets: paper (second-best human), toolkit-2026-04 (upper-median human, the default).`,
  usage: USAGE,
  async run(args) {
    const { files, baselines, preset, json, dataDir, arc3Games } = parseArgs(args);
    const fromStudy = baselines.startsWith('study:')
      ? await studyBaselinesFrom(baselines.slice('study:'.length), dataDir, arc3Games)
      : baselines.startsWith('reference:')
        ? await referenceBaselinesFrom(baselines.slice('reference:'.length), dataDir)
        : undefined;
    const report = scoreFiles(files, baselines, preset, fromStudy);
    console.log(json ? JSON.stringify(report, null, 2) : formatReport(report));
    return 0;
  },
};
