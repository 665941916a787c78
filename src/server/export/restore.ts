/**
 * Reading a study's archive (`archive.ts`) back from its file as a stream: each part's rows a
 * batch at a time, every row checked against the study it must belong to before it is written,
 * each part's SHA-256 and row count against the manifest as it ends, all in one transaction
 * (`store.archives.restoreArchive`) that a failed check undoes. Memory stays that of a batch,
 * whatever the archive's size.
 */
import { createHash } from 'node:crypto';
import {
  ARCHIVE_TABLES,
  type ArchivePart,
  type ArchiveStore,
  type RestoredRows,
  type StoredStep,
  isArchiveTable,
} from '../store/archiveStore';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  ARCHIVE_MANIFEST,
  type ArchiveManifest,
  type ArchivePartEntry,
  SCHEMA_VERSION,
} from './archive';
import { ZipError } from './zip';
import { ZipFile } from './zipFile';
import { loggedStepText, stepSigningText } from '../../core/game/serverGame';
import { stepSignature, stepSigningKey } from '../arc3/replayCheck';
import type { SecretStore } from '../store/types';

/** An archive that cannot be restored; the message names the part and says what to do. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkManifest(v: unknown): ArchiveManifest {
  const bad = (why: string): never => {
    throw new ArchiveError(`${ARCHIVE_MANIFEST} ${why}; this is not an ARC Studio archive, or it is damaged.`);
  };
  if (!isRecord(v) || v.format !== ARCHIVE_FORMAT) return bad(`does not say "format": "${ARCHIVE_FORMAT}"`);
  if (typeof v.formatVersion !== 'number' || v.formatVersion > ARCHIVE_FORMAT_VERSION)
    throw new ArchiveError(
      `the archive's layout is version ${String(v.formatVersion)}, and this ARC Studio reads up to version ${ARCHIVE_FORMAT_VERSION}: restore it with a later ARC Studio.`,
    );
  if (typeof v.schema !== 'number' || v.schema > SCHEMA_VERSION)
    throw new ArchiveError(
      `the archive was written by a server whose database schema is at migration ${String(v.schema)}, and this ARC Studio knows migrations up to ${SCHEMA_VERSION}: restore it with that version of ARC Studio or a later one.`,
    );
  if (typeof v.study !== 'string' || !v.study) return bad('names no study');
  if (!Array.isArray(v.parts)) return bad('lists no parts');
  for (const p of v.parts as unknown[]) {
    if (!isRecord(p) || typeof p.file !== 'string' || typeof p.sha256 !== 'string' || typeof p.rows !== 'number')
      return bad('lists a part without its file, rows and sha256');
    if (!isArchiveTable(p.table))
      throw new ArchiveError(
        `the archive's part ${p.file} holds table ${JSON.stringify(p.table)}, which this ARC Studio does not know: restore it with the version that wrote it or a later one.`,
      );
  }
  return v as unknown as ArchiveManifest;
}

/** Where each row of a part must point: the column and the ids it may hold. */
function ownerCheck(table: ArchivePart['table'], row: Record<string, unknown>, owners: Owners): boolean {
  const spec: { by: string } = ARCHIVE_TABLES[table];
  if (table === 'studies') return row.id === owners.study;
  if (spec.by === 'study') return row.study_id === owners.study;
  if (spec.by === 'session') return owners.sessions.has(String(row.session_id));
  if (spec.by === 'run') return owners.runs.has(String(row.run_id));
  return owners.codes.has(`${String(row.game_id)}@${String(row.code_hash)}`);
}

/** The ids read so far that later parts' rows must point to. */
interface Owners {
  readonly study: string;
  readonly sessions: Set<string>;
  readonly runs: Set<string>;
  readonly codes: Set<string>;
}

/** Rows handed to the database at a time, at most: so many, or so many bytes of their lines. */
const BATCH_ROWS = 1000;
const BATCH_BYTES = 256 * 1024;
/** The largest manifest read. */
const MANIFEST_BYTES = 16 * 1024 * 1024;

