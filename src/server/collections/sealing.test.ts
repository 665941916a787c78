/**
 * The sealing rule, route by route: every API route of the real app, called as a visitor (no
 * token) and as a participant (a session's token) with the values a curious participant would
 * try, returns no test output of a sealed task and no verdict outside the participant's own
 * trials. The routes are read from the app itself, so a route added later without an entry in
 * `WALK` fails this test until someone says how a visitor and a participant would call it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { parseTaskText, type ArcTask } from '../../core/formats/arcTask';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from './collections';
import { gameIds, loadStudyFiles, replayWithEngine, syncStudyFiles } from '../study/studies';
import { unsealedStudies } from '../serve';
import { backends } from '../store/testing';
import type { Store } from '../store/types';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-tests-0123456789';
const SEALED_DIR = path.join(ROOT, 'data/tasks/samples');
const PRACTICE_DIR = path.join(ROOT, 'data/practice/warm-ups');

const readTasks = (dir: string): Map<string, ArcTask> =>
  new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => {
        const parsed = parseTaskText(readFileSync(path.join(dir, f), 'utf8'));
        if (!parsed.ok) throw new Error(f);
        return [f.slice(0, -5), parsed.task] as const;
      }),
  );
const sealed = readTasks(SEALED_DIR);
const practice = readTasks(PRACTICE_DIR);

/**
 * Every test output of every sealed task, as compact JSON, except grids that a participant sees
 * anyway (a demonstration or a test input of some task): those are no secret.
 */
function secretGrids(): Set<string> {
  const visible = new Set<string>();
  for (const t of [...sealed.values(), ...practice.values()]) {
    for (const p of t.train) {
      visible.add(JSON.stringify(p.input));
      visible.add(JSON.stringify(p.output));
    }
    for (const p of t.test) visible.add(JSON.stringify(p.input));
  }
  const out = new Set<string>();
  for (const t of sealed.values())
    for (const p of t.test) if (p.output && !visible.has(JSON.stringify(p.output))) out.add(JSON.stringify(p.output));
  return out;
}
const SECRETS = secretGrids();

/**
 * What in a response would give an answer away: secret grids anywhere in the text, a task's
 * `test` list with outputs in it (of any task), and verdict fields.
 */
function leaks(text: string): { grids: number; testOutputs: boolean; verdict: boolean } {
  let grids = 0;
  for (const s of SECRETS) if (text.includes(s)) grids++;
  let verdict = false;
  let testOutputs = false;
  try {
    JSON.parse(text, (key, value: unknown) => {
      if (key === 'verdict' || key === 'correct') verdict = true;
      if (
        key === 'test' &&
        Array.isArray(value) &&
        value.some((t) => t !== null && typeof t === 'object' && 'output' in t)
      )
        testOutputs = true;
      return value;
    });
  } catch {
    /* not JSON: only the text search applies */
  }
  return { grids, testOutputs, verdict };
}

interface Ctx {
  readonly own: { sessionId: string; token: string };
  readonly other: { sessionId: string; token: string };
  /** The sample study's task items: item id, collection, task id. */
  readonly studyTasks: readonly { item: string; collection: string; task: string; tests: number }[];
}
interface Call {
  readonly url: string;
  readonly body?: unknown;
}
type Walk = (ctx: Ctx) => Call[];

const answerOf = (collection: string, task: string, i: number) =>
  (collection === 'samples' ? sealed : practice).get(task)?.test[i]?.output ?? [[0]];

/**
 * How a curious participant calls each route. Keys are `METHOD path` exactly as the app
 * registers them. Sealed task ids include every task of the study, and the bodies carry the
 * right answers where a route takes a grid, so a route that judged them would say "correct".
 */
