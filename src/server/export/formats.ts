/**
 * The export formats by name, as the routes and the CLI offer them, and the study bundle: a
 * ZIP of every file with a README, a JSON Schema per file type and a SHA-256 of each file.
 * Every writer is an async generator of chunks that reads the store a page at a time.
 */
import { createHash } from 'node:crypto';
import { attemptsCsv } from './attempts';
import { baselinesCsv, baselinesJson } from './baselines';
import type { ExportContext } from './context';
import { eventsJsonl } from './events';
import { gridActionsCsv } from './gridActions';
import { gradesCsv } from './grades';
import { responsesCsv } from './responses';
import { RunVersionTally, gameRunsJsonl, gameVersionNotes, gameVersionsJson } from './gameVersions';
import { surveysJson } from './surveys';
import { campaignCsv, campaignJson, exportCampaignView } from './campaign';
import { paymentsCsv } from '../../core/analysis/campaign';
import { type ExportEntry, type SkippedRun, recordingEntries } from './recordings';
import { exportSchemas } from './schemas';
import { zipStream } from './zip';

export type ExportFormat =
  | 'jsonl'
  | 'csv'
  | 'baselines-json'
  | 'baselines-csv'
  | 'grid-actions'
  | 'grades'
  | 'responses'
  | 'surveys'
  | 'recordings'
  | 'zip';

export interface FormatSpec {
  /** The file name for a study (`<study>[-v<N>]-...`). */
  readonly fileName: (base: string) => string;
  readonly contentType: string;
  readonly write: (ctx: ExportContext) => AsyncIterable<string | Uint8Array>;
}

const JSONL = 'application/x-ndjson; charset=utf-8';
const CSV = 'text/csv; charset=utf-8; header=present';
const JSON_TYPE = 'application/json; charset=utf-8';
const ZIP = 'application/zip';

export const EXPORT_FORMATS: Readonly<Record<ExportFormat, FormatSpec>> = {
  jsonl: { fileName: (b) => `${b}-events.jsonl`, contentType: JSONL, write: eventsJsonl },
  csv: { fileName: (b) => `${b}-attempts.csv`, contentType: CSV, write: attemptsCsv },
  'baselines-json': { fileName: (b) => `${b}-baselines.json`, contentType: JSON_TYPE, write: baselinesJson },
  'baselines-csv': { fileName: (b) => `${b}-baselines.csv`, contentType: CSV, write: baselinesCsv },
  'grid-actions': { fileName: (b) => `${b}-grid-actions.csv`, contentType: CSV, write: gridActionsCsv },
  grades: { fileName: (b) => `${b}-grades.csv`, contentType: CSV, write: gradesCsv },
  responses: { fileName: (b) => `${b}-responses.csv`, contentType: CSV, write: responsesCsv },
  surveys: { fileName: (b) => `${b}-surveys.json`, contentType: JSON_TYPE, write: surveysJson },
  recordings: {
    fileName: (b) => `${b}-recordings.zip`,
    contentType: ZIP,
    write: (ctx) => zipStream(recordingEntries(ctx), { modified: new Date(ctx.now) }),
  },
  zip: { fileName: (b) => `${b}-bundle.zip`, contentType: ZIP, write: studyBundle },
};

export const FORMAT_NAMES = Object.keys(EXPORT_FORMATS) as ExportFormat[];

export function isExportFormat(v: unknown): v is ExportFormat {
  return typeof v === 'string' && Object.hasOwn(EXPORT_FORMATS, v);
}

/** `<study>` or `<study>-v<N>`: the stem of every exported file name. */
export function fileBase(ctx: Pick<ExportContext, 'studyId' | 'version'>): string {
  return ctx.version === null ? ctx.studyId : `${ctx.studyId}-v${ctx.version}`;
}

