/**
 * A study's rows read as an archive holds them and written back on another database: whole
 * once, refused the second time, and merged without a row twice, a session that went on since
 * taking the archive's later row; two different studies of one id are never merged; a testing
 * centre's stations, check-ins, notes, flags and breaks and the study's Prolific tables travel too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backends, seedDataDir } from './testing';
import { openStore } from './open';
import type { Store } from './types';
import { ARCHIVE_TABLES, ARCHIVE_TABLE_NAMES, ArchiveConflict, type ArchivePart } from './archiveStore';

const T0 = Date.UTC(2026, 2, 1, 10);
const STUDY = { title: 'Kept', consent: 'Yes.', completion: { code: 'C' }, items: [{ kind: 'page', id: 'p' }] };

/** Every row of the study in `store`, as the archive's parts (read the way the archive writer reads them). */
async function partsOf(store: Store, studyId: string): Promise<ArchivePart[]> {
  const sessions = (await store.listSessions(studyId)).map((s) => s.id);
  const parts: ArchivePart[] = [];
  for (const table of ARCHIVE_TABLE_NAMES) {
    if (table === 'studies' || table === 'events') {
      const owners = table === 'studies' ? [studyId] : sessions;
      const rows = [];
      for (const owner of owners)
        rows.push(...JSON.parse((await store.archives.readArchivePage(table, owner, -1, 1000)).json));
      parts.push({ table, rows });
    } else if (ARCHIVE_TABLES[table].by === 'study') {
      parts.push({ table, rows: JSON.parse(await store.archives.readArchiveRows(table, [studyId])) });
    } else if (table !== 'game_steps' && table !== 'game_code') {
      parts.push({ table, rows: JSON.parse(await store.archives.readArchiveRows(table, sessions)) });
    }
  }
  return parts;
}

const events = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ({
    seq: from + i,
    t: (from + i) * 12.5,
    kind: 'note',
    data: { i: from + i },
  }));

