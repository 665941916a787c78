/**
 * Hostile input, over real HTTP, on both databases: every body an adversarial participant was
 * seen to send (and more) gets a clear 4xx naming what is wrong, stores nothing, leaves other
 * participants' batches untouched, and leaves the server, the study's exports, replays and
 * results intact.
 */
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, loadStudyFiles, replayWithEngine, syncStudyFiles } from './studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { DEFAULT_LIMITS, type IngestLimits } from './limits';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-hostile-tests-0123';
const LIMITS: IngestLimits = { ...DEFAULT_LIMITS, maxSessionEvents: 3_000, burstEvents: 1_500, eventsPerSecond: 50 };

/** Unhandled rejections while a test runs: any one would have ended a real server. */
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => {
  unhandled.push(e);
};
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});

let library: TaskLibrary;
beforeAll(async () => {
  library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
});

/** `[[[...0...]]]` nested `depth` arrays deep, as raw JSON text. */
const nested = (depth: number) => '['.repeat(depth) + '0' + ']'.repeat(depth);
const batchText = (data: string, kind = 'paint', seq = 0) =>
  `{"events":[{"seq":${seq},"t":1.5,"kind":"${kind}","data":${data}}]}`;

/** Every hostile batch, as raw request bodies, with what the refusal must name. */
const HOSTILE: { name: string; body: string; status: number; message: RegExp }[] = [
  {
    name: 'data nested 5,000 arrays deep (ended the server before)',
    body: batchText(`{"x":${nested(5000)}}`),
    status: 400,
    message: /nests deeper than 16/,
  },
  {
    name: 'data nested 4,000 arrays deep (broke exports before)',
    body: batchText(`{"x":${nested(4000)}}`),
    status: 400,
    message: /nests deeper/,
  },
  {
    name: 'data nested 15 deep in a valid kind',
    body: batchText(`{"text":"a","x":${nested(15)}}`, 'resize.invalid'),
    status: 400,
    message: /nests deeper|events\.0/,
  },
  {
    name: 'a NUL character in a string',
    body: batchText('{"text":"a\\u0000b"}', 'resize.invalid'),
    status: 400,
    message: /NUL/,
  },
  { name: 'a NUL character in a key', body: batchText('{"a\\u0000":1}', 'reset'), status: 400, message: /NUL/ },
  {
    name: 'a lone high surrogate',
    body: batchText('{"text":"a\\ud800b"}', 'resize.invalid'),
    status: 400,
    message: /surrogate/,
  },
  {
    name: 'a lone low surrogate in the kind',
    body: '{"events":[{"seq":0,"t":1,"kind":"x\\udc00","data":{}}]}',
    status: 400,
    message: /surrogate/,
  },
  {
    name: '1e400 (Infinity once parsed)',
    body: batchText('{"row":1e400,"col":0,"color":1,"stroke":0}'),
    status: 400,
    message: /finite/,
  },
  {
    name: 'a t of 1e400',
    body: '{"events":[{"seq":0,"t":1e400,"kind":"reset","data":{}}]}',
    status: 400,
    message: /finite/,
  },
  {
    name: '__proto__ in data',
    body: batchText('{"__proto__":{"polluted":true}}', 'reset'),
    status: 400,
    message: /__proto__/,
  },
  {
    name: 'constructor in data',
    body: batchText('{"constructor":{"prototype":1}}', 'reset'),
    status: 400,
    message: /constructor/,
  },
  { name: 'an unknown kind', body: batchText('{}', 'evil.kind'), status: 400, message: /not an event kind/ },
  {
    name: 'a paste without a block (broke the grid replay before)',
    body: batchText('{"row":0,"col":0}', 'paste'),
    status: 400,
    message: /data\.block/,
  },
  {
    name: 'task.open with 1e7 tests (ran for minutes before)',
    body: batchText('{"taskId":"t","tests":10000000}', 'task.open'),
    status: 400,
    message: /data\.tests/,
  },
  { name: 'a ragged grid', body: batchText('{"grid":[[1,2],[3]]}', 'copy.input'), status: 400, message: /same length/ },
  {
    name: 'a colour of 10',
    body: batchText('{"row":0,"col":0,"color":10,"stroke":0}'),
    status: 400,
    message: /data\.color/,
  },
  {
    name: 'a paint off the grid',
    body: batchText('{"row":30,"col":0,"color":1,"stroke":0}'),
    status: 400,
    message: /data\.row/,
  },
  {
    name: 'a game action that is not one',
    body: batchText(
      '{"game":"push","action":"ACTION9","level":0,"state":"NOT_FINISHED","frameHash":"x"}',
      'game.action',
    ),
    status: 400,
    message: /data\.action/,
  },
  {
    name: 'a click outside the frame',
    body: batchText(
      '{"game":"push","action":"ACTION6","x":64,"y":0,"level":0,"state":"NOT_FINISHED","frameHash":"x"}',
      'game.action',
    ),
    status: 400,
    message: /data\.x/,
  },
  {
    name: 'a wand selection with a cell off the 30x30 grid',
    body: batchText('{"side":"output","row":0,"col":0,"cells":[[0,30]]}', 'select.wand'),
    status: 400,
    message: /data\.cells\.0\.1/,
  },
  {
    name: 'a wand selection of more cells than a grid has',
    body: batchText(`{"side":"input","row":0,"col":0,"cells":[${Array(901).fill('[0,0]').join(',')}]}`, 'select.wand'),
    status: 400,
    message: /data\.cells/,
  },
  { name: 'a move by 30 rows', body: batchText('{"dr":30,"dc":0}', 'move'), status: 400, message: /data\.dr/ },
  { name: 'a move by nothing', body: batchText('{"dr":0,"dc":0}', 'move'), status: 400, message: /at least one cell/ },
  {
    name: 'a rotation that is not a quarter turn',
    body: batchText('{"dir":"half"}', 'rotate'),
    status: 400,
    message: /data\.dir/,
  },
  { name: 'a flip without an axis', body: batchText('{}', 'flip'), status: 400, message: /data\.axis/ },
  {
    name: 'a crop past the grid limit',
    body: batchText('{"rect":{"r0":0,"c0":0,"r1":30,"c1":2}}', 'crop'),
    status: 400,
    message: /data\.rect\.r1/,
  },
  {
    name: 'data that is an array',
    body: '{"events":[{"seq":0,"t":1,"kind":"reset","data":[]}]}',
    status: 400,
    message: /data/,
  },
  {
    name: 'a negative seq',
    body: '{"events":[{"seq":-1,"t":1,"kind":"reset","data":{}}]}',
    status: 400,
    message: /seq/,
  },
  {
    name: 'a negative t',
    body: '{"events":[{"seq":0,"t":-5,"kind":"reset","data":{}}]}',
    status: 400,
    message: /\bt\b/,
  },
  {
    name: 'a string of 20,000 characters',
    body: batchText(`{"text":"${'x'.repeat(20_000)}"}`, 'resize.invalid'),
    status: 400,
    message: /at most 10000/,
  },
  {
    name: 'an object of 1,000 keys',
    body: batchText(`{${Array.from({ length: 1000 }, (_, i) => `"k${i}":0`).join(',')}}`, 'reset'),
    status: 400,
    message: /1000 keys/,
  },
  { name: 'a body that is not JSON', body: '{"events":[{"seq":0', status: 400, message: /not valid JSON/ },
  {
    name: 'a body of 2 MB',
    body: batchText(`{"text":"${'x'.repeat(2_000_000)}"}`, 'resize.invalid'),
    status: 413,
    message: /at most 1 MiB/,
  },
  {
    name: '501 events in one batch',
    body: `{"events":[${Array.from({ length: 501 }, (_, i) => `{"seq":${i},"t":1,"kind":"reset","data":{}}`).join(',')}]}`,
    status: 413,
    message: /at most 500/,
  },
  {
    name: 'one bad event among good ones',
    body: `{"events":[{"seq":0,"t":1,"kind":"reset","data":{}},{"seq":1,"t":2,"kind":"paste","data":{"row":0,"col":0}}]}`,
    status: 400,
    message: /events\.1 \(seq 1, paste\)/,
  },
];