/** Passes the data through, adding `<sha256>  <name>` to `sums` once it has all gone by. */
async function* hashed(
  name: string,
  data: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  sums: string[],
): AsyncGenerator<Uint8Array> {
  const h = createHash('sha256');
  for await (const c of data) {
    const b = typeof c === 'string' ? Buffer.from(c, 'utf8') : c;
    h.update(b);
    yield b;
  }
  sums.push(`${h.digest('hex')}  ${name}\n`);
}

/** The files of the bundle, in order: data, recordings, schemas, README, SHA256SUMS. */
async function* bundleEntries(ctx: ExportContext): AsyncGenerator<ExportEntry> {
  const sums: string[] = [];
  const tally = new RunVersionTally();
  const files: [string, (c: ExportContext) => AsyncIterable<string | Uint8Array>][] = [
    ['events.jsonl', eventsJsonl],
    ['attempts.csv', attemptsCsv],
    ['grid-actions.csv', gridActionsCsv],
    ['baselines.json', baselinesJson],
    ['baselines.csv', baselinesCsv],
    ['grades.csv', gradesCsv],
    ['responses.csv', responsesCsv],
    ['surveys.json', surveysJson],
    // The runs' versions are counted as their lines are written, for the versions file after them.
    ['game-runs.jsonl', (c) => gameRunsJsonl(c, tally)],
    ['game-versions.json', (c) => gameVersionsJson(c, tally)],
  ];
  for (const [name, write] of files) yield { name, data: hashed(name, write(ctx), sums) };
  // A campaign (a study with pools): its figures per candidate.
  const campaign = await exportCampaignView(ctx);
  if (campaign) {
    yield { name: 'campaign.json', data: hashed('campaign.json', [campaignJson(campaign.view)], sums) };
    yield { name: 'campaign.csv', data: hashed('campaign.csv', [campaignCsv(campaign.view)], sums) };
    yield { name: 'payments.csv', data: hashed('payments.csv', [paymentsCsv(campaign.payments)], sums) };
  }
  const skipped: SkippedRun[] = [];
  let runs = 0;
  for await (const e of recordingEntries(ctx, skipped)) {
    runs++;
    const name = `recordings/${e.name}`;
    yield { name, data: hashed(name, e.data, sums) };
  }
  for (const [file, schema] of Object.entries(exportSchemas())) {
    const name = `schemas/${file}`;
    yield { name, data: hashed(name, [JSON.stringify(schema, null, 2) + '\n'], sums) };
  }
  const notes = tally.document ? gameVersionNotes(tally.document) : [];
  yield {
    name: 'README.md',
    data: hashed('README.md', [bundleReadme(ctx, runs, skipped, campaign !== null, notes)], sums),
  };
  yield { name: 'SHA256SUMS', data: [sums.join('')] };
}

/** The study bundle (ZIP). */
export function studyBundle(ctx: ExportContext): AsyncGenerator<Buffer> {
  return zipStream(bundleEntries(ctx), { modified: new Date(ctx.now) });
}

