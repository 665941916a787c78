/**
 * The researcher's study and session routes, under `/api/admin` and its guard: studies (list,
 * read, create, edit) and sessions (list, summary, events). A session's events are streamed a
 * page at a time, with participants' writes going first between pages (`participantsFirst`), so
 * reading a long log never holds up their acknowledgements.
 */
import { type Context, Hono } from 'hono';
import { stream } from 'hono/streaming';
import { StudyId, isPractice, parseStudy } from '../../core/study/schema';
import type {
  AdminResponse,
  AdminSessionDetail,
  AdminSessionEntry,
  AdminSubmission,
  StudyListEntry,
  StudyUsage,
} from '../../core/protocol/api';
import { ITEM_START, effectiveState, type SessionState, type StoredEvent } from '../../core/study/rules';
import type { SessionRecord } from '../store/types';
import { studyReferenceProblems } from './studies';
import { skippedCandidates } from '../campaign/assign';
import { games, solutions } from '../../games';
import { SaveStudyRequest } from '../../core/protocol/requests';
import { fail, readBody } from './context';
import type { StudyWiring } from './services';
import { principalOf } from '../people/permissions';
import { studyStorageBudget } from './limits';
import { EVENTS_PAGE, participantsFirst } from '../load';
import { currentGamePins } from '../arc3/gameCode';

type StudyAdminServices = Pick<StudyWiring, 'store' | 'now' | 'library' | 'games' | 'arc3' | 'limits' | 'definitions'>;
type SessionAdminServices = Pick<StudyWiring, 'store' | 'now' | 'definitions' | 'summaries'>;

export function adminRoutes(services: StudyAdminServices & SessionAdminServices): Hono {
  const admin = new Hono();
  studyAdminRoutes(admin, services);
  sessionAdminRoutes(admin, services);
  return admin;
}

