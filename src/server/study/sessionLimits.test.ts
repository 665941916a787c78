/**
 * New sessions per client address and per study per minute, over a real HTTP server (the limit
 * reads the connection's address) on the real database.
 */
import path from 'node:path';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, loadStudyFiles, replayWithEngine, syncStudyFiles } from './studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { DEFAULT_LIMITS } from './limits';

const ROOT = path.resolve(__dirname, '../../..');

describe.each(backends)('new sessions per client and per study on $name', (backend) => {
  let store: Store;
  let clock: number;
  let close: () => Promise<void>;
  let url: string;

  async function start(limits: Partial<typeof DEFAULT_LIMITS>) {
    const app = createApi({
      library: new TaskLibrary(),
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken('researcher-token-0123456789abcdef'),
        replay: replayWithEngine,
        games: gameIds,
        now: () => clock,
        limits: { ...DEFAULT_LIMITS, ...limits },
      },
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((r) => server.once('listening', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((r) => server.close(() => r()));
  }
  const create = (study: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/studies/${study}/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ params: {} }),
    });

  beforeEach(async () => {
    store = await backend.open();
    clock = Date.UTC(2026, 0, 1);
    await syncStudyFiles(store, await loadStudyFiles(path.join(ROOT, 'data/studies')), clock);
  });
  afterEach(async () => {
    await close();
    await store.close();
  });

  it('refuses a client past its sessions a minute with Retry-After, and lets it in again as the minute passes', async () => {
    await start({ sessionsPerMinutePerClient: 3 });
    for (let i = 0; i < 3; i++) expect((await create('sample')).status).toBe(201);
    const refused = await create('sample');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('20');
    const body = (await refused.json()) as { error: string; message: string; retryAfter: number };
    expect(body).toMatchObject({ error: 'too_many_sessions', retryAfter: 20 });
    expect(body.message).toContain('Wait 20 s, then open the study link again');
    // Nothing was stored for the refused request.
    expect((await store.listSessions('sample')).length).toBe(3);
    clock += 20_000;
    expect((await create('sample')).status).toBe(201);
    expect((await create('sample')).status).toBe(429);
  });

  it('refuses a study past its sessions a minute, whoever asks', async () => {
    await start({ sessionsPerMinutePerStudy: 2, sessionsPerMinutePerClient: 100 });
    expect((await create('sample')).status).toBe(201);
    expect((await create('sample')).status).toBe(201);
    const refused = await create('sample');
    expect(refused.status).toBe(429);
    expect((await refused.json()) as { error: string }).toMatchObject({ error: 'study_busy' });
    expect((await store.listSessions('sample')).length).toBe(2);
  });
});