const WALK: Record<string, Walk> = {
  'GET /health': () => [{ url: '/health' }],
  'GET /collections': () => [{ url: '/collections' }],
  'GET /collections/:cid/tasks': () =>
    ['samples', 'warm-ups', 'nope'].map((cid) => ({ url: `/collections/${cid}/tasks` })),
  'GET /collections/:cid/tasks/:taskId{.+}': (ctx) => [
    ...[...sealed.keys()].map((t) => ({ url: `/collections/samples/tasks/${t}` })),
    ...ctx.studyTasks.map((s) => ({ url: `/collections/${s.collection}/tasks/${s.task}` })),
    { url: '/collections/warm-ups/tasks/grey-frame' },
    { url: '/collections/warm-ups/tasks/..%2F..%2Ftasks%2Fsamples%2Fmirror-across-wall' },
    { url: '/collections/samples/tasks/mirror-across-wall.json' },
  ],
  'POST /collections/:cid/tasks/:taskId{.+}/check': (ctx) => [
    ...ctx.studyTasks.flatMap((s) =>
      Array.from({ length: s.tests }, (_, i) => ({
        url: `/collections/${s.collection}/tasks/${s.task}/check`,
        body: { testIndex: i, grid: answerOf(s.collection, s.task, i) },
      })),
    ),
    // The same study task asked of the practice collection: it is not there.
    ...ctx.studyTasks.map((s) => ({
      url: `/collections/warm-ups/tasks/${s.task}/check`,
      body: { testIndex: 0, grid: answerOf(s.collection, s.task, 0) },
    })),
    {
      url: '/collections/warm-ups/tasks/grey-frame/check',
      body: { testIndex: 0, grid: answerOf('warm-ups', 'grey-frame', 0) },
    },
  ],
  'GET /studies/:studyId': () => [{ url: '/studies/sample' }, { url: '/studies/nope' }],
  'POST /studies/:studyId/sessions': () => [
    { url: '/studies/sample/sessions', body: { params: { PROLIFIC_PID: 'curious' } } },
    { url: '/studies/sample/sessions', body: { params: { mode: 'playtest' } } },
  ],
  'GET /sessions/:sessionId': (ctx) => [
    { url: `/sessions/${ctx.own.sessionId}` },
    { url: `/sessions/${ctx.other.sessionId}` },
  ],
  'POST /sessions/:sessionId/events': (ctx) =>
    [ctx.own, ctx.other].map((s) => ({
      url: `/sessions/${s.sessionId}/events`,
      body: { events: [{ seq: 0, t: 1, kind: 'item.start', data: { item: 'intro' } }] },
    })),
  'POST /sessions/:sessionId/submissions': (ctx) =>
    [ctx.own, ctx.other].flatMap((s) =>
      ctx.studyTasks.map((t) => ({
        url: `/sessions/${s.sessionId}/submissions`,
        body: { key: `k-${s.sessionId}-${t.item}`, item: t.item, testIndex: 0, grid: [[0]] },
      })),
    ),
  // Question answers named for the study's task items (the sample study has no question items).
  'POST /sessions/:sessionId/answers': (ctx) =>
    [ctx.own, ctx.other].flatMap((s) =>
      ctx.studyTasks.map((t) => ({
        url: `/sessions/${s.sessionId}/answers`,
        body: { key: `a-${s.sessionId}-${t.item}`, item: t.item, answer: { choice: 'A' } },
      })),
    ),
  // Descriptions, survey answers and withdrawals take text, never give a verdict; the own
  // session's withdrawal names no known reason, so the walk leaves the session open.
  'POST /sessions/:sessionId/descriptions': (ctx) =>
    [ctx.own, ctx.other].flatMap((s) =>
      ctx.studyTasks.map((t) => ({
        url: `/sessions/${s.sessionId}/descriptions`,
        body: { key: `d-${s.sessionId}-${t.item}`, item: t.item, stage: 'first', text: 'mirror it' },
      })),
    ),
  'POST /sessions/:sessionId/survey': (ctx) =>
    [ctx.own, ctx.other].flatMap((s) =>
      ctx.studyTasks.map((t) => ({
        url: `/sessions/${s.sessionId}/survey`,
        body: { key: `s-${s.sessionId}-${t.item}`, item: t.item, answers: {} },
      })),
    ),
  'POST /sessions/:sessionId/withdraw': (ctx) => [
    { url: `/sessions/${ctx.own.sessionId}/withdraw`, body: { key: 'w-own', reason: 'curious' } },
    { url: `/sessions/${ctx.other.sessionId}/withdraw`, body: { key: 'w-other', reason: 'other' } },
  ],
  'GET /question-collections/:cid/images/:src': () => [
    { url: '/question-collections/nope/images/a.png' },
    { url: '/question-collections/nope/images/..%2F..%2Fpackage.json' },
  ],
  // lastSeq past the acknowledged mark: refused, so the walk leaves the session open.
  'POST /sessions/:sessionId/finish': (ctx) =>
    [ctx.own, ctx.other].map((s) => ({ url: `/sessions/${s.sessionId}/finish`, body: { lastSeq: 99_999 } })),
  'GET /downloads/:token': () => [{ url: '/downloads/not-a-ticket' }, { url: '/downloads/..%2F..%2Fdata' }],
  'GET /admin/studies': () => [{ url: '/admin/studies' }],
  'GET /admin/studies/:studyId': () => [{ url: '/admin/studies/sample' }],
  'GET /admin/games/:gameId/solutions': () => [{ url: '/admin/games/push/solutions' }],
  'POST /admin/studies/:studyId': () => [{ url: '/admin/studies/mine', body: { definition: {} } }],
  'PUT /admin/studies/:studyId': () => [{ url: '/admin/studies/sample', body: { definition: {} } }],
  'GET /admin/sessions': () => [{ url: '/admin/sessions' }, { url: '/admin/sessions?study=sample' }],
  'GET /admin/sessions/:sessionId': (ctx) => [
    { url: `/admin/sessions/${ctx.own.sessionId}` },
    { url: `/admin/sessions/${ctx.other.sessionId}` },
  ],
  'GET /admin/sessions/:sessionId/events': (ctx) => [{ url: `/admin/sessions/${ctx.other.sessionId}/events` }],
  'GET /admin/studies/:studyId/results': () => [{ url: '/admin/studies/sample/results' }],
  'GET /admin/studies/:studyId/usage': () => [{ url: '/admin/studies/sample/usage' }],
  'GET /admin/studies/:studyId/results/progress': () => [{ url: '/admin/studies/sample/results/progress' }],
  'GET /admin/studies/:studyId/results/surveys': () => [{ url: '/admin/studies/sample/results/surveys' }],
  'GET /admin/games/:gameId/baselines': () => [{ url: '/admin/games/push/baselines' }],
  'GET /admin/games/:gameId/references': () => [{ url: '/admin/games/push/references' }],
  'POST /admin/games/:gameId/references': () => [
    { url: '/admin/games/vc33-5430563c/references', body: { group: 'curious', files: [] } },
  ],
  'DELETE /admin/games/:gameId/references/:group': () => [{ url: '/admin/games/push/references/curious' }],
  'GET /admin/studies/:studyId/campaign': () => [{ url: '/admin/studies/sample/campaign' }],
  'GET /admin/studies/:studyId/campaign/payments': () => [{ url: '/admin/studies/sample/campaign/payments' }],
  'GET /admin/studies/:studyId/campaign/bonuses.csv': () => [{ url: '/admin/studies/sample/campaign/bonuses.csv' }],
  'GET /admin/studies/:studyId/campaign/ledger.csv': () => [{ url: '/admin/studies/sample/campaign/ledger.csv' }],
  'POST /admin/studies/:studyId/campaign/bonuses/pay': () => [{ url: '/admin/studies/sample/campaign/bonuses/pay' }],
  'POST /admin/studies/:studyId/prolific/sync': () => [{ url: '/admin/studies/sample/prolific/sync' }],
  // Prolific: the token and secret are a lab member's; the webhook answers only a signed body.
  'GET /admin/prolific': () => [{ url: '/admin/prolific' }],
  'PUT /admin/prolific/token': () => [{ url: '/admin/prolific/token', body: { value: 'a-curious-token' } }],
  'DELETE /admin/prolific/token': () => [{ url: '/admin/prolific/token' }],
  'PUT /admin/prolific/webhook-secret': () => [
    { url: '/admin/prolific/webhook-secret', body: { value: 'a-guess-123' } },
  ],
  'DELETE /admin/prolific/webhook-secret': () => [{ url: '/admin/prolific/webhook-secret' }],
  'POST /prolific/webhook': (ctx) => [
    {
      url: '/prolific/webhook',
      body: {
        resource_id: 'sub1',
        event_type: 'submission.status.change',
        participant_id: ctx.own.sessionId.replace(/-/g, '').slice(0, 24),
        status: 'RETURNED',
      },
    },
  ],
  'POST /admin/studies/:studyId/exports': () => [{ url: '/admin/studies/sample/exports', body: { format: 'zip' } }],
  'POST /admin/sessions/:sessionId/exclude': (ctx) => [
    { url: `/admin/sessions/${ctx.other.sessionId}/exclude`, body: { reason: 'curious' } },
  ],
  'POST /admin/sessions/:sessionId/include': (ctx) => [
    { url: `/admin/sessions/${ctx.other.sessionId}/include`, body: {} },
  ],
  'DELETE /admin/sessions/:sessionId': (ctx) => [
    { url: `/admin/sessions/${ctx.other.sessionId}`, body: { confirm: ctx.other.sessionId } },
  ],
  'DELETE /admin/studies/:studyId': () => [{ url: '/admin/studies/sample', body: { confirm: 'sample' } }],
  'GET /admin/studies/:studyId/audit': () => [{ url: '/admin/studies/sample/audit' }],
  'PUT /admin/studies/:studyId/stage': () => [{ url: '/admin/studies/sample/stage', body: { stage: 'pilot' } }],
  // A participant's data on request: a session's token is no researcher's, whatever id it names.
  'POST /admin/participants/find': () => [{ url: '/admin/participants/find', body: { participantId: 'own' } }],
  'POST /admin/participants/delete': () => [
    { url: '/admin/participants/delete', body: { participantId: 'own', reason: 'curious', confirm: 'own' } },
  ],
  'GET /admin/participants/deletions': () => [{ url: '/admin/participants/deletions' }],
  'GET /admin/participants/deletions/:receiptId': () => [
    { url: '/admin/participants/deletions/00000000-0000-0000-0000-000000000000' },
  ],
  // Grading: a grader link is a token of its own; a session's token (or none) opens no grader's queue.
  'GET /grading/queue': () => [{ url: '/grading/queue' }],
  'PUT /grading/answers/:answerId': () => [{ url: '/grading/answers/any', body: { correct: true, note: '' } }],
  'GET /admin/studies/:studyId/grading': () => [{ url: '/admin/studies/sample/grading' }],
  'POST /admin/studies/:studyId/graders': () => [{ url: '/admin/studies/sample/graders', body: { label: 'curious' } }],
  'POST /admin/studies/:studyId/graders/:graderId/revoke': () => [
    { url: '/admin/studies/sample/graders/g-any/revoke' },
  ],
  'POST /admin/studies/:studyId/adjudications': (ctx) => [
    {
      url: '/admin/studies/sample/adjudications',
      body: { sessionId: ctx.own.sessionId, item: 'q', testIndex: 0, grade: { correct: true, note: '' } },
    },
  ],
  'POST /admin/studies/:studyId/question-scores': () => [
    { url: '/admin/studies/sample/question-scores?collection=science', body: { id: 'sci-001', response: 'B' } },
  ],
  // Signing in and a person's own account: a participant's token is no person's credential.
  'GET /auth/providers': () => [{ url: '/auth/providers' }],
  'POST /auth/password': () => [
    { url: '/auth/password', body: { email: 'owner@lab.org', password: 'a guess of a password' } },
  ],
  'POST /auth/link': () => [{ url: '/auth/link', body: { link: 'not-a-link-0123456789abcdef' } }],
  'GET /auth/oidc/start': () => [{ url: '/auth/oidc/start' }],
  'GET /auth/oidc/callback': () => [
    { url: '/auth/oidc/callback' },
    { url: '/auth/oidc/callback?code=a-guessed-code&state=a-guessed-state' },
  ],
  'POST /auth/signout': () => [{ url: '/auth/signout' }],
  'POST /auth/signout-everywhere': () => [{ url: '/auth/signout-everywhere' }],
  'GET /me': () => [{ url: '/me' }],
  'PUT /me/password': () => [{ url: '/me/password', body: { password: 'a new password for me' } }],
  'GET /me/tokens': () => [{ url: '/me/tokens' }],
  'POST /me/tokens': () => [{ url: '/me/tokens', body: { name: 'curious' } }],
  'DELETE /me/tokens/:tokenId': () => [{ url: '/me/tokens/t-any' }],
  'GET /admin/people': () => [{ url: '/admin/people' }],
  'POST /admin/people': () => [{ url: '/admin/people', body: { email: 'curious@lab.org', role: 'owner' } }],
  'PATCH /admin/people/:email': () => [{ url: '/admin/people/owner@lab.org', body: { disabled: true } }],
  'POST /admin/people/:email/link': () => [{ url: '/admin/people/owner@lab.org/link' }],
  'GET /admin/audit': () => [{ url: '/admin/audit' }],
  'GET /admin/studies/:studyId/members': () => [{ url: '/admin/studies/sample/members' }],
  'PUT /admin/studies/:studyId/members/:email': () => [
    { url: '/admin/studies/sample/members/curious@lab.org', body: { role: 'researcher' } },
  ],
  'DELETE /admin/studies/:studyId/members/:email': () => [{ url: '/admin/studies/sample/members/curious@lab.org' }],
  // A testing centre: a proctor's routes, and the stations', whose secret a participant's token is not.
  'GET /admin/studies/:studyId/centre': () => [{ url: '/admin/studies/sample/centre' }],
  'POST /admin/studies/:studyId/centre/stations': () => [
    { url: '/admin/studies/sample/centre/stations', body: { name: 'curious' } },
  ],
  'POST /admin/studies/:studyId/centre/stations/:stationId/checkin': () => [
    { url: '/admin/studies/sample/centre/stations/any/checkin', body: { participantId: 'curious' } },
  ],
  'POST /admin/studies/:studyId/centre/stations/:stationId/retire': () => [
    { url: '/admin/studies/sample/centre/stations/any/retire' },
  ],
  'POST /admin/studies/:studyId/centre/stations/:stationId/unretire': () => [
    { url: '/admin/studies/sample/centre/stations/any/unretire' },
  ],
  'GET /admin/studies/:studyId/centre/payouts': () => [{ url: '/admin/studies/sample/centre/payouts' }],
  'GET /admin/studies/:studyId/centre/payouts.csv': () => [{ url: '/admin/studies/sample/centre/payouts.csv' }],
  'POST /admin/sessions/:sessionId/centre/pause': (ctx) => [
    { url: `/admin/sessions/${ctx.own.sessionId}/centre/pause` },
  ],
  'POST /admin/sessions/:sessionId/centre/resume': (ctx) => [
    { url: `/admin/sessions/${ctx.own.sessionId}/centre/resume` },
  ],
  'POST /admin/sessions/:sessionId/centre/end': (ctx) => [
    { url: `/admin/sessions/${ctx.other.sessionId}/centre/end`, body: { reason: 'curious' } },
  ],
  'POST /admin/sessions/:sessionId/centre/notes': (ctx) => [
    { url: `/admin/sessions/${ctx.own.sessionId}/centre/notes`, body: { text: 'curious' } },
  ],
  'POST /centre/station/ping': () => [{ url: '/centre/station/ping', body: {} }],
  'POST /centre/station/sessions': (ctx) => [
    { url: '/centre/station/sessions', body: { sessionId: ctx.own.sessionId, token: ctx.own.token } },
  ],
  'POST /centre/station/cleared': (ctx) => [{ url: '/centre/station/cleared', body: { sessionId: ctx.own.sessionId } }],
  'GET /admin/question-collections': () => [{ url: '/admin/question-collections' }],
  'GET /admin/question-collections/:cid/questions': () => [
    { url: '/admin/question-collections/science/questions' },
    { url: '/admin/question-collections/nope/questions' },
  ],
};

