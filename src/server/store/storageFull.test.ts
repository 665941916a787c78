/**
 * The state of the database's disk (`storageFull.ts`): which errors mean a full disk, which
 * statements count as writes, and when the state begins, ends and is logged. The disk itself is
 * filled for real in `diskFull.test.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StorageFullError, StorageWatch, isDiskFull, mayWrite, reserveFromEnv, storageFull } from './storageFull';

describe('a full disk', () => {
  it('is ENOSPC, SQLSTATE 53100 or its message, found through the causes', () => {
    const pg = Object.assign(new Error('could not extend file "base/5/16385": No space left on device'), {
      code: '53100',
    });
    expect(isDiskFull(pg)).toBe(true);
    expect(isDiskFull(Object.assign(new Error('write failed'), { code: 'ENOSPC' }))).toBe(true);
    expect(isDiskFull(new Error('saving', { cause: pg }))).toBe(true);
    expect(isDiskFull(new Error('duplicate key value violates unique constraint'))).toBe(false);
    expect(isDiskFull('No space left on device')).toBe(false);
    const wrapped = new StorageFullError(pg);
    expect(storageFull(new Error('appending', { cause: wrapped }))).toBe(wrapped);
    expect(storageFull(pg)).toBeNull();
  });

  it('lets plain reads through and counts anything else as a write', () => {
    expect(mayWrite('SELECT * FROM events')).toBe(false);
    expect(mayWrite('  -- the session\n  select 1')).toBe(false);
    expect(mayWrite('WITH s AS (SELECT 1) SELECT * FROM s')).toBe(false);
    expect(mayWrite('WITH n AS (INSERT INTO events VALUES (1) RETURNING 1) SELECT * FROM n')).toBe(true);
    expect(mayWrite('WITH s AS (SELECT id FROM sessions FOR UPDATE) SELECT 1')).toBe(true);
    expect(mayWrite('INSERT INTO events VALUES (1)')).toBe(true);
    expect(mayWrite('UPDATE sessions SET state = $1')).toBe(true);
    expect(mayWrite('CREATE TABLE t (x int)')).toBe(true);
  });

  it('reads its reserve from ARC_STUDIO_MIN_FREE_MB, refusing one under two WAL segments', () => {
    expect(reserveFromEnv({})).toBe(64 * 1024 * 1024);
    expect(reserveFromEnv({ ARC_STUDIO_MIN_FREE_MB: '256' })).toBe(256 * 1024 * 1024);
    expect(() => reserveFromEnv({ ARC_STUDIO_MIN_FREE_MB: '8' })).toThrow(/at least 32/);
    expect(() => reserveFromEnv({ ARC_STUDIO_MIN_FREE_MB: 'lots' })).toThrow(/ARC_STUDIO_MIN_FREE_MB=lots/);
  });

  it('on PostgreSQL begins at a refused write, is logged once, and ends at a write 5 s after the last refusal', () => {
    let now = 1_000_000;
    const lines: string[] = [];
    const watch = new StorageWatch({ log: (l) => lines.push(l), now: () => now });
    const refusal = Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' });
    expect(watch.failed(refusal)).toBeInstanceOf(StorageFullError);
    watch.failed(refusal);
    expect(watch.report()).toMatchObject({ full: true, since: 1_000_000 });
    expect(watch.report().message).toMatch(/Free space on PostgreSQL's disk/);
    // The server cannot see PostgreSQL's disk: nothing is refused before PostgreSQL refuses it.
    expect(watch.refusing).toBe(false);
    expect(() => watch.guard()).not.toThrow();
    now += 4_000;
    watch.wrote();
    expect(watch.full).toBe(true);
    now += 1_000;
    watch.wrote();
    expect(watch.report()).toEqual({ full: false });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^The database's disk is full: PostgreSQL refused a write/);
    expect(lines[1]).toMatch(/^The database's disk has room again .*writing resumed after 5 s/);
  });

  it("on PGlite measures its folder's disk against the reserve", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-storage-watch-'));
    try {
      const lines: string[] = [];
      // A reserve no disk has: full at the first measurement, and every write refused before the database.
      const full = new StorageWatch({ dir, reserveBytes: Number.MAX_SAFE_INTEGER, log: (l) => lines.push(l) });
      await full.start();
      full.stop();
      expect(full.refusing).toBe(true);
      expect(() => full.guard()).toThrow(StorageFullError);
      expect(full.report()).toMatchObject({ full: true, reserveBytes: Number.MAX_SAFE_INTEGER });
      expect(full.report().freeBytes).toBeGreaterThanOrEqual(0);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/ARC_STUDIO_MIN_FREE_MB/);

      const roomy = new StorageWatch({ dir, reserveBytes: 1, log: (l) => lines.push(l) });
      await roomy.start();
      roomy.stop();
      expect(roomy.refusing).toBe(false);
      expect(roomy.report().full).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