describe.each(backends)('archived rows on $name', (backend) => {
  const open: Store[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });
  const store = async () => {
    const s = await backend.open();
    open.push(s);
    return s;
  };
  /**
   * Another database: on PostgreSQL a schema of its own; PGlite's stores of one file share its
   * search path, so there a data folder of its own.
   */
  const other = async () => {
    if (backend.name === 'postgres') return store();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-archive-store-'));
    seedDataDir(dataDir);
    const s = await openStore({ dataDir });
    open.push({ close: () => s.close().finally(() => rmSync(dataDir, { recursive: true, force: true })) } as Store);
    return s;
  };

  it('restores whole once, refuses a second time, and merges a later archive without a row twice', async () => {
    const source = await store();
    const target = await other();
    await source.saveStudy('kept', STUDY, 'file', T0);
    const session = (id: string) => ({
      id,
      studyId: 'kept',
      studyVersion: 1,
      tokenHash: `h-${id}`,
      params: { PROLIFIC_PID: id },
      seed: 3,
      order: [0],
      createdAt: T0,
    });
    await source.createSession(session('s1'));
    await source.appendEvents('s1', events(0, 3), { receivedAt: T0 + 1000, pastSessionLimit: false });

    const first = await target.archives.restoreArchive('kept', await partsOf(source, 'kept'), { merge: false });
    expect(first.sessions).toEqual({ added: 1, present: 0 });
    expect(first.events).toEqual({ added: 3, present: 0 });
    await expect(
      target.archives.restoreArchive('kept', await partsOf(source, 'kept'), { merge: false }),
    ).rejects.toThrow(ArchiveConflict);

    // The study went on where it was archived: s1 finished with two more events, s2 started.
    await source.appendEvents('s1', events(3, 5), { receivedAt: T0 + 2000, pastSessionLimit: false });
    await source.setSessionState('s1', 'finished', { finishedAt: T0 + 3000 });
    await source.createSession(session('s2'));
    await source.appendEvents('s2', events(0, 2), { receivedAt: T0 + 4000, pastSessionLimit: false });
    await target.saveDigest('s1', 'old-key', { stale: true }, T0);

    const merged = await target.archives.restoreArchive('kept', await partsOf(source, 'kept'), { merge: true });
    expect(merged.studies).toEqual({ added: 0, present: 1 });
    expect(merged.sessions).toEqual({ added: 2, present: 0 });
    expect(merged.events).toEqual({ added: 4, present: 3 });
    for (const id of ['s1', 's2']) {
      const { eventCount, ackedThrough, state, finishedAt } = (await source.getSession(id))!;
      expect(await target.getSession(id)).toMatchObject({ eventCount, ackedThrough, state, finishedAt });
      expect(await target.readEvents(id)).toEqual(await source.readEvents(id));
    }
    expect((await target.readDigests('kept')).size).toBe(0);

    // Merging the same archive again adds nothing.
    const again = await target.archives.restoreArchive('kept', await partsOf(source, 'kept'), { merge: true });
    expect(again.events).toEqual({ added: 0, present: 7 });
    expect(again.sessions).toEqual({ added: 0, present: 2 });
  });

  it("brings back the centre's stations, check-ins, notes, flags and breaks and the Prolific tables, once", async () => {
    const source = await store();
    const target = await other();
    await source.saveStudy('kept', STUDY, 'file', T0);
    await source.createSession({
      id: 'c1',
      studyId: 'kept',
      studyVersion: 1,
      tokenHash: 'h-c1',
      params: { PROLIFIC_PID: 'pp1' },
      seed: 3,
      order: [0],
      createdAt: T0,
    });
    const station = { id: 'st1', studyId: 'kept', name: 'Desk 1', secretHash: 'sh1', createdAt: T0, createdBy: 'lab' };
    await source.centre.addStation(station);
    await source.centre.setPending('kept', 'st1', 'next-person');
    await source.centre.checkIn({
      sessionId: 'c1',
      stationId: 'st1',
      studyId: 'kept',
      participant: 'pp1',
      checkedInAt: T0,
    });
    await source.centre.pause('c1', T0 + 100);
    await source.centre.resume('c1', T0 + 200);
    const note = { sessionId: 'c1', studyId: 'kept', actor: 'proctor', personId: null };
    await source.centre.addNote({ ...note, at: T0 + 300, text: 'Asked for water.', flag: false });
    await source.centre.addNote({ ...note, at: T0 + 400, text: 'Looked at a phone.', flag: true });
    await source.prolific.seeSubmission({
      studyId: 'kept',
      submissionId: 'sub1',
      participantId: 'pp1',
      status: 'RETURNED',
      via: 'webhook',
      at: T0 + 500,
    });
    await source.prolific.addBatch(
      {
        id: 'b1',
        studyId: 'kept',
        prolificStudyId: 'P1',
        lines: [{ participantId: 'pp1', submissionId: 'sub1', cents: 125 }],
      },
      T0 + 600,
    );

    const rows = await target.archives.restoreArchive('kept', await partsOf(source, 'kept'), { merge: false });
    expect(rows.centre_notes).toEqual({ added: 2, present: 0 });
    expect(rows.prolific_bonus_lines).toEqual({ added: 1, present: 0 });
    const centre = async (s: Store) => ({
      stations: await s.centre.listStations('kept'),
      checkins: await s.centre.checkins('kept'),
      notes: (await s.centre.notes('kept')).map(({ id: _, ...n }) => n),
      pauses: (await s.getSession('c1'))!.pauses,
      submissions: await s.prolific.seenSubmissions('kept'),
      batches: await s.prolific.batches('kept'),
    });
    const before = await centre(source);
    expect(before.notes.map((n) => n.flag)).toEqual([false, true]);
    expect(before.pauses).toHaveLength(1);
    expect(before.batches[0].lines).toHaveLength(1);
    expect(await centre(target)).toEqual(before);

    // Merged again: no note (whose id each database makes) nor any other row twice.
    const again = await target.archives.restoreArchive('kept', await partsOf(source, 'kept'), { merge: true });
    expect(again.centre_notes).toEqual({ added: 0, present: 2 });
    expect(again.prolific_submissions).toEqual({ added: 0, present: 1 });
    expect(await centre(target)).toEqual(before);
  });

  it('never merges two different studies of one id', async () => {
    const source = await store();
    const target = await other();
    await source.saveStudy('kept', STUDY, 'file', T0);
    await target.saveStudy('kept', { ...STUDY, title: 'Another study' }, 'file', T0);
    const parts = await partsOf(source, 'kept');
    await expect(target.archives.restoreArchive('kept', parts, { merge: true })).rejects.toThrow(
      /another definition for version 1/,
    );
    expect((await target.getStudy('kept'))!.definition).toMatchObject({ title: 'Another study' });
  });
});