/** Studies: the list a person may see, one study, its storage use, creating and editing it; and games' solutions. */
function studyAdminRoutes(
  admin: Hono,
  { store, now, library, games: gameIds, arc3, limits, definitions }: StudyAdminServices,
): void {
  admin.get('/studies', async (c) => {
    // A person sees the studies their membership allows; the owner (and the researcher token) every one.
    const p = principalOf(c);
    const mine =
      p && p.role !== 'owner' ? (p.personId ? await store.people.membershipsOf(p.personId) : new Map()) : null;
    const list = (await store.listStudies()).filter((s) => mine === null || mine.has(s.id));
    return c.json({
      studies: list.map((s): StudyListEntry => {
        const def = s.definition as { title?: string; items?: { kind?: string }[]; campaign?: { id?: string } };
        const pools = (def.items ?? []).filter((item) => item.kind === 'pool').length;
        return {
          id: s.id,
          version: s.version,
          source: s.source,
          sessions: s.sessions,
          title: def.title ?? s.id,
          createdAt: s.createdAt,
          pools,
          campaignId: pools ? (def.campaign?.id ?? null) : null,
          yourRole: mine === null ? 'owner' : mine.get(s.id)!,
        };
      }),
    });
  });

  // A built-in game's recorded solutions, for the playtest page's Validate panel: researchers only,
  // so the public bundle carries none.
  admin.get('/games/:gameId/solutions', (c) => {
    const id = c.req.param('gameId');
    if (!Object.hasOwn(games, id))
      return fail(
        c,
        404,
        'not_found',
        `No built-in game "${id.slice(0, 100)}"; the built-in games are ${Object.keys(games).join(', ')}.`,
      );
    return c.json({ game: id, levels: games[id].levels.map((_, i) => solutions[id]?.[i] ?? null) });
  });

  admin.get('/studies/:studyId', async (c) => {
    const v = c.req.query('version');
    if (v !== undefined && !/^[1-9][0-9]{0,8}$/.test(v))
      return fail(
        c,
        400,
        'malformed',
        `version=${v.slice(0, 40)} is not a study version; versions are whole numbers from 1.`,
      );
    const rec = await store.getStudy(c.req.param('studyId'), v === undefined ? undefined : Number(v));
    if (!rec) return fail(c, 404, 'not_found', `No study "${c.req.param('studyId')}"${v ? ` version ${v}` : ''}.`);
    return c.json({
      id: rec.id,
      version: rec.version,
      source: rec.source,
      createdAt: rec.createdAt,
      definition: rec.definition,
      // The stage new sessions start in now (`pilot`, `main`, ...): the study page's stage control.
      stage: (await store.stages.studyStage(rec.id)).stage,
    });
  });

  const saveStudy = async (c: Context, mustBeNew: boolean) => {
    const id = c.req.param('studyId')!;
    const idOk = StudyId.safeParse(id);
    if (!idOk.success) return fail(c, 400, 'malformed', `Study id "${id}" ${idOk.error.issues[0].message}.`);
    const wrapper = await readBody(c, SaveStudyRequest, 'Send {"definition": {...}}');
    if (!wrapper.ok) return wrapper.res;
    const parsed = parseStudy(wrapper.data.definition);
    if (!parsed.ok)
      return fail(c, 400, 'invalid_study', `The study is not valid: ${parsed.problems.join('; ')}`, {
        problems: parsed.problems,
      });
    const { references, sealing } = await studyReferenceProblems(parsed.study, library, gameIds);
    if (references.length || sealing.length) {
      const said = [
        ...(references.length
          ? [`The study refers to things this server does not have: ${references.join('; ')}`]
          : []),
        ...(sealing.length
          ? [`The study would let anyone check counted answers through a practice collection: ${sealing.join('; ')}`]
          : []),
      ];
      return fail(c, 422, 'invalid_study', said.join('. '), { problems: [...references, ...sealing], sealing });
    }
    if (mustBeNew && (await store.getStudy(id)))
      return fail(c, 409, 'exists', `A study "${id}" exists already; edit it with PUT /api/admin/studies/${id}.`);
    const saved = await store.saveStudy(id, parsed.written, 'studio', now());
    definitions.forget(id, saved.version);
    return c.json({ id, ...saved }, saved.created ? 201 : 200);
  };
  // What a study's sessions store against its storage budget, and the versions of games its runs
  // were opened on (an arcengine game's id and the hash of its files).
  admin.get('/studies/:studyId/usage', async (c) => {
    const id = c.req.param('studyId');
    const rec = await store.getStudy(id);
    if (!rec) return fail(c, 404, 'not_found', `No study "${id.slice(0, 100)}".`);
    const [used, versions, pins] = await Promise.all([
      store.studyUsage(id),
      store.studyGameVersions(id),
      store.studyGamePins(id),
    ]);
    const current = new Map(
      currentGamePins(
        pins.map((p) => p.gameId),
        arc3?.service.list() ?? [],
      ).map((p) => [p.gameId, p.version]),
    );
    return c.json({
      storage: { ...used, budget: studyStorageBudget(definitions.ofRecord(rec), limits) },
      gameVersions: versions.map((v) => ({ ...v, version: v.codeHash ? `${v.gameId}@${v.codeHash}` : v.gameId })),
      startedWith: pins.map(({ gameId, version, codeHash, pinnedAt }) => ({
        gameId,
        version,
        codeHash,
        pinnedAt,
        current: current.get(gameId) ?? null,
        changed: current.get(gameId) !== version,
      })),
    } satisfies StudyUsage);
  });

  admin.post('/studies/:studyId', (c) => saveStudy(c, true));
  admin.put('/studies/:studyId', (c) => saveStudy(c, false));
}

