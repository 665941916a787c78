/**
 * A full disk is a clear state of the real `arc-studio serve`, on PGlite and on PostgreSQL: the
 * database's folder is on a small filesystem (a tmpfs mounted by the test, which needs root, as
 * CI runs), participants send events until it is full, and then every write is answered 503
 * `storage_full` with Retry-After, `/api/health` reports it, the log says it once with what to
 * do; the filesystem is grown under the server, writing resumes by itself, and every event a
 * participant was acknowledged is stored once. Every wait is on a condition.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startPgCluster } from './pgCluster';
import { seedDataDir } from './testing';
import { EventSender } from '../testing/eventSender';
import { kill9, serveFolders, startServe, type ServeProcess } from '../testing/serve';
import type { StorageReport } from './storageFull';

const ADMIN = 'disk-full-test-researcher-token-0123456789';
const PARTICIPANTS = 6;
const WAIT = { timeout: 180_000, interval: 100 };
/** Random, so that neither PostgreSQL nor PGlite compresses it: the disk fills with what is sent. */
const event = (seq: number) => ({ kind: 'heartbeat', data: { i: seq, pad: randomBytes(3000).toString('base64') } });
const LIMITS = {
  ARC_STUDIO_SESSION_EVENTS_PER_SECOND: '100000',
  ARC_STUDIO_SESSION_BURST_EVENTS: '100000',
  ARC_STUDIO_SESSION_KB_PER_SECOND: '1000000',
  ARC_STUDIO_SESSION_BURST_MB: '1000',
};

/** A tmpfs of `mib` MiB mounted on `dir` (made when missing). */
function smallDisk(dir: string, mib: number) {
  if (process.getuid?.() !== 0)
    throw new Error(
      'This test mounts a small filesystem (tmpfs) and needs root, as CI runs it: run it as root, or in a container.',
    );
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mib}m`, 'tmpfs', dir]);
  return {
    grow: (to: number) => void execFileSync('mount', ['-o', `remount,size=${to}m`, dir]),
    unmount: () => void execFileSync('umount', ['-l', dir]),
  };
}

const health = async (url: string) =>
  (await (await fetch(`${url}/api/health`)).json()) as { ok: boolean; storage: StorageReport };

const count = (text: string, line: string) => text.split(line).length - 1;

describe('a full disk', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** Participants fill the disk, then it grows: the checks of the file's header, on `server`. */
  async function fillAndGrow(server: ServeProcess, grow: () => void, what: RegExp) {
    const participants = await Promise.all(
      Array.from({ length: PARTICIPANTS }, () => EventSender.join(server.url, { perBatch: 40, event })),
    );
    for (const p of participants) p.start();
    const up = () => {
      if (server.proc.exitCode !== null || server.proc.signalCode !== null)
        throw new Error(`serve ended (${server.proc.exitCode ?? server.proc.signalCode}):\n${server.output()}`);
      const lost = participants.flatMap((p) => p.lost);
      if (lost.length) throw new Error(`acknowledged events lost: ${lost.join('; ')}`);
    };
    const refusedFull = () => {
      up();
      return participants.flatMap((p) => p.refusals).filter((r) => r.error === 'storage_full').length;
    };
    await expect.poll(refusedFull, WAIT).toBeGreaterThan(PARTICIPANTS);
    const full = await health(server.url);
    expect(full.ok).toBe(true);
    expect(full.storage.full).toBe(true);
    expect(full.storage.message).toMatch(what);
    // Said once, with what to do, however many writes were refused.
    expect(count(server.output(), "The database's disk is full")).toBe(1);
    expect(server.output()).toMatch(/Free space on .*writing resumes by itself/);
    // Every refusal is the retriable one, saying when to come back.
    for (const r of participants.flatMap((p) => p.refusals)) {
      expect(r.status).toBe(503);
      expect(['storage_full', 'overloaded']).toContain(r.error);
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    const before = participants.map((p) => p.acked);

    grow();
    await expect
      .poll(async () => {
        up();
        return (await health(server.url)).storage.full;
      }, WAIT)
      .toBe(false);
    // Writing resumed by itself: every participant gets past what it had acknowledged.
    await expect
      .poll(() => {
        up();
        return participants.every((p, i) => p.acked > before[i]);
      }, WAIT)
      .toBe(true);
    await Promise.all(participants.map((p) => p.finish()));
    expect(count(server.output(), "The database's disk has room again")).toBe(1);
    expect(participants.flatMap((p) => p.networkErrors)).toEqual([]);
    for (const p of participants) expect(await p.storedOnce(ADMIN)).toBeNull();
    expect(server.output()).not.toMatch(/Unhandled|uncaught/i);
  }

  it('on PGlite: the reserve keeps it answering, and writing resumes when the disk grows', async () => {
    const { dist, dataDir, remove } = serveFolders('arc-studio-disk-full-');
    cleanups.push(remove);
    // The database takes some 40 MiB; 48 are kept free, so about 12 MiB of events fill it.
    const disk = smallDisk(dataDir, 100);
    cleanups.push(disk.unmount);
    seedDataDir(dataDir);
    const server = await startServe({
      dataDir,
      dist,
      port: await freePort(),
      adminToken: ADMIN,
      env: { ...LIMITS, ARC_STUDIO_MIN_FREE_MB: '48' },
    });
    cleanups.push(() => kill9(server));
    await fillAndGrow(server, () => disk.grow(200), /ARC_STUDIO_MIN_FREE_MB/);
  });

  it('on PostgreSQL: its disk_full is answered 503, and writing resumes when the disk grows', async () => {
    const { tmp, dist, dataDir, remove } = serveFolders('arc-studio-disk-full-pg-');
    cleanups.push(remove);
    // The data on a small disk, the write-ahead log beside it on a large one: PostgreSQL
    // refuses a write it cannot store (53100) and goes on.
    // PostgreSQL runs as its own user, which must reach both folders.
    chmodSync(tmp, 0o755);
    const pgData = path.join(tmp, 'pgdata');
    const pgWal = path.join(tmp, 'pgwal');
    mkdirSync(pgWal);
    const disk = smallDisk(pgData, 64);
    cleanups.push(disk.unmount);
    const cluster = await startPgCluster({ dataDir: pgData, walDir: pgWal });
    cleanups.push(() => cluster.stop());
    const server = await startServe({
      dataDir,
      dist,
      port: await freePort(),
      adminToken: ADMIN,
      databaseUrl: cluster.url,
      env: LIMITS,
    });
    cleanups.push(() => kill9(server));
    await fillAndGrow(server, () => disk.grow(256), /PostgreSQL/);
  });
});
