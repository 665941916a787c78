/**
 * Restoring reads the archive as a stream: an archive several times larger than a small memory
 * bound restores whole while the reader never holds more than the bound (its own count of the
 * bytes it held: a chunk, a line not yet ended and the rows waiting to be written); and a part
 * found damaged at its end undoes the rows written before it. A proctor's flag travels with its session.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { exportContext } from './context';
import { studyArchive } from './archive';
import { type ReadStats, restoreStudy } from './restore';
import { readZip, zipStream } from './zip';

const T0 = Date.UTC(2026, 5, 1, 9);
const STUDY = {
  title: 'Long logs',
  consent: 'Yes.',
  completion: { code: 'C' },
  items: [{ kind: 'page', id: 'p', markdown: 'Hello.' }],
};
const SESSIONS = 2;
const EVENTS = 2000;
/** The memory the reader may hold at once. */
const BOUND = 512 * 1024;
const AUDIT = { actor: 'researcher', reason: null, at: T0 };

/** Text that does not compress away: the archive's file is as large as its rows, nearly. */
const noise = (i: number) =>
  Array.from({ length: 8 }, (_, k) => createHash('sha256').update(`${i}:${k}`).digest('hex')).join('');

describe('restoring an archive', () => {
  let store: Store;
  let dir: string;
  let file: string;
  const ids = Array.from({ length: SESSIONS }, (_, k) => `long-${k}`);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-restore-'));
    store = await backends.find((b) => b.name === 'pglite')!.open();
    await store.saveStudy('long', STUDY, 'file', T0);
    for (const id of ids) {
      await store.createSession({
        id,
        studyId: 'long',
        studyVersion: 1,
        tokenHash: `h-${id}`,
        params: { PROLIFIC_PID: id },
        seed: 1,
        order: [0],
        createdAt: T0,
      });
      for (let from = 0; from < EVENTS; from += 1000)
        await store.appendEvents(
          id,
          Array.from({ length: 1000 }, (_, i) => ({
            seq: from + i,
            t: from + i,
            kind: 'note',
            data: { n: noise(from + i) },
          })),
          { receivedAt: T0, pastSessionLimit: false },
        );
    }
    await store.centre.addNote({
      sessionId: ids[0],
      studyId: 'long',
      at: T0 + 10,
      actor: 'proctor',
      personId: null,
      text: 'Took a break.',
      flag: true,
    });
    const ctx = await exportContext({ store, studyId: 'long', library: null, replay: null, now: T0 + 1000 });
    const chunks: Buffer[] = [];
    for await (const c of studyArchive(ctx)) chunks.push(c);
    file = path.join(dir, 'long-archive.zip');
    writeFileSync(file, Buffer.concat(chunks));
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds at most a small bound of an archive many times larger, and restores it whole', async () => {
    const before = await Promise.all(ids.map((id) => store.readEvents(id)));
    const notes = (await store.centre.notes('long')).map(({ id: _, ...n }) => n);
    expect(notes).toHaveLength(1);
    await store.deleteStudy('long', AUDIT);
    expect(await store.getStudy('long')).toBeNull();

    const stats: ReadStats = { peakBytes: 0, bytesRead: 0 };
    const report = await restoreStudy(store, file, { merge: false, stats });
    expect(statSync(file).size).toBeGreaterThan(2 * BOUND);
    expect(stats.bytesRead).toBeGreaterThan(3 * BOUND);
    expect(stats.peakBytes).toBeGreaterThan(0);
    expect(stats.peakBytes).toBeLessThan(BOUND);
    expect(report.rows.events).toEqual({ added: SESSIONS * EVENTS, present: 0 });
    expect(await Promise.all(ids.map((id) => store.readEvents(id)))).toEqual(before);
    // A proctor's flag went with its session, and came back with the archive.
    expect(report.rows.centre_notes).toEqual({ added: 1, present: 0 });
    expect((await store.centre.notes('long')).map(({ id: _, ...n }) => n)).toEqual(notes);
  });

  it('undoes every row written before a part found damaged at its end', async () => {
    // One event's text changed and the ZIP written again whole: only the manifest's SHA-256 tells,
    // once the events part has been read to its end (after the study and its sessions were written).
    const tampered = readZip(readFileSync(file)).map((e) =>
      e.name === 'parts/events.jsonl'
        ? { name: e.name, data: [e.data.toString('utf8').replace(noise(EVENTS - 1), 'changed')] }
        : { name: e.name, data: [e.data] },
    );
    const chunks: Buffer[] = [];
    for await (const c of zipStream(tampered)) chunks.push(c);
    const bad = path.join(dir, 'tampered.zip');
    writeFileSync(bad, Buffer.concat(chunks));
    await store.deleteStudy('long', AUDIT);

    await expect(restoreStudy(store, bad, { merge: false })).rejects.toThrow(
      /parts\/events\.jsonl fails its SHA-256 check/,
    );
    expect(await store.getStudy('long')).toBeNull();
    expect(await store.getSession(ids[0])).toBeNull();
  });
});
