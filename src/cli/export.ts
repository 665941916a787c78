/**
 * `arc-studio export`: a study's data from the same store `serve` uses (PGlite in the data
 * folder, or PostgreSQL with DATABASE_URL), streamed to a file or, for recordings, a folder.
 */
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from './command';
import { parseCommandArgs, usageError } from './args';
import { bundledTaskDirs } from './serve';
import { TaskLibrary } from '../server/collections/collections';
import { openStore, redact } from '../server/store/open';
import { mountStudyGames, unresolvedGames, unresolvedMessage } from './studyGames';
import { ExportError, exportContext, type ExportContext } from '../server/export/context';
import { stageSelection } from '../core/study/stages';
import { attemptsCsv } from '../server/export/attempts';
import { baselinesCsv, baselinesJson } from '../server/export/baselines';
import { eventsJsonl } from '../server/export/events';
import { gridActionsCsv } from '../server/export/gridActions';
import { gradesCsv } from '../server/export/grades';
import { responsesCsv } from '../server/export/responses';
import { studyBundle } from '../server/export/formats';
import { studyArchive } from '../server/export/archive';
import { surveysJson } from '../server/export/surveys';
import { recordingEntries, type SkippedRun } from '../server/export/recordings';

/** The formats of the command (`baselines` is JSON, or CSV for an `--out` ending in `.csv`). */
export const CLI_FORMATS = [
  'jsonl',
  'csv',
  'baselines',
  'grid-actions',
  'grades',
  'responses',
  'surveys',
  'recordings',
  'zip',
  'archive',
] as const;
type CliFormat = (typeof CLI_FORMATS)[number];
/** The formats that hold per-game figures or recordings: refused when a study's game cannot be resolved. */
const GAME_FORMATS: ReadonlySet<CliFormat> = new Set(['csv', 'baselines', 'recordings', 'zip']);

const USAGE = `export --study ID --format ${CLI_FORMATS.join('|')} --out PATH [--version N] [--stage NAME|all] [--data-dir DIR] [--arc3-games DIR]...`;
const SUMMARY =
  "Export a study's data: raw events (jsonl), attempts (csv), baselines (JSON, or CSV for a .csv --out), grid actions (csv), grades of free responses (grades), participants' answers, surveys, descriptions and withdrawals (responses), the survey summaries (surveys), ARC-AGI-3 recordings (a folder) the whole bundle (zip), or the study's archive for `arc-studio restore` (archive). Reads the serve store: PGlite in --data-dir, or DATABASE_URL.";
const EXPORT = {
  command: 'export',
  usage: USAGE,
  summary: SUMMARY,
  options: {
    study: { type: 'string', value: 'ID', help: 'the study to export' },
    format: { type: 'string', value: 'FORMAT', help: `one of ${CLI_FORMATS.join(', ')}` },
    out: {
      type: 'string',
      value: 'PATH',
      help: 'the file to write (a folder for recordings); written through a .part file',
    },
    version: { type: 'integer', value: 'N', min: 1, help: 'only this version of the study (default: every version)' },
    stage: {
      type: 'string',
      value: 'NAME',
      help: 'the stage the counted figures take (baselines, campaign files, payments.csv): a stage, or all (default: main); every file lists every session with its stage',
    },
    'data-dir': {
      type: 'string',
      value: 'DIR',
      default: '.arc-studio',
      help: 'the data folder "arc-studio serve" uses; ignored when DATABASE_URL is set',
    },
    'arc3-games': {
      type: 'string',
      value: 'DIR',
      multiple: true,
      help: 'the arcengine game folders "arc-studio serve" mounts, so that their games are verified and in the baselines; default: ARC_STUDIO_ARC3_GAMES',
    },
  },
} as const;

function fail(message: string): never {
  throw new Error(message);
}

/** Streams `chunks` into `file` through a temporary `.part` file, so a failed export leaves nothing half-written. */
async function writeFile(file: string, chunks: AsyncIterable<string | Uint8Array>): Promise<number> {
  const part = `${file}.part`;
  const out = createWriteStream(part);
  try {
    await pipeline(Readable.from(chunks, { objectMode: false }), out);
  } catch (e) {
    rmSync(part, { force: true });
    throw e;
  }
  renameSync(part, file);
  return statSync(file).size;
}

function checkWritableParent(file: string): void {
  const dir = path.dirname(file);
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st) fail(`cannot write ${file}: the folder ${dir} does not exist; create it first or choose another --out.`);
  if (!st.isDirectory()) fail(`cannot write ${file}: ${dir} is not a folder.`);
  if (existsSync(file) && statSync(file).isDirectory())
    fail(`cannot write ${file}: it is a folder; give a file name with --out.`);
}

/** What an export wrote. */
export interface ExportReport {
  readonly files: number;
  readonly bytes: number;
  readonly skipped: readonly SkippedRun[];
}

