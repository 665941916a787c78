/**
 * Reading a study's archive (`archive.ts`) back: every part checked against the manifest (its
 * SHA-256 and row count) and every row against the study it must belong to, before anything is
 * written; then the rows restored in one transaction (`store.archives.restoreArchive`).
 */
import { createHash } from 'node:crypto';
import { ARCHIVE_TABLES, type ArchivePart, type RestoredRows, isArchiveTable } from '../store/archiveStore';
import type { ArchiveStore } from '../store/archiveStore';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  ARCHIVE_MANIFEST,
  type ArchiveManifest,
  type ArchivePartEntry,
  SCHEMA_VERSION,
} from './archive';
import { ZipError, readZip } from './zip';
import { loggedStepText, stepSigningText } from '../../core/game/serverGame';
import { stepSignature, stepSigningKey } from '../arc3/replayCheck';
import type { SecretStore } from '../store/types';

/** An archive that cannot be restored; the message names the part and says what to do. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

/** An archive read and checked: its manifest and its rows per table. */
export interface ReadArchive {
  readonly manifest: ArchiveManifest;
  readonly parts: readonly ArchivePart[];
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

interface Owners {
  readonly study: string;
  readonly sessions: Set<string>;
  readonly runs: Set<string>;
  readonly codes: Set<string>;
}

/** Reads one part's rows, checking its hash and count against the manifest. */
function partRows(entry: ArchivePartEntry, data: Buffer | undefined): Record<string, unknown>[] {
  if (!data)
    throw new ArchiveError(
      `the archive's part ${entry.file} is missing; the archive is incomplete. Nothing was restored.`,
    );
  const sha = createHash('sha256').update(data).digest('hex');
  if (sha !== entry.sha256)
    throw new ArchiveError(
      `the archive's part ${entry.file} fails its SHA-256 check (the manifest says ${entry.sha256.slice(0, 12)}..., the part is ${sha.slice(0, 12)}...): the archive is damaged. Nothing was restored; restore from another copy.`,
    );
  const text = data.toString('utf8');
  const lines = text ? text.replace(/\n$/, '').split('\n') : [];
  if (lines.length !== entry.rows)
    throw new ArchiveError(
      `the archive's part ${entry.file} holds ${lines.length} rows where the manifest says ${entry.rows}: the archive is damaged. Nothing was restored.`,
    );
  return lines.map((line, i) => {
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      row = null;
    }
    if (!isRecord(row))
      throw new ArchiveError(
        `line ${i + 1} of the archive's part ${entry.file} is not a JSON object: the archive is damaged. Nothing was restored.`,
      );
    return row;
  });
}

/**
 * Reads and checks an archive held in memory.
 * @throws ArchiveError naming the part that is missing, damaged or not of the study.
 */
export function readArchive(zip: Buffer): ReadArchive {
  let entries;
  try {
    entries = readZip(zip);
  } catch (e) {
    // A ZipError names the entry; anything else is a file cut short or not a ZIP at all.
    const why = e instanceof ZipError ? e.message : `it is not a whole ZIP file (${(e as Error).message}).`;
    throw new ArchiveError(`the archive is damaged: ${why} Nothing was restored; restore from another copy.`);
  }
  const files = new Map(entries.map((e) => [e.name, e.data]));
  const head = files.get(ARCHIVE_MANIFEST);
  if (!head)
    throw new ArchiveError(
      `the file holds no ${ARCHIVE_MANIFEST}: it is not an ARC Studio archive (write one with the export format "archive").`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(head.toString('utf8'));
  } catch {
    throw new ArchiveError(`${ARCHIVE_MANIFEST} is not JSON: the archive is damaged.`);
  }
  const manifest = checkManifest(parsed);
  const owners: Owners = { study: manifest.study, sessions: new Set(), runs: new Set(), codes: new Set() };
  const parts: ArchivePart[] = [];
  // In the manifest's order, which is the tables' order: sessions before their rows, runs before their steps.
  const ordered = [...manifest.parts].sort(
    (a, b) => Object.keys(ARCHIVE_TABLES).indexOf(a.table) - Object.keys(ARCHIVE_TABLES).indexOf(b.table),
  );
  for (const entry of ordered) {
    const rows = partRows(entry, files.get(entry.file));
    rows.forEach((row, i) => {
      if (!ownerCheck(entry.table, row, owners))
        throw new ArchiveError(
          `line ${i + 1} of the archive's part ${entry.file} is not a row of study "${manifest.study}" or of its sessions: the archive is not one study's. Nothing was restored.`,
        );
    });
    if (entry.table === 'sessions') for (const r of rows) owners.sessions.add(String(r.id));
    if (entry.table === 'game_runs')
      for (const r of rows) {
        owners.runs.add(String(r.run_id));
        if (typeof r.code_hash === 'string') owners.codes.add(`${String(r.game_id)}@${r.code_hash}`);
      }
    parts.push({ table: entry.table, rows });
  }
  return { manifest, parts };
}

/** What a restore did: the study and the rows per table. */
export interface RestoreReport {
  readonly study: string;
  readonly rows: RestoredRows;
}

/**
 * Restores an archive onto a store: checked whole first, then written in one transaction.
 * @throws ArchiveError for an archive that cannot be read; `ArchiveConflict` for a study the
 * store has already (without `merge`) or one that cannot be merged.
 */
export async function restoreStudy(
  store: { readonly archives: ArchiveStore } & SecretStore,
  zip: Buffer,
  opts: { merge: boolean },
): Promise<RestoreReport> {
  const { manifest, parts } = readArchive(zip);
  const signed = signedAgain(parts, await stepSigningKey(store));
  return { study: manifest.study, rows: await store.archives.restoreArchive(manifest.study, signed, opts) };
}

/**
 * The parts with each logged step of a server-run game signed again with this database's key,
 * where the step is the one the archive's stored steps say the server answered (the signing text
 * of the two is the same): the writing server's signatures are under a key that stays with it,
 * and a log is verified by them. A logged step that differs from its stored step keeps the
 * signature it had, and is no more verified here than it was there.
 */
function signedAgain(parts: readonly ArchivePart[], key: Uint8Array): ArchivePart[] {
  const rowsOf = (t: ArchivePart['table']) => parts.filter((p) => p.table === t).flatMap((p) => p.rows);
  const games = new Map(rowsOf('game_runs').map((r) => [String(r.run_id), String(r.game_id)]));
  const answered = new Map<string, string>();
  for (const s of rowsOf('game_steps')) {
    const run = String(s.run_id);
    const text = stepSigningText({
      run,
      game: games.get(run) ?? '',
      step: Number(s.step),
      action: String(s.action),
      x: s.x,
      y: s.y,
      level: s.levels_completed,
      state: s.state,
      frameHash: s.frame_hash,
    });
    answered.set(`${run}\u0000${String(s.step)}`, text);
  }
  const resign = (e: Record<string, unknown>): Record<string, unknown> => {
    const d = e.data as Record<string, unknown> | null;
    if (e.kind !== 'game.action' || !isRecord(d) || typeof d.run !== 'string' || typeof d.step !== 'number') return e;
    const stored = answered.get(`${d.run}\u0000${d.step}`);
    const text = loggedStepText(d.run, String(d.game), d);
    return stored === text ? { ...e, data: { ...d, sig: stepSignature(key, text) } } : e;
  };
  return parts.map((p) => (p.table === 'events' ? { table: p.table, rows: p.rows.map(resign) } : p));
}