/** Sessions: the list, one session's summary, and its events streamed a page at a time. */
function sessionAdminRoutes(admin: Hono, { store, now, definitions, summaries }: SessionAdminServices): void {
  /** A session's events of some kinds, read a page at a time with participants' writes first. */
  const marksOf = async (sessionId: string, opts: { kinds?: readonly string[] } = {}) => {
    const out: StoredEvent[] = [];
    for await (const page of participantsFirst(store.streamEvents(sessionId, { batchSize: EVENTS_PAGE })))
      for (const e of page) if (!opts.kinds || opts.kinds.includes(e.kind)) out.push(e);
    return out;
  };

  admin.get('/sessions', async (c) => {
    const t = now();
    const sessions = await store.listSessions(c.req.query('study') || undefined);
    const out: AdminSessionEntry[] = [];
    for (const s of sessions) {
      const state = effectiveState(s, await definitions.at(s.studyId, s.studyVersion), t);
      if (state !== s.state) await store.setSessionState(s.id, state);
      out.push(sessionEntry(s, state, s.flags));
    }
    return c.json({ sessions: out });
  });

  admin.get('/sessions/:sessionId', async (c) => {
    const s = await store.getSession(c.req.param('sessionId'));
    if (!s) return fail(c, 404, 'not_found', `No session ${c.req.param('sessionId')}.`);
    const study = await definitions.at(s.studyId, s.studyVersion);
    const summary = await summaries.summarize(s, study, { forResearcher: true });
    // Pool candidates the session's time did not allow are marked, as the participant was told;
    // the item marks they are judged by are read a page at a time too.
    const skipped = await skippedCandidates({ campaigns: store.campaigns, readEvents: marksOf }, study, s, now());
    const items = summary.items.map((i) => (skipped.has(i.id) ? { ...i, skipped: true } : i));
    const [submissions, responses] = await Promise.all([store.listSubmissions(s.id), store.listResponses(s.id)]);
    return c.json({
      session: sessionEntry(s, effectiveState(s, study, now()), [...new Set([...s.flags, ...summary.flags])]),
      summary: { ...summary, items },
      submissions: submissions.map(({ key, item, testIndex, trial, grid, verdict, practice, at }): AdminSubmission => ({
        key,
        item,
        testIndex,
        trial,
        grid,
        verdict,
        practice,
        at,
      })),
      responses: responses.map(({ key, item, kind, part, value, at }): AdminResponse => ({
        key,
        item,
        kind,
        part,
        value,
        at,
      })),
    } satisfies AdminSessionDetail);
  });

  // The same JSON as one document ({sessionId, ackedThrough, events: [...]}), written a page at a time.
  admin.get('/sessions/:sessionId/events', async (c) => {
    const s = await store.getSession(c.req.param('sessionId'));
    if (!s) return fail(c, 404, 'not_found', `No session ${c.req.param('sessionId')}.`);
    const study = await definitions.at(s.studyId, s.studyVersion);
    const practice = new Set(study.items.filter(isPractice).map((i) => i.id));
    c.header('Content-Type', 'application/json; charset=utf-8');
    return stream(
      c,
      async (out) => {
        let current: string | null = null;
        let first = true;
        await out.write(`{"sessionId":${JSON.stringify(s.id)},"ackedThrough":${s.ackedThrough},"events":[`);
        for await (const text of participantsFirst(store.streamEventsJson(s.id, { batchSize: EVENTS_PAGE }))) {
          // Without practice items the page goes out as the database wrote it, never decoded here.
          if (!practice.size) {
            await out.write((first ? '' : ',') + text.json.slice(1, -1));
            first = false;
            continue;
          }
          const page = JSON.parse(text.json) as StoredEvent[];
          let chunk = '';
          for (const e of page) {
            if (e.kind === ITEM_START && typeof e.data.item === 'string') current = e.data.item;
            chunk +=
              (first ? '' : ',') +
              JSON.stringify(current !== null && practice.has(current) ? { ...e, practice: true } : e);
            first = false;
          }
          await out.write(chunk);
        }
        await out.write(']}');
      },
      async (err) => {
        // The document is left unterminated, so a reader never takes a cut log for a whole one.
        console.error(`Reading the events of session ${s.id} failed: ${err.message}`);
      },
    );
  });
}

/** What the researcher's routes say of a session: never its token hash. */
function sessionEntry(s: SessionRecord, state: SessionState, flags: readonly string[]): AdminSessionEntry {
  return {
    id: s.id,
    studyId: s.studyId,
    studyVersion: s.studyVersion,
    state,
    params: s.params,
    seed: s.seed,
    order: s.order,
    createdAt: s.createdAt,
    lastEventAt: s.lastEventAt,
    finishedAt: s.finishedAt,
    eventCount: s.eventCount,
    eventBytes: s.eventBytes,
    ackedThrough: s.ackedThrough,
    flags,
    excludedAt: s.excludedAt,
    excludedReason: s.excludedReason,
    stage: s.stage,
  };
}