/** Writes one export of `ctx` to `out`. */
export async function writeExport(ctx: ExportContext, format: CliFormat, out: string): Promise<ExportReport> {
  if (format === 'recordings') {
    if (existsSync(out) && !statSync(out).isDirectory())
      fail(
        `cannot write recordings to ${out}: it is a file; recordings go to a folder, give a folder path with --out.`,
      );
    try {
      mkdirSync(out, { recursive: true });
    } catch (e) {
      fail(
        `cannot create the folder ${out} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); choose another --out.`,
      );
    }
    const skipped: SkippedRun[] = [];
    let files = 0;
    let bytes = 0;
    for await (const entry of recordingEntries(ctx, skipped)) {
      bytes += await writeFile(path.join(out, entry.name), Readable.from(entry.data));
      files++;
    }
    return { files, bytes, skipped };
  }
  checkWritableParent(out);
  const writers: Record<Exclude<CliFormat, 'recordings'>, (c: ExportContext) => AsyncIterable<string | Uint8Array>> = {
    jsonl: eventsJsonl,
    csv: attemptsCsv,
    baselines: out.toLowerCase().endsWith('.csv') ? baselinesCsv : baselinesJson,
    'grid-actions': gridActionsCsv,
    grades: gradesCsv,
    responses: responsesCsv,
    surveys: surveysJson,
    zip: studyBundle,
    archive: studyArchive,
  };
  try {
    return { files: 1, bytes: await writeFile(out, writers[format](ctx)), skipped: [] };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM')
      fail(`cannot write ${out} (${code}: permission denied); choose another --out.`);
    throw e;
  }
}

export const exportCommand: Command = {
  summary: SUMMARY,
  usage: USAGE,
  async run(args) {
    const { values } = parseCommandArgs(EXPORT, args);
    if (!values.study) throw usageError(EXPORT, '--study is missing: name the study to export.');
    if (!values.format) throw usageError(EXPORT, `--format is missing; formats: ${CLI_FORMATS.join(', ')}.`);
    if (!(CLI_FORMATS as readonly string[]).includes(values.format))
      fail(`unknown format "${values.format}"; formats: ${CLI_FORMATS.join(', ')}.`);
    const format = values.format as CliFormat;
    if (!values.out)
      throw usageError(
        EXPORT,
        `--out is missing: give the file${format === 'recordings' ? ' (a folder, for recordings)' : ''} to write.`,
      );
    const version = values.version ?? null;
    const stage = stageSelection(values.stage);
    if ('error' in stage) throw usageError(EXPORT, stage.error);
    const out = path.resolve(values.out);
    // A bad --out is reported before the database is opened.
    if (format === 'recordings') {
      if (existsSync(out) && !statSync(out).isDirectory())
        fail(
          `cannot write recordings to ${out}: it is a file; recordings go to a folder, give a folder path with --out.`,
        );
    } else {
      checkWritableParent(out);
    }

    const databaseUrl = process.env.DATABASE_URL || undefined;
    const dataDir = path.resolve(values['data-dir']);
    if (!databaseUrl && !existsSync(path.join(dataDir, 'db'))) {
      fail(
        `no database in ${path.join(dataDir, 'db')}: give the --data-dir that "arc-studio serve" uses (default .arc-studio), or set DATABASE_URL for PostgreSQL.`,
      );
    }
    const library = new TaskLibrary();
    for (const dir of bundledTaskDirs('tasks')) await library.mount(dir);
    for (const dir of bundledTaskDirs('practice')) await library.mount(dir, undefined, 'practice');
    const store = await openStore(databaseUrl ? { databaseUrl } : { dataDir });
    // The arcengine games, as the server runs them: their logs verified by the official engine,
    // their levels and versions in the baselines and recordings.
    const mounted = await mountStudyGames(store, values['arc3-games'], (line) => console.error(line));
    try {
      let ctx: ExportContext;
      try {
        ctx = await exportContext({
          store,
          studyId: values.study,
          version,
          stage: stage.stage,
          library,
          replay: mounted.replay,
          games: mounted.games,
          now: Date.now(),
        });
      } catch (e) {
        if (e instanceof ExportError) fail(e.message);
        throw e;
      }
      // A game the study plays that cannot be resolved would be missing from the baselines and recordings.
      const missing = GAME_FORMATS.has(format) ? unresolvedGames(ctx) : [];
      if (missing.length) fail(unresolvedMessage(ctx.studyId, missing, mounted.dirs));
      const r = await writeExport(ctx, format, out);
      const from = databaseUrl ? `PostgreSQL at ${redact(databaseUrl)}` : `PGlite in ${path.join(dataDir, 'db')}`;
      const what =
        format === 'recordings'
          ? `${r.files} recording${r.files === 1 ? '' : 's'} (${r.bytes} bytes) to ${out}`
          : `${r.bytes} bytes to ${out}`;
      console.log(
        `Exported ${format} of study "${ctx.studyId}"${version === null ? '' : ` version ${version}`} (${ctx.sessions.length} session${ctx.sessions.length === 1 ? '' : 's'}, from ${from}): ${what}.`,
      );
      for (const s of r.skipped) console.error(`Not written: ${s.name}: ${s.reason}`);
      return 0;
    } finally {
      await mounted.stop();
      await store.close();
    }
  },
};