/** What the reader held at most at once while restoring: for a caller that must know its memory is bounded. */
export interface ReadStats {
  /** The most bytes held at once: the chunk read, a line not yet ended, and the rows waiting to be written. */
  peakBytes: number;
  /** The parts' bytes read (inflated). */
  bytesRead: number;
}

/** A ZIP error, or anything else a damaged file throws, as the archive's error. */
function damaged(e: unknown): ArchiveError {
  if (e instanceof ArchiveError) return e;
  const why = e instanceof ZipError ? e.message : `it is not a whole ZIP file (${(e as Error).message}).`;
  return new ArchiveError(`the archive is damaged: ${why} Nothing was restored; restore from another copy.`);
}

/** The manifest, read and checked. */
async function readManifest(zip: ZipFile): Promise<ArchiveManifest> {
  const head = zip.entries.get(ARCHIVE_MANIFEST);
  if (!head)
    throw new ArchiveError(
      `the file holds no ${ARCHIVE_MANIFEST}: it is not an ARC Studio archive (write one with the export format "archive").`,
    );
  if (head.usize > MANIFEST_BYTES)
    throw new ArchiveError(`${ARCHIVE_MANIFEST} is larger than an archive's manifest is: the archive is damaged.`);
  const chunks: Buffer[] = [];
  for await (const c of zip.read(head)) chunks.push(c);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ArchiveError(`${ARCHIVE_MANIFEST} is not JSON: the archive is damaged.`);
  }
  return checkManifest(parsed);
}

/**
 * One part's rows, in batches, each checked against the study it must belong to; its SHA-256 and
 * row count are checked against the manifest as it ends (the restore's transaction is undone
 * when either is wrong).
 */
async function* partBatches(
  zip: ZipFile,
  entry: ArchivePartEntry,
  owners: Owners,
  stats: ReadStats,
): AsyncGenerator<ArchivePart> {
  const found = zip.entries.get(entry.file)!;
  const hash = createHash('sha256');
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let batch: Record<string, unknown>[] = [];
  let batchBytes = 0;
  let lineNo = 0;
  const take = (line: Buffer): void => {
    lineNo++;
    let row: unknown;
    try {
      row = JSON.parse(line.toString('utf8'));
    } catch {
      row = null;
    }
    if (!isRecord(row))
      throw new ArchiveError(
        `line ${lineNo} of the archive's part ${entry.file} is not a JSON object: the archive is damaged. Nothing was restored.`,
      );
    if (!ownerCheck(entry.table, row, owners))
      throw new ArchiveError(
        `line ${lineNo} of the archive's part ${entry.file} is not a row of study "${owners.study}" or of its sessions: the archive is not one study's. Nothing was restored.`,
      );
    if (entry.table === 'sessions') owners.sessions.add(String(row.id));
    if (entry.table === 'game_runs') {
      owners.runs.add(String(row.run_id));
      if (typeof row.code_hash === 'string') owners.codes.add(`${String(row.game_id)}@${row.code_hash}`);
    }
    batch.push(row);
    batchBytes += line.length;
  };
  const full = () => batch.length >= BATCH_ROWS || batchBytes >= BATCH_BYTES;
  const flush = (): ArchivePart => {
    const part = { table: entry.table, rows: batch };
    batch = [];
    batchBytes = 0;
    return part;
  };
  try {
    for await (const chunk of zip.read(found)) {
      hash.update(chunk);
      stats.bytesRead += chunk.length;
      stats.peakBytes = Math.max(stats.peakBytes, chunk.length + pendingBytes + batchBytes);
      let from = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, from)) {
        const piece = chunk.subarray(from, nl);
        take(pending.length ? Buffer.concat([...pending, piece]) : piece);
        pending = [];
        pendingBytes = 0;
        from = nl + 1;
        if (full()) yield flush();
      }
      if (from < chunk.length) {
        // A copy: the chunk's memory is not kept for the sake of a line's start.
        pending.push(Buffer.from(chunk.subarray(from)));
        pendingBytes += chunk.length - from;
      }
    }
  } catch (e) {
    throw damaged(e);
  }
  if (pendingBytes) take(Buffer.concat(pending));
  if (batch.length) yield flush();
  const sha = hash.digest('hex');
  if (sha !== entry.sha256)
    throw new ArchiveError(
      `the archive's part ${entry.file} fails its SHA-256 check (the manifest says ${entry.sha256.slice(0, 12)}..., the part is ${sha.slice(0, 12)}...): the archive is damaged. Nothing was restored; restore from another copy.`,
    );
  if (lineNo !== entry.rows)
    throw new ArchiveError(
      `the archive's part ${entry.file} holds ${lineNo} rows where the manifest says ${entry.rows}: the archive is damaged. Nothing was restored.`,
    );
}

