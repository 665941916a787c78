/**
 * The study API: sessions, loss-proof event ingestion, server-side judging, and the
 * researcher's routes. Documented in docs/api.md; error bodies are `{error, message}`.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { EventEnvelope } from '../core/log/events';
import { gridProblems, withoutAnswers, formatProblem } from '../core/formats/arcTask';
import { gridsEqual, type Grid } from '../core/grid/grid';
import { type StudyDefinition, type TaskItem, formatIssues, StudyId, parseStudy } from '../core/study/schema';
import { sessionOrder } from '../core/study/shuffle';
import { ITEM_END, ITEM_START, effectiveState, sessionProgress, type ReplayGame } from '../core/study/rules';
import { summarizeSession, tallyTests } from '../core/study/summary';
import { bearer, hashToken, newToken, tokenMatches } from './auth';
import { checkStudyReferences, definitionOf } from './studies';
import type { TaskLibrary } from './collections';
import type { SessionRecord, Store, SubmissionRecord } from './store/types';

/** Most events in one batch. */
export const MAX_BATCH_EVENTS = 500;
/** Largest request body, in bytes. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** How far past the acknowledged mark an event may be (events held for a gap are bounded). */
export const MAX_SEQ_AHEAD = 10_000;
/** Participant params kept with a session: at most this many, names and values bounded. */
const MAX_PARAMS = 30;

export interface StudyDeps {
  readonly store: Store;
  readonly library: TaskLibrary;
  /** SHA-256 of the researcher token. */
  readonly adminTokenHash: string;
  /** Replays a game item's events with the engine; null leaves game logs unverified. */
  readonly replay: ReplayGame | null;
  /** Registered game ids, to check studies against; null skips the check. */
  readonly games: ReadonlySet<string> | null;
  /** The clock, in ms since the epoch. */
  readonly now?: () => number;
}

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422;

const fail = (c: Context, status: ErrorStatus, error: string, message: string, extra: Record<string, unknown> = {}) =>
  c.json({ error, message, ...extra }, status);

const Batch = z.object({ events: z.array(EventEnvelope).min(1, 'must hold at least one event') });
const CreateSession = z.object({
  params: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'names are letters, digits and "_"'), z.string().max(500)).default({}),
}).default({ params: {} });
const Submission = z.object({
  /** The client's id for this submission (e.g. a UUID); a retried request with the same key is judged once. */
  key: z.string().min(1).max(100),
  item: z.string().min(1).max(64),
  testIndex: z.number().int().nonnegative(),
  grid: z.unknown(),
});
const Finish = z.object({ lastSeq: z.number().int().min(-1) });
const SaveStudy = z.object({ definition: z.unknown() });

/** Identity fields of participant recruitment platforms, named in the docs; other names are kept too. */
export const KNOWN_PARAMS = ['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID', 'workerId', 'assignmentId', 'hitId'] as const;

async function readJson(c: Context): Promise<{ ok: true; body: unknown } | { ok: false; res: Response }> {
  const text = await c.req.text();
  if (text.trim() === '') return { ok: true, body: undefined };
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch (e) {
    return { ok: false, res: fail(c, 400, 'malformed', `The request body is not valid JSON (${(e as Error).message}).`) };
  }
}

function zodFail(c: Context, issues: readonly z.core.$ZodIssue[], what: string) {
  return fail(c, 400, 'malformed', `${what}: ${formatIssues(issues).join('; ')}`);
}

/**
 * Middleware of the researcher routes: 401 without a token, 403 with any token but the
 * researcher's (`adminTokenHash` is its SHA-256). Every `/api/admin` router uses this one.
 */
export function adminGuard(adminTokenHash: string): MiddlewareHandler {
  return async (c, next) => {
    const token = bearer(c.req.header('Authorization'));
    if (token === null) return fail(c, 401, 'unauthorized', 'The researcher routes need "Authorization: Bearer <researcher token>".');
    if (!tokenMatches(token, adminTokenHash)) {
      return fail(c, 403, 'forbidden', 'This token does not open the researcher routes. Use the researcher token printed when the server first started (or ARC_STUDIO_ADMIN_TOKEN).');
    }
    await next();
  };
}

