/**
 * The route-by-role walk: every route of the real app, called with every role's token, is let
 * through or refused as the permission table says, and a route without an entry fails here.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { hashToken } from './auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, loadStudyFiles, replayWithEngine, syncStudyFiles } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { COMMAND_LINE, addPerson, createToken } from './service';
import { type Need, PERMISSIONS, paramsOf, permissionGuard } from './permissions';
import { Authenticator } from './credentials';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-tests-0123456789';

/** Who walks: the owner, members of the sample study in each role, a researcher of no study, a designer. */
const WALKERS = ['owner', 'researcher', 'proctor', 'viewer', 'outsider', 'designer'] as const;
type Walker = (typeof WALKERS)[number];

/** Whether the table lets `who` through `need` (an oracle written from the table's data, not its code). */
function expected(need: Need, who: Walker): boolean {
  if ('open' in need || 'signedIn' in need || 'studyList' in need) return true;
  if (who === 'owner') return true;
  if ('ability' in need) {
    if (need.ability === 'people') return false;
    if (need.ability === 'create') return who === 'researcher' || who === 'outsider';
    return who === 'researcher' || who === 'outsider' || who === 'designer';
  }
  if (who === 'designer') return need.design === true;
  if (who === 'outsider') return false;
  return who === 'researcher' || need.member.includes(who);
}

/** Every route's registered path and method, from an app with every part mounted (nothing is called). */
function allRoutes(): string[] {
  const api = createApi({
    library: {} as never,
    version: 'routes',
    study: {
      store: { people: {} } as never,
      adminTokenHash: '',
      replay: null,
      games: null,
      arc3: { service: { onRefresh() {} } } as never,
    },
    agents: {} as never,
  });
  return [
    ...new Set(
      api.routes.filter((r) => !(r.method === 'ALL' && r.path.endsWith('*'))).map((r) => `${r.method} ${r.path}`),
    ),
  ];
}

describe('the permission table', () => {
  it('has an entry for every route of the app with every part mounted, and none for a route that is gone', () => {
    const routes = allRoutes();
    expect(routes.length).toBeGreaterThan(90);
    expect(routes.filter((r) => !Object.hasOwn(PERMISSIONS, r))).toEqual([]);
    expect(Object.keys(PERMISSIONS).filter((r) => !routes.includes(r))).toEqual([]);
  });

  it('refuses a route it has no entry for', async () => {
    const { Hono } = await import('hono');
    const app = new Hono();
    const store = { people: {} } as unknown as Store;
    const auth = new Authenticator(store.people, hashToken(ADMIN));
    const table = { ...PERMISSIONS };
    delete table['GET /health'];
    app.use('*', permissionGuard({ store, auth, table }));
    app.get('/health', (c) => c.json({ ok: true }));
    const res = await app.request('/health');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toMatch(/no entry in the permission table/);
  });

  it('keeps designers from every route of participant identifiers, answers, events, runs and exports', () => {
    // Sessions (identifiers, events, runs) and every route of a study but its games' level frames.
    const participantData = /^\w+ \/admin\/(sessions|studies\/:studyId\/(?!games\/))/;
    const guarded = Object.entries(PERMISSIONS).filter(([route]) => participantData.test(route));
    expect(guarded.length).toBeGreaterThan(25);
    for (const [route, need] of guarded) expect(expected(need, 'designer'), route).toBe(false);
  });
});

describe.each(backends)('every route with every role ($name)', (backend) => {
  let store: Store;
  let app: Hono;
  const tokens = new Map<Walker, string>();
  let sessionId = '';

  beforeAll(async () => {
    store = await backend.open();
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    await syncStudyFiles(store, await loadStudyFiles(path.join(ROOT, 'data/studies')), Date.now());
    app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds },
    });
    tokens.set('owner', ADMIN);
    const now = Date.now();
    for (const who of WALKERS.slice(1)) {
      const role = who === 'outsider' ? 'researcher' : who;
      const { person } = await addPerson(store.people, { email: `${who}@lab.org`, role }, COMMAND_LINE, now);
      if (who === 'researcher' || who === 'proctor' || who === 'viewer')
        await store.people.putMember('sample', person.id, who, now);
      tokens.set(who, (await createToken(store.people, person, { name: 'walk', days: 1 }, COMMAND_LINE, now)).token);
    }
    const made = await app.request('/studies/sample/sessions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ params: { PROLIFIC_PID: 'walked' } }),
    });
    sessionId = ((await made.json()) as { sessionId: string }).sessionId;
  });
  afterAll(async () => {
    await store.close();
  });

  const urlOf = (pattern: string) =>
    pattern
      .replace(':studyId', 'sample')
      .replace(':sessionId', sessionId)
      .replace(':email', 'nobody@lab.org')
      .replace(/:(\w+)(\{[^}]*\})?/g, 'any');

  it('lets each role through exactly where the table says, and refuses it elsewhere', async () => {
    const routes = app.routes
      .filter((r) => !(r.method === 'ALL' && r.path.endsWith('*')))
      .map((r) => `${r.method} ${r.path}`);
    const walked: string[] = [];
    for (const route of new Set(routes)) {
      const need = PERMISSIONS[route];
      expect(need, `${route} has no entry in PERMISSIONS`).toBeDefined();
      if ('open' in need) continue;
      const [method, pattern] = route.split(' ');
      const url = urlOf(pattern) + ('from' in need && need.from === 'query' ? '?study=sample' : '');
      expect(paramsOf(pattern, url).studyId ?? 'sample').toBe('sample');
      for (const who of WALKERS) {
        // Writes that would change what the other walkers meet are sent without a body: refused as malformed when let through.
        const res = await app.request(url, {
          method,
          headers: { Authorization: `Bearer ${tokens.get(who)}`, 'Content-Type': 'application/json' },
        });
        const what = `${who} ${method} ${url} -> ${res.status} ${(await res.text()).slice(0, 200)}`;
        expect(res.status, what).toBeLessThan(500);
        if (expected(need, who)) expect([401, 403], what).not.toContain(res.status);
        else expect([403, 404], what).toContain(res.status);
        walked.push(what);
      }
    }
    expect(walked.length).toBeGreaterThan(250);
  });
});
