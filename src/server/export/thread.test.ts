/**
 * Exports on worker threads: while a study of 4,000 events (a page of each session's log at a
 * time, as in a study of any size) is downloaded as events.jsonl and as
 * the bundle, participants' event batches on the same server go on being acknowledged; the
 * download is whole, and a download the client gives up ends its thread. How much the download
 * delays the acknowledgements is a figure of `npm run bench -- acks`.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { fill } from '../../bench/export';
import { ackProbe } from '../../bench/ackProbe';
import { exportsOnThreads } from './thread';
import { readZip } from './zip';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-export-thread-tests';
/**
 * Sessions of 1,000 events: downloads long enough for several batches to be acknowledged
 * meanwhile (the thread's start alone is longer than a batch's round trip).
 */
const SESSIONS = 4;
const stores: Store[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

describe.each(backends)('exports on worker threads, $name', (backend) => {
  it('go on acknowledging participants while 4,000 events are downloaded, and the downloads are whole', async () => {
    const store = await backend.open();
    stores.push(store);
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    await fill(store, 'big', SESSIONS);
    const app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, exportThreads: true },
    });
    const link = async (format: string) => {
      const made = await app.request('/admin/studies/big/exports', {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN}` },
        body: JSON.stringify({ format }),
      });
      expect(made.status).toBe(201);
      return ((await made.json()) as { url: string }).url.replace(/^\/api/, '');
    };
    const probe = await ackProbe(app, 'big', 8);

    const before = exportsOnThreads();
    let running = true;
    const downloads = (async () => {
      try {
        const jsonl = Buffer.from(await (await app.request(await link('jsonl'))).arrayBuffer());
        const zip = Buffer.from(await (await app.request(await link('zip'))).arrayBuffer());
        return { jsonl, zip };
      } finally {
        running = false;
      }
    })();
    const meanwhile = await probe.acks(() => !running);
    const { jsonl, zip } = await downloads;
    // Batches sent and acknowledged while the downloads were still running.
    expect(meanwhile.length).toBeGreaterThan(0);

    // Whole files: every event of the study (the probe's sessions too), and a bundle that reads back.
    const lines = jsonl.toString('utf8').trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(SESSIONS * 1000);
    expect(JSON.parse(lines[0])).toMatchObject({ sessionId: 'big-s00000', seq: 0 });
    const entries = readZip(zip);
    expect(entries.find((e) => e.name === 'events.jsonl')!.data.length).toBeGreaterThan(0);
    expect(exportsOnThreads() - before).toBe(2);

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
