/**
 * A study's archive: one ZIP holding every stored row of the study (its versions, sessions,
 * events, submissions, responses, game runs and steps, the code of the game versions they ran on,
 * grades and campaign claims), one JSON-lines part per table, and a manifest with each part's
 * rows and SHA-256, from which `arc-studio restore` (`cli/restore.ts`) makes the study again on
 * another server. Nothing derived is in it: results digests and campaign counters are made again
 * from the rows. Written like every export, on an export thread, a page at a time; the format is
 * docs/formats/archive.md.
 */
import { createHash } from 'node:crypto';
import { ARCHIVE_TABLES, ARCHIVE_TABLE_NAMES, type ArchiveTable } from '../store/archiveStore';
import { migrations } from '../store/migrations';
import type { ExportContext } from './context';
import { zipStream, type ZipInput } from './zip';

/** The `format` of an archive's manifest. */
export const ARCHIVE_FORMAT = 'arc-studio-archive';
/** The version of the archive's layout (docs/formats/archive.md); a reader refuses a later one. */
export const ARCHIVE_FORMAT_VERSION = 1;
/** The manifest's name inside the archive. */
export const ARCHIVE_MANIFEST = 'archive.json';

/** One table's part as the manifest lists it. */
export interface ArchivePartEntry {
  readonly file: string;
  readonly table: ArchiveTable;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
}

/** What `archive.json` holds. */
export interface ArchiveManifest {
  readonly format: typeof ARCHIVE_FORMAT;
  readonly formatVersion: number;
  /** The highest database migration of the server that wrote it: the rows' columns are those of that schema. */
  readonly schema: number;
  readonly study: string;
  readonly versions: readonly number[];
  readonly sessions: number;
  readonly exportedAt: string;
  readonly parts: readonly ArchivePartEntry[];
}

/** The schema version of this server's database: its highest migration. */
export const SCHEMA_VERSION = Math.max(...migrations.map((m) => m.version));

/** Sessions (or runs, or game versions) whose rows are read in one query. */
const OWNERS_PER_READ = 200;

/** What the parts read so far found that later parts read by: runs and game versions. */
interface Found {
  readonly runs: string[];
  readonly codes: Set<string>;
}

/** The rows of a page's JSON text, one JSON line each. */
function* lines(json: string, found: Found | null): Generator<string> {
  for (const row of JSON.parse(json) as Record<string, unknown>[]) {
    if (found) {
      found.runs.push(String(row.run_id));
      if (typeof row.code_hash === 'string') found.codes.add(`${String(row.game_id)}@${row.code_hash}`);
    }
    yield JSON.stringify(row) + '\n';
  }
}

/** Every row of `table` that belongs to the study, as JSON lines, read a page at a time. */
async function* tableLines(ctx: ExportContext, table: ArchiveTable, found: Found): AsyncGenerator<string> {
  const spec: { by: string; key?: string } = ARCHIVE_TABLES[table];
  const owners =
    spec.by === 'study'
      ? [ctx.studyId]
      : spec.by === 'session'
        ? ctx.sessions.map((s) => s.id)
        : spec.by === 'run'
          ? found.runs
          : [...found.codes].sort();
  const archives = ctx.store.archives;
  if (spec.key) {
    for (const owner of owners)
      for (let after = -1; ;) {
        const page = await archives.readArchivePage(table, owner, after, ctx.pageSize);
        yield* lines(page.json, null);
        if (page.count < ctx.pageSize) break;
        after = page.last;
      }
    return;
  }
  for (let i = 0; i < owners.length; i += OWNERS_PER_READ)
    yield* lines(
      await archives.readArchiveRows(table, owners.slice(i, i + OWNERS_PER_READ)),
      table === 'game_runs' ? found : null,
    );
}

/** Passes a part through, counting its rows and bytes and hashing it, and lists it in `parts` at its end. */
async function* counted(
  file: string,
  table: ArchiveTable,
  data: AsyncIterable<string>,
  parts: ArchivePartEntry[],
): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let rows = 0;
  let bytes = 0;
  for await (const line of data) {
    const b = Buffer.from(line, 'utf8');
    hash.update(b);
    rows++;
    bytes += b.length;
    yield b;
  }
  parts.push({ file, table, rows, bytes, sha256: hash.digest('hex') });
}

/** The archive's entries: one part per table, then the manifest and a README. */
async function* archiveEntries(ctx: ExportContext): AsyncGenerator<ZipInput> {
  if (ctx.version !== null) throw new Error('an archive holds every version of a study; ask for it without a version.');
  const parts: ArchivePartEntry[] = [];
  const found: Found = { runs: [], codes: new Set() };
  for (const table of ARCHIVE_TABLE_NAMES) {
    const file = `parts/${table}.jsonl`;
    yield { name: file, data: counted(file, table, tableLines(ctx, table, found), parts) };
  }
  const manifest: ArchiveManifest = {
    format: ARCHIVE_FORMAT,
    formatVersion: ARCHIVE_FORMAT_VERSION,
    schema: SCHEMA_VERSION,
    study: ctx.studyId,
    versions: [...ctx.versions.keys()],
    sessions: ctx.sessions.length,
    exportedAt: new Date(ctx.now).toISOString(),
    parts,
  };
  yield { name: ARCHIVE_MANIFEST, data: [JSON.stringify(manifest, null, 2) + '\n'] };
  yield {
    name: 'README.md',
    data: [
      [
        `# Study "${ctx.studyId}": archive`,
        '',
        `Written by ARC Studio at ${manifest.exportedAt}: every stored row of the study (${ctx.sessions.length} session${ctx.sessions.length === 1 ? '' : 's'}, versions ${manifest.versions.join(', ')}), one JSON-lines file per table in \`parts/\`, listed with its row count and SHA-256 in \`${ARCHIVE_MANIFEST}\`.`,
        'The layout is docs/formats/archive.md of ARC Studio. Restore it on a server with `arc-studio restore <this file>` (docs/deploy.md).',
        '',
      ].join('\n'),
    ],
  };
}

/** The study's archive (ZIP). */
export function studyArchive(ctx: ExportContext): AsyncGenerator<Buffer> {
  return zipStream(archiveEntries(ctx), { modified: new Date(ctx.now) });
}