function bundleReadme(
  ctx: ExportContext,
  runs: number,
  skipped: readonly SkippedRun[],
  campaign: boolean,
  versionNotes: readonly string[],
): string {
  const versions = [...ctx.versions.keys()];
  const lines = [
    `# Study "${ctx.studyId}": data export`,
    '',
    `Exported by ARC Studio at ${new Date(ctx.now).toISOString()}: ${ctx.sessions.length} session${ctx.sessions.length === 1 ? '' : 's'} of ${ctx.version === null ? `every version (${versions.join(', ')})` : `version ${ctx.version}`}.`,
    'Every file is described in docs/formats/README.md of ARC Studio; each has a JSON Schema in `schemas/`.',
    '',
    '| file | what it holds | schema |',
    '|---|---|---|',
    '| `events.jsonl` | every stored event of every session, one JSON object per line, sessions in order of creation, events in seq order; `practice`, `playtest` and `excluded` (a session a researcher excluded) mark events that never count | `schemas/events.schema.json` |',
    '| `attempts.csv` | one row per session and item started, excluded sessions too (`excluded`, `excluded_reason`): participant ids, actions, duration, the attempt rule, solved / levels completed, trials, verification, flags | `schemas/attempts.schema.json` |',
    '| `grid-actions.csv` | one row per grid-task action with H-ARC column names where they map; x = column, y = row, 0-based from the top left; `time` in ms since the session started; `excluded` marks sessions a researcher excluded | `schemas/grid-actions.schema.json` |',
    '| `baselines.json` | per game level, the human baselines under the presets best, second-best, median and upper-median with their versions and completer counts (first-time, verified, non-practice players, never playtests or sessions a researcher excluded); `arc-studio score --baselines` reads it | `schemas/baselines.schema.json` |',
    '| `baselines.csv` | the same, one row per game, level and preset | `schemas/baselines-csv.schema.json` |',
    "| `grades.csv` | one row per grade of a free-response or symbolic answer: each grader's criterion scores, total, pass and note (graders by their label), the researcher's adjudications, and the mean of agreeing grades; `final` marks the final grade of each answer | `schemas/grades.schema.json` |",
    '| `responses.csv` | one row per participant and question (single or in a block), survey question, written description (first or last) and withdrawal: the answer, the verdict of judged answers, the time on the item and the answer changes counted from the log; `excluded` marks sessions a researcher excluded | `schemas/responses.schema.json` |',
    '| `surveys.json` | the survey summaries as the results page shows them: per survey and question the counts and shares of its options, the distribution of its values, or every text answer with its participant; playtests and excluded sessions left out | `schemas/surveys.schema.json` |',
    '| `game-runs.jsonl` | one line per stored run of a server-run (arcengine or remote) game: the version it recorded when it was opened (`<game>@<code hash>`), its seed, engine and recording file; built-in games record their version in `events.jsonl` (`game.open`) | `schemas/game-runs.schema.json` |',
    '| `game-versions.json` | the versions of its games the study started with (recorded by its first session) and the version the exporting server mounts now; every version the exported runs were opened on, with how many runs and whether the database still keeps its files (needed to play the runs again with `arc-studio games verify-session`) | `schemas/game-versions.schema.json` |',
    ...(campaign
      ? [
          '| `campaign.json` | the campaign view: per pool candidate its draws, attempts, solves by distinct participants, status under the inclusion rule (stated in `rule`), medians, per-level funnel with drop-offs, and versions side by side | `schemas/campaign-view.schema.json` |',
          '| `campaign.csv` | one row per pool candidate: the same figures, without the per-level funnel | `schemas/campaign.schema.json` |',
          '| `payments.csv` | one row per session: fee, bonus, whether the bonus file pays it and why not, and its signals of help and low effort (reasons to look before paying, never exclusions) | `schemas/payments.schema.json` |',
        ]
      : []),
    `| \`recordings/\` | ${runs} official ARC-AGI-3 \`.recording.jsonl\` file${runs === 1 ? '' : 's'}, one per game run, named \`<session>-<item>-<run>.recording.jsonl\` | \`schemas/recording.schema.json\` |`,
    '| `SHA256SUMS` | the SHA-256 of every other file (`sha256sum -c SHA256SUMS` checks them) | |',
    '',
  ];
  if (skipped.length) {
    lines.push(
      '## Game runs not written',
      '',
      'These runs do not replay with the engine (a changed game, a damaged or tampered log), so no recording shows them:',
      '',
    );
    for (const s of skipped) lines.push(`- \`${s.name}\`: ${s.reason}`);
    lines.push('');
  }
  if (versionNotes.length) {
    lines.push(
      '## Game versions',
      '',
      'A game keeps its id when its code changes; `game-versions.json` and `game-runs.jsonl` say which code each run played. Of note:',
      '',
      ...versionNotes,
      '',
    );
  }
  return lines.join('\n');
}