export function studyRoutes(deps: StudyDeps): Hono {
  const { store } = deps;
  const now = deps.now ?? Date.now;
  const api = new Hono();
  // Versions are immutable once stored under a session, so parsed definitions are cached by id@version.
  const defs = new Map<string, StudyDefinition>();
  const studyAt = async (id: string, version: number): Promise<StudyDefinition> => {
    const key = `${id}@${version}`;
    let d = defs.get(key);
    if (!d) {
      const rec = await store.getStudy(id, version);
      if (!rec) throw new Error(`Study ${key} is missing from the database.`);
      d = definitionOf(rec);
      defs.set(key, d);
    }
    return d;
  };
  const taskCache = new Map<string, Awaited<ReturnType<TaskLibrary['task']>>>();
  const loadTask = async (item: TaskItem) => {
    const key = `${item.collection}\u0000${item.task}`;
    let t = taskCache.get(key);
    if (!t || !t.ok) taskCache.set(key, (t = await deps.library.task(item.collection, item.task)));
    return t;
  };
  const testIndicesOf = (item: TaskItem, count: number) => item.tests ?? Array.from({ length: count }, (_, i) => i);

  api.use('*', bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => fail(c, 413, 'too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB). Send events in smaller batches (at most ${MAX_BATCH_EVENTS} events each).`),
  }));

  // Token hash -> session. Only fields that never change are read from it (id, study version,
  // creation time; acked_through only grows, so a stale value is a lower bound); bounded size.
  const sessionsByToken = new Map<string, SessionRecord>();
  const sessionOfToken = async (hash: string, fresh: boolean): Promise<SessionRecord | null> => {
    const hit = fresh ? undefined : sessionsByToken.get(hash);
    if (hit) return hit;
    const s = await store.getSessionByTokenHash(hash);
    if (s) remember(s);
    return s;
  };
  function remember(s: SessionRecord): void {
    if (sessionsByToken.size >= 50_000) sessionsByToken.clear();
    sessionsByToken.set(s.tokenHash, s);
  }

  /**
   * The session of the request's token, or an error response: 401 without a valid token, 403 for
   * another session. `fresh` reads the session's current row (state, acked mark, flags).
   */
  async function participant(c: Context, fresh = true): Promise<{ ok: true; session: SessionRecord; study: StudyDefinition } | { ok: false; res: Response }> {
    const token = bearer(c.req.header('Authorization'));
    if (!token) return { ok: false, res: fail(c, 401, 'unauthorized', 'This request needs the session token: send "Authorization: Bearer <token>" as given when the session was created.') };
    const session = await sessionOfToken(hashToken(token), fresh);
    if (!session || !tokenMatches(token, session.tokenHash)) return { ok: false, res: fail(c, 401, 'unauthorized', 'The token is not valid for any session. Open the study link again to start a session.') };
    if (session.id !== c.req.param('sessionId')) return { ok: false, res: fail(c, 403, 'forbidden', 'This token belongs to another session; a token opens its own session only.') };
    return { ok: true, session, study: await studyAt(session.studyId, session.studyVersion) };
  }

  // ---- participants ----

  api.get('/studies/:studyId', async (c) => {
    const rec = await store.getStudy(c.req.param('studyId'));
    if (!rec) return fail(c, 404, 'not_found', `No study "${c.req.param('studyId')}". Check the link you were given.`);
    const s = definitionOf(rec);
    return c.json({ id: rec.id, version: rec.version, title: s.title, consent: s.consent, items: s.items.filter((i) => i.kind !== 'page').length, sessionMinutes: s.limits.sessionMinutes });
  });

  api.post('/studies/:studyId/sessions', async (c) => {
    const rec = await store.getStudy(c.req.param('studyId'));
    if (!rec) return fail(c, 404, 'not_found', `No study "${c.req.param('studyId')}". Check the link you were given.`);
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const parsed = CreateSession.safeParse(body.body);
    if (!parsed.success) return zodFail(c, parsed.error.issues, 'The session request is not valid');
    const params = parsed.data.params;
    if (Object.keys(params).length > MAX_PARAMS) return fail(c, 400, 'malformed', `params has ${Object.keys(params).length} entries; at most ${MAX_PARAMS} are kept.`);
    // Playtests never count toward results: only a researcher may start one, or a participant
    // could take themselves out of a study's results with a link parameter.
    if (params.mode === 'playtest') {
      const token = bearer(c.req.header('Authorization'));
      if (token === null || !tokenMatches(token, deps.adminTokenHash)) {
        return fail(c, 403, 'forbidden', 'Only a researcher can start a playtest session: log in to the studio and start it from the game\'s Playtest page.');
      }
    }
    const study = definitionOf(rec);
    const flags: string[] = [];
    for (const key of ['PROLIFIC_PID', 'workerId']) {
      if (params[key] && (await store.countSessionsWithParam(rec.id, key, params[key])) > 0) flags.push('repeat_participant');
    }
    const seed = randomInt(0, 2 ** 31 - 1);
    const token = newToken();
    const id = randomUUID();
    const created = { id, studyId: rec.id, studyVersion: rec.version, tokenHash: hashToken(token), params, seed, order: sessionOrder(study, seed), createdAt: now(), flags: [...new Set(flags)] };
    await store.createSession(created);
    // The first batch follows at once: it finds its session here instead of in the database.
    remember({ ...created, state: 'started', ackedThrough: -1, eventCount: 0, lastEventAt: null, finishedAt: null });
    return c.json({ sessionId: id, token }, 201);
  });

  api.get('/sessions/:sessionId', async (c) => {
    const p = await participant(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const [marks, subs] = await Promise.all([store.readEvents(session.id, { kinds: [ITEM_START, ITEM_END] }), store.listSubmissions(session.id)]);
    const items = [];
    const tests = new Map<string, number[]>();
    for (const index of session.order) {
      const item = study.items[index];
      if (item.kind === 'task') {
        const found = await loadTask(item);
        if (!found.ok) return fail(c, 422, 'task_unavailable', `Item ${item.id}: ${found.message} Tell the researcher; your session is kept.`);
        const indices = testIndicesOf(item, found.task.test.length);
        tests.set(item.id, indices);
        const shown = withoutAnswers(found.task);
        items.push({ kind: 'task', id: item.id, practice: item.practice, task: { train: shown.train, test: indices.map((i) => shown.test[i]) }, testIndices: indices, limits: itemLimitsOf(study, item) });
      } else if (item.kind === 'game') {
        items.push({ kind: 'game', id: item.id, practice: item.practice, game: item.game, seed: item.seed, limits: itemLimitsOf(study, item) });
      } else {
        items.push(item);
      }
    }
    const tally = (id: string) => tallyTests(subs, id, tests.get(id) ?? []);
    const progress = sessionProgress(study, session.order, marks, (id) => tally(id).every((t) => t.solved || t.trialsUsed >= study.trials));
    return c.json({
      session: { id: session.id, studyId: session.studyId, studyVersion: session.studyVersion, state: effectiveState(session, study, now()), createdAt: session.createdAt, ackedThrough: session.ackedThrough, now: now() },
      study: { title: study.title, consent: study.consent, instructions: study.instructions, trials: study.trials, limits: study.limits, allowLevelReset: study.allowLevelReset, showActionCounter: study.showActionCounter },
      items,
      progress: {
        current: progress.current,
        items: progress.items.map((i) => ({ id: i.id, started: i.started, startedAt: i.startedAt, finished: i.finished, ...(tests.has(i.id) ? { tests: tally(i.id).map((t) => ({ ...t, trialsLeft: t.solved ? 0 : study.trials - t.trialsUsed })) } : {}) })),
      },
    });
  });

  api.post('/sessions/:sessionId/events', async (c) => {
    const p = await participant(c, false);
    if (!p.ok) return p.res;
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const raw = body.body as { events?: unknown } | undefined;
    if (raw && Array.isArray(raw.events) && raw.events.length > MAX_BATCH_EVENTS) {
      return fail(c, 413, 'too_large', `The batch has ${raw.events.length} events; at most ${MAX_BATCH_EVENTS} are accepted at once. Split it into smaller batches.`);
    }
    const parsed = Batch.safeParse(raw);
    if (!parsed.success) return zodFail(c, parsed.error.issues, 'The batch is not valid');
    const events = parsed.data.events;
    const seen = new Set<number>();
    let top = -1;
    for (const e of events) {
      if (seen.has(e.seq)) return fail(c, 400, 'malformed', `The batch holds seq ${e.seq} twice; each event has its own seq.`);
      seen.add(e.seq);
      top = Math.max(top, e.seq);
    }
    if (top > p.session.ackedThrough + MAX_SEQ_AHEAD) {
      const acked = (await store.getSession(p.session.id))?.ackedThrough ?? -1;
      if (top > acked + MAX_SEQ_AHEAD) return fail(c, 400, 'seq_too_far', `Event seq ${top} is more than ${MAX_SEQ_AHEAD} past the last acknowledged event (${acked}); send the missing events first.`);
    }
    const t = now();
    const r = await store.appendEvents(p.session.id, events, { receivedAt: t, pastSessionLimit: t - p.session.createdAt > p.study.limits.sessionMinutes * 60_000 });
    return c.json({ ackedThrough: r.ackedThrough });
  });

  api.post('/sessions/:sessionId/submissions', async (c) => {
    const p = await participant(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const parsed = Submission.safeParse(body.body);
    if (!parsed.success) return zodFail(c, parsed.error.issues, 'The submission is not valid');
    const { key, item: itemId, testIndex, grid } = parsed.data;
    const problems = gridProblems(grid, 'grid');
    if (problems.length) return fail(c, 400, 'malformed', `The submitted grid is not valid: ${problems.map(formatProblem).join('; ')}`);
    const item = study.items.find((i) => i.id === itemId);
    if (!item || item.kind !== 'task') return fail(c, 404, 'not_found', `This study has no task item "${itemId}".`);
    const found = await loadTask(item);
    if (!found.ok) return fail(c, 422, 'task_unavailable', `Item ${item.id}: ${found.message}`);
    const indices = testIndicesOf(item, found.task.test.length);
    if (!indices.includes(testIndex)) return fail(c, 400, 'malformed', `Item ${itemId} has no test input ${testIndex}; its test inputs are ${indices.join(', ')}.`);

    const subs = await store.listSubmissions(session.id);
    const respond = (s: SubmissionRecord, all: readonly SubmissionRecord[]) => {
      const tally = tallyTests(all, itemId, [testIndex])[0];
      return c.json({ verdict: s.verdict, trial: s.trial, trialsLeft: tally.solved ? 0 : study.trials - tally.trialsUsed, solved: tally.solved });
    };
    const repeat = subs.find((s) => s.key === key);
    if (repeat) {
      if (repeat.item !== itemId || repeat.testIndex !== testIndex) return fail(c, 409, 'key_reused', `Submission key "${key}" was already used for another submission; use a new key for each submission.`);
      return respond(repeat, subs);
    }
    const t = now();
    const state = effectiveState(session, study, t);
    if (state === 'finished') return fail(c, 409, 'session_closed', 'This session is finished; no more answers are accepted.');
    if (state === 'timed_out') {
      if (session.state !== 'timed_out') await store.setSessionState(session.id, 'timed_out');
      return fail(c, 409, 'session_closed', 'The time for this session is up; no more answers are accepted.');
    }
    const marks = await store.readEvents(session.id, { kinds: [ITEM_START, ITEM_END] });
    const progress = sessionProgress(study, session.order, marks);
    const prog = progress.items.find((i) => i.id === itemId)!;
    if (prog.finished) return fail(c, 409, 'item_closed', `Item ${itemId} is finished; finished items cannot be revisited.`);
    const limits = itemLimitsOf(study, item);
    if (prog.startedAt !== null && t - prog.startedAt > limits.hardMinutes * 60_000) return fail(c, 409, 'item_time_up', `The ${limits.hardMinutes} minutes for item ${itemId} are up; move on to the next item.`);
    const tally = tallyTests(subs, itemId, [testIndex])[0];
    if (tally.solved) return fail(c, 409, 'already_solved', `Test input ${testIndex} of item ${itemId} is already solved.`);
    if (tally.trialsUsed >= study.trials) return fail(c, 409, 'no_trials_left', `All ${study.trials} trials for test input ${testIndex} of item ${itemId} are used.`);

    const isDuplicate = subs.some((s) => s.item === itemId && s.testIndex === testIndex && s.verdict === 'wrong' && gridsEqual(s.grid as Grid, grid as Grid));
    const answer = found.task.test[testIndex].output;
    if (!answer) return fail(c, 422, 'task_unavailable', `Item ${itemId} has no answer for test input ${testIndex}, so it cannot be judged. Tell the researcher.`);
    const record: SubmissionRecord = {
      sessionId: session.id, key, item: itemId, testIndex, grid, practice: item.practice, at: t,
      trial: isDuplicate ? null : tally.trialsUsed + 1,
      verdict: isDuplicate ? 'duplicate' : gridsEqual(grid as Grid, answer) ? 'correct' : 'wrong',
    };
    if (!(await store.addSubmission(record))) {
      // A concurrent request took the key or the trial number: answer as that one did.
      const now2 = await store.listSubmissions(session.id);
      const same = now2.find((s) => s.key === key);
      if (same) return respond(same, now2);
      return fail(c, 409, 'conflict', 'Another submission for this test input was judged at the same moment; send this one again.');
    }
    return respond(record, [...subs, record]);
  });

  api.post('/sessions/:sessionId/finish', async (c) => {
    const p = await participant(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const parsed = Finish.safeParse(body.body);
    if (!parsed.success) return zodFail(c, parsed.error.issues, 'The finish request is not valid');
    if (session.ackedThrough < parsed.data.lastSeq) {
      return fail(c, 409, 'events_pending', `Events after seq ${session.ackedThrough} are not on the server yet (you sent up to ${parsed.data.lastSeq}); send them, then finish again.`, { ackedThrough: session.ackedThrough });
    }
    if (session.state !== 'finished') {
      const t = now();
      const summary = await summarize(session, study);
      const state = effectiveState(session, study, t) === 'timed_out' ? 'timed_out' : 'finished';
      await store.setSessionState(session.id, state, { finishedAt: t, flags: [...new Set([...session.flags, ...summary.flags])] });
    }
    return c.json({ completionCode: study.completion.code, redirectUrl: study.completion.redirectUrl ?? null });
  });

  async function summarize(session: SessionRecord, study: StudyDefinition) {
    const [events, subs] = await Promise.all([store.readEvents(session.id), store.listSubmissions(session.id)]);
    const counts = new Map<string, number[]>();
    for (const item of study.items) {
      if (item.kind !== 'task') continue;
      const found = await loadTask(item);
      counts.set(item.id, testIndicesOf(item, found.ok ? found.task.test.length : 0));
    }
    return summarizeSession(study, session.order, events, subs, (id) => counts.get(id) ?? [], deps.replay);
  }

  // ---- researchers ----

  const admin = new Hono();
  admin.use('*', adminGuard(deps.adminTokenHash));

  admin.get('/studies', async (c) => {
    const list = await store.listStudies();
    return c.json({ studies: list.map((s) => ({ id: s.id, version: s.version, source: s.source, sessions: s.sessions, title: (s.definition as { title?: string }).title ?? s.id, createdAt: s.createdAt })) });
  });

  admin.get('/studies/:studyId', async (c) => {
    const v = c.req.query('version');
    const rec = await store.getStudy(c.req.param('studyId'), v === undefined ? undefined : Number(v));
    if (!rec) return fail(c, 404, 'not_found', `No study "${c.req.param('studyId')}"${v ? ` version ${v}` : ''}.`);
    return c.json({ id: rec.id, version: rec.version, source: rec.source, createdAt: rec.createdAt, definition: rec.definition });
  });

  const saveStudy = async (c: Context, mustBeNew: boolean) => {
    const id = c.req.param('studyId')!;
    const idOk = StudyId.safeParse(id);
    if (!idOk.success) return fail(c, 400, 'malformed', `Study id "${id}" ${idOk.error.issues[0].message}.`);
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const wrapper = SaveStudy.safeParse(body.body);
    if (!wrapper.success) return zodFail(c, wrapper.error.issues, 'Send {"definition": {...}}');
    const parsed = parseStudy(wrapper.data.definition);
    if (!parsed.ok) return fail(c, 400, 'invalid_study', `The study is not valid: ${parsed.problems.join('; ')}`, { problems: parsed.problems });
    const refs = await checkStudyReferences(parsed.study, deps.library, deps.games);
    if (refs.length) return fail(c, 422, 'invalid_study', `The study refers to things this server does not have: ${refs.join('; ')}`, { problems: refs });
    if (mustBeNew && (await store.getStudy(id))) return fail(c, 409, 'exists', `A study "${id}" exists already; edit it with PUT /api/admin/studies/${id}.`);
    const saved = await store.saveStudy(id, parsed.study, 'studio', now());
    defs.delete(`${id}@${saved.version}`);
    return c.json({ id, ...saved }, saved.created ? 201 : 200);
  };
  admin.post('/studies/:studyId', (c) => saveStudy(c, true));
  admin.put('/studies/:studyId', (c) => saveStudy(c, false));

  admin.get('/sessions', async (c) => {
    const t = now();
    const sessions = await store.listSessions(c.req.query('study') || undefined);
    const out = [];
    for (const s of sessions) {
      const state = effectiveState(s, await studyAt(s.studyId, s.studyVersion), t);
      if (state !== s.state) await store.setSessionState(s.id, state);
      out.push({ id: s.id, studyId: s.studyId, studyVersion: s.studyVersion, state, params: s.params, seed: s.seed, order: s.order, createdAt: s.createdAt, lastEventAt: s.lastEventAt, finishedAt: s.finishedAt, eventCount: s.eventCount, ackedThrough: s.ackedThrough, flags: s.flags });
    }
    return c.json({ sessions: out });
  });

  admin.get('/sessions/:sessionId', async (c) => {
    const s = await store.getSession(c.req.param('sessionId'));
    if (!s) return fail(c, 404, 'not_found', `No session ${c.req.param('sessionId')}.`);
    const study = await studyAt(s.studyId, s.studyVersion);
    const summary = await summarize(s, study);
    return c.json({ session: { ...s, tokenHash: undefined, state: effectiveState(s, study, now()), flags: [...new Set([...s.flags, ...summary.flags])] }, summary, submissions: await store.listSubmissions(s.id) });
  });

  admin.get('/sessions/:sessionId/events', async (c) => {
    const s = await store.getSession(c.req.param('sessionId'));
    if (!s) return fail(c, 404, 'not_found', `No session ${c.req.param('sessionId')}.`);
    const study = await studyAt(s.studyId, s.studyVersion);
    const practice = new Set(study.items.filter((i) => i.kind !== 'page' && i.practice).map((i) => i.id));
    let current: string | null = null;
    const events = (await store.readEvents(s.id)).map((e) => {
      if (e.kind === ITEM_START && typeof e.data.item === 'string') current = e.data.item;
      return current !== null && practice.has(current) ? { ...e, practice: true } : e;
    });
    return c.json({ sessionId: s.id, ackedThrough: s.ackedThrough, events });
  });

  api.route('/admin', admin);
  return api;
}

function itemLimitsOf(study: StudyDefinition, item: { softMinutes?: number; hardMinutes?: number }) {
  return { softMinutes: item.softMinutes ?? study.limits.itemSoftMinutes, hardMinutes: item.hardMinutes ?? study.limits.itemHardMinutes };
}