describe.each(backends)('hostile input on $name', (backend) => {
  let store: Store;
  let base: string;
  let close: () => Promise<void>;
  /** The server's clock; null follows the wall clock. A test that counts a rate freezes it. */
  let clock: number | null = null;

  beforeEach(async () => {
    unhandled.length = 0;
    clock = null;
    store = await backend.open();
    await syncStudyFiles(store, await loadStudyFiles(path.join(ROOT, 'data/studies')), Date.now());
    const app = new Hono();
    app.route(
      '/api',
      createApi({
        library,
        version: 'test',
        study: {
          store,
          adminTokenHash: hashToken(ADMIN),
          replay: replayWithEngine,
          games: gameIds,
          limits: LIMITS,
          now: () => clock ?? Date.now(),
        },
      }),
    );
    const server = createAdaptorServer({ fetch: app.fetch });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterEach(async () => {
    await close();
    await store.close();
    expect(unhandled, 'no unhandled rejection').toEqual([]);
  });

  const request = async (method: string, url: string, token: string | null, body?: string) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetch(`${base}/${url}`, { method, headers, body });
    const text = await res.text();
    let json: Record<string, unknown> | null = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      /* a non-JSON body stays null */
    }
    return { status: res.status, text, json, headers: res.headers };
  };
  const newSession = async (pid: string) => {
    const r = await request('POST', 'studies/sample/sessions', null, JSON.stringify({ params: { PROLIFIC_PID: pid } }));
    expect(r.status).toBe(201);
    return r.json as { sessionId: string; token: string };
  };
  const send = (s: { sessionId: string; token: string }, body: string) =>
    request('POST', `sessions/${s.sessionId}/events`, s.token, body);
  /** An honest participant's valid events, `from` to `to` inclusive. */
  const honest = (from: number, to: number) =>
    JSON.stringify({
      events: Array.from({ length: to - from + 1 }, (_, k) => {
        const seq = from + k;
        if (seq === 0)
          return {
            seq,
            t: 0.5,
            kind: 'session.start',
            data: { mode: 'study', wallClock: '2026-11-23T10:00:00.000Z', userAgent: 'test' },
          };
        if (seq === 1) return { seq, t: 1.5, kind: 'item.start', data: { item: 'intro', kind: 'page' } };
        return {
          seq,
          t: seq * 10.125,
          kind: 'paint',
          data: { row: seq % 30, col: (seq * 7) % 30, color: seq % 10, stroke: seq },
        };
      }),
    });

  it('refuses every hostile batch with a clear 4xx, stores none of it, and serves everyone else meanwhile', async () => {
    const attacker = await newSession('attacker');
    const others = await Promise.all(Array.from({ length: 4 }, (_, i) => newSession(`honest-${i}`)));
    // The honest participants send 10 batches each while the attacker sends every hostile body.
    const honestRuns = others.map(async (s) => {
      const statuses: number[] = [];
      for (let b = 0; b < 10; b++) statuses.push((await send(s, honest(b * 10, b * 10 + 9))).status);
      return statuses;
    });
    for (const h of HOSTILE) {
      const r = await send(attacker, h.body);
      expect(r.status, h.name).toBe(h.status);
      expect(r.json?.message, h.name).toMatch(h.message);
      expect(r.json?.message, h.name).toMatch(/\S{3,}/);
    }
    for (const statuses of await Promise.all(honestRuns)) expect(statuses).toEqual(Array(10).fill(200));

    expect((await store.getSession(attacker.sessionId))!.eventCount).toBe(0);
    for (const s of others) {
      const rec = (await store.getSession(s.sessionId))!;
      expect(rec.ackedThrough).toBe(99);
      expect(rec.eventCount).toBe(100);
    }
    expect((await request('GET', 'health', null)).status).toBe(200);
  });

  it("accepts the selection and transform tools' events", async () => {
    const s = await newSession('tools');
    const events = [
      { kind: 'tool', data: { tool: 'wand' } },
      {
        kind: 'select.wand',
        data: {
          side: 'input',
          row: 2,
          col: 3,
          cells: [
            [2, 3],
            [2, 4],
            [3, 4],
          ],
        },
      },
      { kind: 'select', data: { side: 'output', rect: { r0: 0, c0: 0, r1: 1, c1: 1 }, add: true } },
      {
        kind: 'recolor',
        data: {
          rect: { r0: 0, c0: 0, r1: 1, c1: 1 },
          color: 4,
          cells: [
            [0, 0],
            [1, 1],
          ],
        },
      },
      { kind: 'rotate', data: { dir: 'ccw' } },
      { kind: 'flip', data: { axis: 'horizontal' } },
      { kind: 'move', data: { dr: -29, dc: 1 } },
      { kind: 'crop', data: { rect: { r0: 0, c0: 0, r1: 29, c1: 29 } } },
    ].map((e, seq) => ({ seq, t: seq + 0.5, ...e }));
    const r = await send(s, JSON.stringify({ events }));
    expect(r.status, r.text).toBe(200);
    expect((await store.getSession(s.sessionId))!.eventCount).toBe(events.length);
  });

  it('refuses hostile session requests and submissions the same way', async () => {
    const bad = [
      '{"params":{"PROLIFIC_PID":"a\\u0000b"}}',
      '{"params":{"PROLIFIC_PID":"\\ud800"}}',
      `{"params":{"x":${nested(3000)}}}`,
      '{"params":{"__proto__":"x"}}',
    ];
    for (const body of bad) {
      const r = await request('POST', 'studies/sample/sessions', null, body);
      expect(r.status, body.slice(0, 60)).toBe(400);
    }
    const s = await newSession('p');
    const subs = [
      `{"key":"k1","item":"downscale","testIndex":0,"grid":${nested(5000)}}`,
      '{"key":"k\\u0000","item":"downscale","testIndex":0,"grid":[[1]]}',
      '{"key":"k2","item":"downscale","testIndex":1e400,"grid":[[1]]}',
      '{"key":"k3","item":"downscale","testIndex":0,"grid":[[1e400]]}',
    ];
    for (const body of subs) {
      const r = await request('POST', `sessions/${s.sessionId}/submissions`, s.token, body);
      expect(r.status, body.slice(0, 60)).toBe(400);
    }
    expect(await store.listSubmissions(s.sessionId)).toEqual([]);
  });

  it('limits a flood from one session: 429 with Retry-After past the rate, 413 past the quota, others unaffected', async () => {
    const flood = await newSession('flood');
    const bystander = await newSession('bystander');
    // No token comes back during the flood, however slowly the machine sends it.
    clock = Date.now();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    // 40 batches of 100 events at once: far past the burst of 1,500.
    for (let b = 0; b < 40; b++) {
      const r = await send(flood, honest(b * 100, b * 100 + 99));
      statuses.push(r.status);
      if (r.status === 429) {
        retryAfter ??= r.headers.get('Retry-After');
        expect(r.json?.error).toBe('rate_limited');
        break;
      }
    }
    expect(statuses.slice(0, 15)).toEqual(Array(15).fill(200));
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    const stored = (await store.getSession(flood.sessionId))!.eventCount;
    expect(stored).toBe(1500);
    // The bystander is not slowed by another session's flood.
    expect((await send(bystander, honest(0, 99))).status).toBe(200);
  });

  it('refuses a session past its quota of events with 413 and stores nothing of that batch', async () => {
    const s = await newSession('quota');
    const limits = { ...LIMITS };
    // Fill the session directly in the store up to its quota, as if over a long time.
    for (let b = 0; b < limits.maxSessionEvents / 500; b++) {
      await store.appendEvents(s.sessionId, JSON.parse(honest(b * 500, b * 500 + 499)).events, {
        receivedAt: Date.now(),
        pastSessionLimit: false,
      });
    }
    const r = await send(s, honest(limits.maxSessionEvents, limits.maxSessionEvents));
    expect(r.status).toBe(413);
    expect(r.json?.error).toBe('quota_exceeded');
    expect(r.json?.message).toMatch(/at most 3000 events/);
    expect((await store.getSession(s.sessionId))!.eventCount).toBe(limits.maxSessionEvents);
    // A resend of events already stored costs nothing and is still acknowledged.
    expect((await send(s, honest(0, 9))).status).toBe(200);
  });

  it('a member the database refuses fails alone: the rest of its group commit is stored', async () => {
    const good = await Promise.all(Array.from({ length: 5 }, (_, i) => newSession(`g${i}`)));
    const bad = await newSession('bad');
    // Straight to the store, past the door's checks: PostgreSQL refuses NUL in jsonb.
    const results = await Promise.allSettled([
      ...good.map((s) =>
        store.appendEvents(s.sessionId, JSON.parse(honest(0, 4)).events, {
          receivedAt: Date.now(),
          pastSessionLimit: false,
        }),
      ),
      store.appendEvents(bad.sessionId, [{ seq: 0, t: 1, kind: 'reset', data: { x: 'a\u0000b' } }], {
        receivedAt: Date.now(),
        pastSessionLimit: false,
      }),
      store.appendEvents(bad.sessionId, [{ seq: 1, t: 1, kind: 'reset', data: { x: JSON.parse(nested(9000)) } }], {
        receivedAt: Date.now(),
        pastSessionLimit: false,
      }),
    ]);
    expect(results.slice(0, 5).map((r) => r.status)).toEqual(Array(5).fill('fulfilled'));
    expect(results[6].status).toBe('rejected');
    for (const s of good) expect((await store.getSession(s.sessionId))!.ackedThrough).toBe(4);
  });

  it("leaves the study's exports, replays and results whole after the attack", async () => {
    const attacker = await newSession('attacker');
    const s = await newSession('honest');
    expect((await send(s, honest(0, 49))).status).toBe(200);
    for (const h of HOSTILE) await send(attacker, h.body);
    expect((await send(s, honest(50, 59))).status).toBe(200);

    const events = await request('GET', `admin/sessions/${s.sessionId}/events`, ADMIN);
    expect(events.status).toBe(200);
    expect((events.json as { events: unknown[] }).events).toHaveLength(60);
    expect((await request('GET', `admin/sessions/${attacker.sessionId}/events`, ADMIN)).json).toMatchObject({
      events: [],
    });
    expect((await request('GET', `admin/sessions/${s.sessionId}`, ADMIN)).status).toBe(200);
    expect((await request('GET', 'admin/studies/sample/results', ADMIN)).status).toBe(200);

    for (const format of ['jsonl', 'csv', 'grid-actions', 'zip']) {
      const made = await request('POST', 'admin/studies/sample/exports', ADMIN, JSON.stringify({ format }));
      expect(made.status, format).toBe(201);
      const res = await fetch(`${base.replace(/\/api$/, '')}${(made.json as { url: string }).url}`);
      expect(res.status, format).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      if (format === 'jsonl') {
        const lines = bytes.toString('utf8').trim().split('\n');
        expect(lines).toHaveLength(60);
        for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
      }
      if (format === 'zip')
        expect(bytes.subarray(bytes.length - 22, bytes.length - 18).toString('hex')).toBe('504b0506');
    }
  });
});
