/**
 * Each body limit's refusal names the limit of the route that refused it (docs/api.md, "Body
 * limits"): a study definition over 1 MiB is not told to split event batches.
 */
import path from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, replayWithEngine } from './studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { apiCaller } from '../testing/api';
import { sizeText } from './bodyLimits';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'body-limits-test-researcher-token-0123456789';
const pglite = backends.find((b) => b.name === 'pglite')!;

let store: Store;
let app: Hono;
const call = apiCaller(() => app);

beforeAll(async () => {
  store = await pglite.open();
  const library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  app = createApi({
    library,
    version: 'test',
    study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds },
  });
});
afterAll(async () => {
  await store.close();
});

const MiB = 1024 * 1024;

describe('body limits', () => {
  it('refuses a 10 MB study definition with the 1 MiB limit of study definitions', async () => {
    const definition = {
      title: 'Big',
      consent: 'x'.repeat(10 * 1000 * 1000),
      instructions: 'i',
      completion: { code: 'C' },
      items: [],
    };
    for (const method of ['POST', 'PUT']) {
      const r = await call(method, '/admin/studies/big', ADMIN, { definition });
      expect(r.status).toBe(413);
      expect(r.body.error).toBe('too_large');
      expect(r.body.limit).toBe(MiB);
      expect(r.body.message).toMatch(/^A study definition is at most 1 MiB \(1048576 bytes\)/);
      expect(r.body.message).not.toMatch(/batch/);
    }
    expect(await store.getStudy('big')).toBeNull();
  });

  it('refuses an event batch over 1 MiB with the batch limits', async () => {
    const events = [{ seq: 0, t: 0, kind: 'heartbeat', data: { pad: 'x'.repeat(1.1 * MiB) } }];
    const r = await call('POST', '/sessions/some-session/events', 'a-token', { events });
    expect(r.status).toBe(413);
    expect(r.body.message).toMatch(/^An event batch is at most 1 MiB .*at most 500 events each/);
  });

  it('names its route in the other participant routes', async () => {
    const grid = 'x'.repeat(1.5 * MiB);
    const answer = await call('POST', '/sessions/s/submissions', 'a-token', { grid });
    expect(answer.status).toBe(413);
    expect(answer.body.message).toMatch(/^An answer is at most 1 MiB/);
    const game = await call('POST', '/sessions/s/runs', 'a-token', { item: 'g', grid });
    expect(game.body.message).toMatch(/^A game request is at most 1 MiB/);
  });

  it('keeps the routes that have limits of their own', async () => {
    const check = await call('POST', '/collections/samples/tasks/continue-pattern/check', null, {
      testIndex: 0,
      grid: 'x'.repeat(70 * 1024),
    });
    expect(check.status).toBe(413);
    expect(check.body.message).toMatch(/at most 64 KiB/);
    const grade = await call('POST', '/grading/grades', 'a-grader', { notes: 'x'.repeat(300 * 1024) });
    expect(grade.status).toBe(413);
    expect(grade.body.message).toMatch(/at most 256 KiB/);
  });

  it('writes sizes as people read them', () => {
    expect(sizeText(MiB)).toBe('1 MiB');
    expect(sizeText(1.5 * MiB)).toBe('1.5 MiB');
    expect(sizeText(64 * 1024)).toBe('64 KiB');
  });
});