/** Every part's rows in batches, in the tables' order: sessions before their rows, runs before their steps. */
async function* archiveParts(zip: ZipFile, manifest: ArchiveManifest, stats: ReadStats): AsyncGenerator<ArchivePart> {
  const owners: Owners = { study: manifest.study, sessions: new Set(), runs: new Set(), codes: new Set() };
  const order = Object.keys(ARCHIVE_TABLES);
  const ordered = [...manifest.parts].sort((a, b) => order.indexOf(a.table) - order.indexOf(b.table));
  for (const entry of ordered) yield* partBatches(zip, entry, owners, stats);
}

/** What a restore did: the study and the rows per table. */
export interface RestoreReport {
  readonly study: string;
  readonly rows: RestoredRows;
}

/**
 * Restores the archive in `file` onto a store, reading it as a stream (a part's rows a batch at a
 * time, never the whole file) into one transaction: a part found damaged or not of the study
 * undoes everything written before it.
 * @throws ArchiveError for an archive that cannot be read; `ArchiveConflict` for a study the
 * store has already (without `merge`) or one that cannot be merged.
 */
export async function restoreStudy(
  store: { readonly archives: ArchiveStore } & SecretStore,
  file: string,
  opts: { merge: boolean; stats?: ReadStats },
): Promise<RestoreReport> {
  const zip = await ZipFile.open(file).catch((e: unknown) => {
    throw damaged(e);
  });
  try {
    const manifest = await readManifest(zip).catch((e: unknown) => {
      throw damaged(e);
    });
    const missing = manifest.parts.find((p) => !zip.entries.has(p.file));
    if (missing)
      throw new ArchiveError(
        `the archive's part ${missing.file} is missing; the archive is incomplete. Nothing was restored.`,
      );
    const key = await stepSigningKey(store);
    const stats = opts.stats ?? { peakBytes: 0, bytesRead: 0 };
    const rows = await store.archives.restoreArchive(manifest.study, archiveParts(zip, manifest, stats), {
      merge: opts.merge,
      resign: (logged, stored) => signedAgain(key, logged, stored),
    });
    return { study: manifest.study, rows };
  } finally {
    await zip.close();
  }
}

/**
 * A logged step of a server-run game signed again with this database's key, where it is the step
 * the archive's stored step says the server answered (the signing text of the two is the same):
 * the writing server's signatures are under a key that stays with it, and a log is verified by
 * them. A logged step that differs from its stored step keeps the signature it had (null), and
 * is no more verified here than it was there.
 */
function signedAgain(key: Uint8Array, d: Record<string, unknown>, s: StoredStep): Record<string, unknown> | null {
  if (typeof d.run !== 'string' || typeof d.step !== 'number') return null;
  const answered = stepSigningText({
    run: s.run_id,
    game: s.game_id,
    step: s.step,
    action: s.action,
    x: s.x,
    y: s.y,
    level: s.levels_completed,
    state: s.state,
    frameHash: s.frame_hash,
  });
  const text = loggedStepText(d.run, String(d.game), d);
  if (answered !== text) return null;
  const sig = stepSignature(key, text);
  return d.sig === sig ? null : { ...d, sig };
}
