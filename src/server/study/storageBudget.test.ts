/**
 * A study's storage budget, on both databases: past it a participant's new events are refused
 * with 507 and a message saying what is wrong and what to do, repeats of stored events are still
 * acknowledged, nothing stored is lost, the studio reads the study's use, and raising the budget
 * (a new version of the study) lets every session store again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from './studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import type { StudyUsage } from '../../core/protocol/api';
import { DEFAULT_LIMITS } from './limits';

const ADMIN = 'researcher-token-for-storage-budget';
const STUDY = {
  title: 'Budget',
  consent: 'Consent.',
  instructions: 'Play.',
  completion: { code: 'DONE' },
  items: [{ kind: 'game', id: 'g', game: 'push' }],
  storage: { events: 10 },
};

describe.each(backends)("a study's storage budget on $name", (backend) => {
  let store: Store;
  let app: Hono;
  let clock: number;

  beforeEach(async () => {
    store = await backend.open();
    clock = Date.parse('2026-11-26T10:00:00Z');
    await store.saveStudy('budget', STUDY, 'studio', clock);
    app = createApi({
      library: new TaskLibrary(),
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken(ADMIN),
        replay: replayWithEngine,
        games: gameIds,
        now: () => clock,
        limits: DEFAULT_LIMITS,
      },
    });
  });
  afterEach(async () => {
    await store.close();
  });

  const call = async (method: string, url: string, auth: string | null, body?: unknown) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (auth) headers.Authorization = `Bearer ${auth}`;
    const res = await app.request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
  };
  const newSession = async () => {
    const r = await call('POST', '/studies/budget/sessions', null, { params: {} });
    expect(r.status).toBe(201);
    return r.json as { sessionId: string; token: string };
  };
  /** Events `from` to `to`, inclusive: the session's start, then resets. */
  const events = (from: number, to: number, text = '') => ({
    events: Array.from({ length: to - from + 1 }, (_, k) => from + k).map((seq) =>
      seq === 0
        ? {
            seq,
            t: 0.5,
            kind: 'session.start',
            data: { mode: 'study', wallClock: '2026-11-26T10:00:00.000Z', userAgent: `test${text}` },
          }
        : { seq, t: seq, kind: 'reset', data: {} },
    ),
  });
  const send = (s: { sessionId: string; token: string }, body: unknown) =>
    call('POST', `/sessions/${s.sessionId}/events`, s.token, body);

  it('refuses new events past the budget with 507, keeps acknowledging repeats, and takes them again once the budget is raised', async () => {
    const a = await newSession();
    const b = await newSession();
    expect((await send(a, events(0, 5))).json).toEqual({ ackedThrough: 5 });
    expect((await send(b, events(0, 3))).json).toEqual({ ackedThrough: 3 });

    // Ten events stored: the eleventh, in either session, is refused with what to do.
    const refused = await send(b, events(4, 6));
    expect(refused.status).toBe(507);
    expect(refused.headers.get('Retry-After')).toBe('60');
    expect(refused.json).toMatchObject({ error: 'storage_budget', retryAfter: 60 });
    expect(refused.json.message).toMatch(
      /^This study has used its storage budget \(10 of 10 events, [\d.]+ of 10240\.0 MiB\).*Nothing you did is lost.*researcher raises the budget/,
    );
    expect((await send(a, events(6, 6))).status).toBe(507);
    // A batch resent whole (its events stored already) is acknowledged as before.
    expect(await send(b, events(0, 3))).toMatchObject({ status: 200, json: { ackedThrough: 3 } });
    expect((await store.getSession(b.sessionId))?.eventCount).toBe(4);
    expect((await store.getSession(a.sessionId))?.eventCount).toBe(6);

    // The studio reads the study's use against its budget.
    const usage = await call('GET', '/admin/studies/budget/usage', ADMIN);
    expect(usage.status).toBe(200);
    const use = usage.json as unknown as StudyUsage;
    expect(use.storage).toMatchObject({ events: 10, budget: { events: 10, bytes: DEFAULT_LIMITS.studyBytes } });
    expect(use.storage.bytes).toBeGreaterThan(0);
    expect((await call('GET', '/admin/studies/budget/usage', null)).status).toBe(401);
    expect((await call('GET', '/admin/studies/nope/usage', ADMIN)).status).toBe(404);

    // The researcher raises it: within the half minute this server reuses the study's totals,
    // every session stores again.
    expect(
      (await call('PUT', '/admin/studies/budget', ADMIN, { definition: { ...STUDY, storage: { events: 12 } } })).status,
    ).toBe(201);
    clock += 30_000;
    expect(await send(b, events(4, 5))).toMatchObject({ status: 200, json: { ackedThrough: 5 } });
    // The counter went up by what was stored here, without reading the totals again.
    expect((await send(a, events(6, 6))).status).toBe(507);

    // A budget in megabytes counts the bytes of event data (the version no session started yet is edited in place).
    const used = (await store.studyUsage('budget')).bytes;
    expect(
      (
        await call('PUT', '/admin/studies/budget', ADMIN, {
          definition: { ...STUDY, storage: { megabytes: (used + 1) / 1024 / 1024 } },
        })
      ).status,
    ).toBe(200);
    clock += 30_000;
    const big = await send(a, events(6, 6));
    expect(big.status).toBe(507);
    expect(big.json.message).toMatch(/12 of 50000000 events/);
    expect((await store.studyUsage('budget')).events).toBe(12);
  });
});