/** Routes that may give a verdict, and to whom: the participant's own submissions; practice checks. */
function verdictAllowed(route: string, url: string, who: 'visitor' | 'participant', ctx: Ctx): boolean {
  if (route === 'POST /sessions/:sessionId/submissions')
    return who === 'participant' && url.startsWith(`/sessions/${ctx.own.sessionId}/`);
  if (route === 'POST /collections/:cid/tasks/:taskId{.+}/check') return url.startsWith('/collections/warm-ups/');
  return false;
}

describe.each(backends)('every API route keeps sealed answers on the server ($name)', (backend) => {
  let store: Store;
  let app: Hono;
  let library: TaskLibrary;

  beforeAll(async () => {
    store = await backend.open();
    library = new TaskLibrary();
    await library.mount(SEALED_DIR);
    await library.mount(PRACTICE_DIR, ROOT, 'practice');
    await syncStudyFiles(store, await loadStudyFiles(path.join(ROOT, 'data/studies')), Date.now());
    app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds },
    });
  });
  afterAll(async () => {
    await store.close();
  });

  const request = async (method: string, url: string, token: string | null, body?: unknown) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await app.request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const newSession = async (pid: string) => {
    const r = await request('POST', '/studies/sample/sessions', null, { params: { PROLIFIC_PID: pid } });
    expect(r.status).toBe(201);
    return JSON.parse(r.text) as { sessionId: string; token: string };
  };

  it("the answers it guards are real, and the detector finds them in a researcher's preview", async () => {
    expect(SECRETS.size).toBeGreaterThanOrEqual(14);
    const preview = await request('GET', '/collections/samples/tasks/mirror-across-wall', ADMIN);
    expect(preview.status).toBe(200);
    expect(leaks(preview.text)).toMatchObject({ testOutputs: true });
    expect(leaks(preview.text).grids).toBeGreaterThan(0);
    // The bundled studies count sealed tasks only.
    expect(await unsealedStudies(store, library)).toEqual([]);
  });

  it('walks every route as a visitor and as a participant', async () => {
    const own = await newSession('walker');
    const other = await newSession('someone-else');
    const view = JSON.parse((await request('GET', `/sessions/${own.sessionId}`, own.token)).text) as {
      items: { kind: string; id: string; testIndices?: number[] }[];
    };
    const def = JSON.parse((await request('GET', '/admin/studies/sample', ADMIN)).text) as {
      definition: { items: { kind: string; id: string; collection?: string; task?: string }[] };
    };
    const studyTasks = def.definition.items
      .filter((i) => i.kind === 'task')
      .map((i) => ({
        item: i.id,
        collection: i.collection!,
        task: i.task!,
        tests: view.items.find((v) => v.id === i.id)?.testIndices?.length ?? 1,
      }));
    expect(studyTasks.length).toBeGreaterThanOrEqual(4);
    const ctx: Ctx = { own, other, studyTasks };

    const routes = [
      ...new Set(
        app.routes.filter((r) => !(r.method === 'ALL' && r.path.endsWith('*'))).map((r) => `${r.method} ${r.path}`),
      ),
    ];
    const unknown = routes.filter((r) => !(r in WALK));
    expect(unknown, 'routes without an entry in WALK: say how a visitor and a participant would call them').toEqual([]);
    expect(routes.length).toBeGreaterThanOrEqual(20);

    const verdicts: string[] = [];
    let calls = 0;
    for (const route of routes) {
      const method = route.slice(0, route.indexOf(' '));
      for (const call of WALK[route](ctx)) {
        for (const [who, token] of [
          ['visitor', null],
          ['participant', own.token],
        ] as const) {
          const res = await request(method, call.url, token, call.body);
          calls++;
          const what = `${who} ${method} ${call.url} -> ${res.status} ${res.text.slice(0, 160)}`;
          expect(res.status, what).toBeLessThan(500);
          const found = leaks(res.text);
          expect(found.grids, `a test output of a sealed task: ${what}`).toBe(0);
          expect(found.testOutputs, `a task with its test outputs: ${what}`).toBe(false);
          if (found.verdict) {
            expect(
              verdictAllowed(route, call.url, who, ctx),
              `a verdict outside the participant's own trials: ${what}`,
            ).toBe(true);
            verdicts.push(`${who} ${method} ${call.url}`);
          }
          if (call.url.startsWith('/admin/')) expect([401, 403], what).toContain(res.status);
        }
      }
    }
    expect(calls).toBeGreaterThan(60);
    // The walk did reach the places where verdicts are allowed: practice checks, own submissions.
    expect(verdicts).toContain('visitor POST /collections/warm-ups/tasks/grey-frame/check');

    // Whatever the participant's own submissions were judged, they stayed within the study's trials.
    const subs = await store.listSubmissions(own.sessionId);
    const trials = new Map<string, number>();
    for (const s of subs)
      if (s.trial !== null)
        trials.set(`${s.item}/${s.testIndex}`, Math.max(trials.get(`${s.item}/${s.testIndex}`) ?? 0, s.trial));
    for (const [key, n] of trials) expect(n, key).toBeLessThanOrEqual(3);
    expect(await store.listSubmissions(other.sessionId)).toEqual([]);
  });
});
