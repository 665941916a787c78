/**
 * Exports on worker threads: while a study of 120,000 events is downloaded as events.jsonl and as
 * the bundle, participants' event batches on the same server are acknowledged less than 100 ms
 * later at p99 than without it; the download is whole, and a download the client gives up ends
 * its thread.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../app';
import { hashToken } from '../auth';
import { TaskLibrary } from '../collections';
import { gameIds, replayWithEngine } from '../studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { fill } from '../../bench/export';
import { ackProbe, quantile } from '../testing/acks';
import { exportsOnThreads } from './thread';
import { readZip } from './zip';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-export-thread-tests';
const SESSIONS = 120;
const stores: Store[] = [];
afterAll(async () => { await Promise.all(stores.map((s) => s.close())); });

describe.each(backends)('exports on worker threads, $name', (backend) => {
  it('delay acknowledgements by under 100 ms at p99 while 120,000 events are downloaded', async () => {
    const store = await backend.open();
    stores.push(store);
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    await fill(store, 'big', SESSIONS);
    const app = createApi({ library, version: 'test', study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, exportThreads: true } });
    const link = async (format: string) => {
      const made = await app.request('/admin/studies/big/exports', { method: 'POST', headers: { Authorization: `Bearer ${ADMIN}` }, body: JSON.stringify({ format }) });
      expect(made.status).toBe(201);
      return ((await made.json()) as { url: string }).url.replace(/^\/api/, '');
    };
    const probe = await ackProbe(app, 'big', 8);

    const quietUntil = performance.now() + 1500;
    const quiet = await probe.acks(() => performance.now() > quietUntil);

    const before = exportsOnThreads();
    let running = true;
    const t0 = performance.now();
    const downloads = (async () => {
      try {
        const jsonl = Buffer.from(await (await app.request(await link('jsonl'))).arrayBuffer());
        const zip = Buffer.from(await (await app.request(await link('zip'))).arrayBuffer());
        return { jsonl, zip };
      } finally {
        running = false;
      }
    })();
    const latencies = await probe.acks(() => !running);
    const { jsonl, zip } = await downloads;
    const ms = performance.now() - t0;

    // Whole files: every event of the study (the probe's sessions too), and a bundle that reads back.
    const lines = jsonl.toString('utf8').trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(SESSIONS * 1000);
    expect(JSON.parse(lines[0])).toMatchObject({ sessionId: 'big-s00000', seq: 0 });
    const entries = readZip(zip);
    expect(entries.find((e) => e.name === 'events.jsonl')!.data.length).toBeGreaterThan(0);
    expect(exportsOnThreads() - before).toBe(2);

    const p99 = quantile(latencies, 0.99);
    const quietP99 = quantile(quiet, 0.99);
    console.log(`${backend.name}: events.jsonl (${(jsonl.length / 1e6).toFixed(0)} MB) and the bundle (${(zip.length / 1e6).toFixed(0)} MB) in ${Math.round(ms)} ms; acknowledgements alone: ${quiet.length}, p99 ${quietP99.toFixed(1)} ms; meanwhile: ${latencies.length}, p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`);
    expect(latencies.length).toBeGreaterThan(30);
    expect(p99 - quietP99).toBeLessThan(100);

    // A download abandoned after its first chunk ends its thread; the next one is whole again.
    const res = await app.request(await link('jsonl'));
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    const again = Buffer.from(await (await app.request(await link('jsonl'))).arrayBuffer());
    const stored = (await store.listSessions('big')).reduce((n, s) => n + s.eventCount, 0);
    expect(again.toString('utf8').trimEnd().split('\n').length).toBe(stored);
  }, 300_000);
});
