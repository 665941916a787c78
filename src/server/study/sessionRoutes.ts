/**
 * A participant's session: the study's introduction, starting a session, the session's items
 * (tasks without test outputs) and progress, and finishing it.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { withoutAnswers } from '../../core/formats/arcTask';
import type { CreatedSession, FinishResult, SessionItem, SessionView, StudyIntro } from '../../core/protocol/api';
import { CreateSessionRequest, FinishRequest } from '../../core/protocol/requests';
import { itemLimits, poolOf, questionRefs } from '../../core/study/schema';
import { paymentOffer } from '../../core/study/paymentText';
import { AFTER_RETURN_FLAG, REDIRECT_AFTER_SECONDS, completionRedirect } from '../../core/study/prolific';
import { createDrawnSession, drawCount } from '../campaign/assign';
import { sessionOrder } from '../../core/study/shuffle';
import { ITEM_END, ITEM_START, effectiveState, sessionBudget, sessionProgress } from '../../core/study/rules';
import { tallyTests, type ItemSummary } from '../../core/study/summary';
import type { StudyDefinition } from '../../core/study/schema';
import type { SessionRecord, StudyGamePin } from '../store/types';
import { currentGamePins } from '../arc3/gameCode';
import { bearer, hashToken, newToken, tokenMatches } from '../people/auth';
import { fail, itemLimitsOf, readBody, testIndicesOf } from './context';
import type { StudyWiring } from './services';

/** Participant params kept with a session: at most this many, names and values bounded. */
const MAX_PARAMS = 30;

/** Identity fields of participant recruitment platforms, named in the docs; other names are kept too. */
export const KNOWN_PARAMS = ['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID', 'workerId', 'assignmentId', 'hitId'] as const;

type IntroServices = Pick<StudyWiring, 'store' | 'definitions'>;
type StartServices = Pick<
  StudyWiring,
  'store' | 'now' | 'arc3' | 'mayDesign' | 'adminTokenHash' | 'pseudonym' | 'definitions' | 'participants'
>;
type ViewServices = Pick<StudyWiring, 'store' | 'now' | 'library' | 'arc3' | 'participants'>;
type FinishServices = Pick<StudyWiring, 'store' | 'now' | 'participants' | 'summaries' | 'endings'>;

export function sessionRoutes(services: IntroServices & StartServices & ViewServices & FinishServices): Hono {
  const api = new Hono();
  studyIntroRoute(api, services);
  sessionStartRoute(api, services);
  sessionViewRoute(api, services);
  sessionFinishRoute(api, services);
  return api;
}

/** `GET /studies/:studyId`: what a participant reads before a session starts. */
function studyIntroRoute(api: Hono, { store, definitions }: IntroServices): void {
  api.get('/studies/:studyId', async (c) => {
    const rec = await store.getStudy(c.req.param('studyId'));
    if (!rec) return fail(c, 404, 'not_found', `No study "${c.req.param('studyId')}". Check the link you were given.`);
    const s = definitions.ofRecord(rec);
    const fixed = s.items.filter((i, index) => i.kind !== 'page' && poolOf(s, index) === null).length;
    const payment = paymentOffer(s.payment);
    return c.json({
      id: rec.id,
      version: rec.version,
      title: s.title,
      consent: s.consent,
      items: fixed + s.pools.reduce((n, p) => n + drawCount(s, p), 0),
      sessionMinutes: s.limits.sessionMinutes,
      decline: s.decline ?? {},
      devices: s.devices,
      ...(payment ? { payment } : {}),
    } satisfies StudyIntro);
  });
}

/** `POST /studies/:studyId/sessions`: a session started, with its flags, its games' pins and its campaign draw. */
function sessionStartRoute(api: Hono, services: StartServices): void {
  const { store, now, arc3, definitions, participants } = services;
  /**
   * The games each study (by id, version and save time) is known to have pinned: a session of
   * it pins nothing more. Any server may pin first; the database keeps the first of each game.
   */
  const pinned = new Map<string, ReadonlySet<string>>();
  /** The current versions of the study's games that are not known pinned yet; empty for a study without games. */
  const pinsOf = (key: string, study: StudyDefinition): StudyGamePin[] => {
    const known = pinned.get(key);
    const ids = study.items.flatMap((i) => (i.kind === 'game' && !known?.has(i.game) ? [i.game] : []));
    return ids.length ? currentGamePins(ids, arc3?.service.list() ?? []) : [];
  };

  api.post('/studies/:studyId/sessions', async (c) => {
    const rec = await store.getStudy(c.req.param('studyId'));
    if (!rec) return fail(c, 404, 'not_found', `No study "${c.req.param('studyId')}". Check the link you were given.`);
    const parsed = await readBody(c, CreateSessionRequest, 'The session request is not valid');
    if (!parsed.ok) return parsed.res;
    const params = parsed.data.params;
    if (Object.keys(params).length > MAX_PARAMS)
      return fail(
        c,
        400,
        'malformed',
        `params has ${Object.keys(params).length} entries; at most ${MAX_PARAMS} are kept.`,
      );
    // Playtests never count toward results: only a researcher may start one, or a participant
    // could take themselves out of a study's results with a link parameter.
    if (params.mode === 'playtest') {
      const token = bearer(c.req.header('Authorization'));
      const allowed = services.mayDesign
        ? await services.mayDesign(c)
        : token !== null && tokenMatches(token, services.adminTokenHash);
      if (!allowed) {
        return fail(
          c,
          403,
          'forbidden',
          "Only a researcher can start a playtest session: log in to the studio and start it from the game's Playtest page.",
        );
      }
    }
    // Parsed once per saved version (a campaign's pools may hold hundreds of candidates).
    const study = definitions.ofRecord(rec);
    const flags: string[] = [];
    // A participant whose Prolific submission was returned or timed out comes back: the study's rule.
    const pid = params.PROLIFIC_PID;
    if (study.prolific && pid && params.mode !== 'playtest') {
      const seen = await store.prolific.seenSubmissions(rec.id, pid);
      if (seen.length && study.prolific.afterReturn === 'refuse')
        return fail(
          c,
          409,
          'prolific_returned',
          `Prolific reports that you returned this study (or that your time on it ran out), so it cannot be started again. If you think this is a mistake, message the researcher on Prolific.`,
        );
      if (seen.length) flags.push(AFTER_RETURN_FLAG);
    }
    for (const key of ['PROLIFIC_PID', 'workerId']) {
      if (params[key] && (await store.countSessionsWithParam(rec.id, key, params[key])) > 0)
        flags.push('repeat_participant');
      // Earlier sessions past the study's retention period hold the identifier's pseudonym.
      else if (
        params[key] &&
        study.retention &&
        services.pseudonym &&
        (await store.countSessionsWithParam(rec.id, key, services.pseudonym(params[key]))) > 0
      )
        flags.push('repeat_participant');
    }
    const seed = randomInt(0, 2 ** 31 - 1);
    const token = newToken();
    const id = randomUUID();
    const base = {
      id,
      studyId: rec.id,
      studyVersion: rec.version,
      tokenHash: hashToken(token),
      params,
      seed,
      createdAt: now(),
      flags: [...new Set(flags)],
    };
    // The study's game versions, recorded with its first session that has each game.
    const pinKey = `${rec.id}\u0000${rec.version}\u0000${rec.createdAt}`;
    const pins = pinsOf(pinKey, study);
    let created;
    if (study.pools.length === 0) {
      const order = sessionOrder(study, seed);
      created = { ...base, order, ...(await store.createSession({ ...base, order }, pins)) };
    } else {
      // A campaign: the pools' candidates are drawn and claimed in the transaction that creates the session.
      const drawn = await createDrawnSession(
        store,
        study,
        base,
        base.createdAt,
        params.mode !== 'playtest',
        pins,
        services.pseudonym,
      );
      created = { ...base, order: [...drawn.order], stage: drawn.stage };
    }
    if (pins.length) pinned.set(pinKey, new Set([...(pinned.get(pinKey) ?? []), ...pins.map((p) => p.gameId)]));
    // The first batch follows at once: it finds its session here instead of in the database.
    participants.remember({
      ...created,
      state: 'started',
      ackedThrough: -1,
      eventCount: 0,
      eventBytes: 0,
      lastEventAt: null,
      finishedAt: null,
      excludedAt: null,
      excludedReason: null,
    });
    return c.json({ sessionId: id, token } satisfies CreatedSession, 201);
  });
}

/** `GET /sessions/:sessionId`: the session's items (tasks without test outputs) and progress. */
function sessionViewRoute(api: Hono, { store, now, library, arc3, participants }: ViewServices): void {
  api.get('/sessions/:sessionId', async (c) => {
    const p = await participants.authenticate(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const [marks, subs] = await Promise.all([
      store.readEvents(session.id, { kinds: [ITEM_START, ITEM_END] }),
      store.listSubmissions(session.id),
    ]);
    const items: SessionItem[] = [];
    const tests = new Map<string, number[]>();
    for (const index of session.order) {
      const item = study.items[index];
      if (item.kind === 'task') {
        const found = await library.task(item.collection, item.task);
        if (!found.ok)
          return fail(
            c,
            422,
            'task_unavailable',
            `Item ${item.id}: ${found.message} Tell the researcher; your session is kept.`,
          );
        const indices = testIndicesOf(item, found.task.test.length);
        tests.set(item.id, indices);
        const shown = withoutAnswers(found.task);
        items.push({
          kind: 'task',
          id: item.id,
          practice: item.practice,
          task: { train: shown.train, test: indices.map((i) => shown.test[i]) },
          testIndices: indices,
          limits: itemLimitsOf(study, item),
          ...(item.describe ? { describe: item.describe } : {}),
        });
      } else if (item.kind === 'game') {
        const server = arc3?.service.info(item.game);
        items.push({
          kind: 'game',
          id: item.id,
          practice: item.practice,
          game: item.game,
          seed: item.seed,
          limits: itemLimitsOf(study, item),
          ...(item.describe ? { describe: item.describe } : {}),
          ...(server ? { server: { title: server.title, fps: server.fps, levels: server.levels } } : {}),
        });
      } else if (item.kind === 'question') {
        const questions = [];
        for (const ref of questionRefs(item)) {
          const found = library.questions.question(ref.collection, ref.question);
          if (!found.ok)
            return fail(
              c,
              422,
              'task_unavailable',
              `Item ${item.id}: ${found.message} Tell the researcher; your session is kept.`,
            );
          questions.push(library.questions.publicView(ref.collection, found.item));
        }
        items.push({
          kind: 'question',
          id: item.id,
          practice: item.practice,
          questions,
          block: item.questions !== undefined,
          limits: itemLimitsOf(study, item),
          ...(item.title ? { title: item.title } : {}),
        });
      } else if (item.kind === 'survey') {
        items.push({
          kind: 'survey',
          id: item.id,
          title: item.title,
          questions: item.questions,
          ...(item.intro ? { intro: item.intro } : {}),
        });
      } else {
        items.push(item);
      }
    }
    const tally = (id: string) => tallyTests(subs, id, tests.get(id) ?? []);
    const t = now();
    const progress = sessionProgress(
      study,
      session.order,
      marks,
      (id) => tally(id).every((x) => x.solved || x.trialsUsed >= study.trials),
      { createdAt: session.createdAt, now: t, pauses: session.pauses },
    );
    // Candidates the time left no longer allows go back to their pools at once.
    const skipped = progress.items
      .filter((i) => i.skipped)
      .map((i) => ({ candidate: i.id, state: 'skipped' as const }));
    if (skipped.length && session.params.mode !== 'playtest') await store.campaigns.settle(session.id, skipped, t);
    return c.json({
      session: {
        id: session.id,
        studyId: session.studyId,
        studyVersion: session.studyVersion,
        state: effectiveState(session, study, t),
        createdAt: session.createdAt,
        ackedThrough: session.ackedThrough,
        now: t,
        stage: session.stage,
      },
      budget: sessionBudget(study, session.createdAt, t, session.pauses),
      study: {
        title: study.title,
        consent: study.consent,
        instructions: study.instructions,
        trials: study.trials,
        limits: study.limits,
        allowLevelReset: study.allowLevelReset,
        showActionCounter: study.showActionCounter,
        showTimeLeft: study.showTimeLeft,
        ...(study.withdraw ? { withdraw: study.withdraw } : {}),
      },
      items,
      progress: {
        current: progress.current,
        items: progress.items.map((i) => ({
          id: i.id,
          started: i.started,
          startedAt: i.startedAt,
          finished: i.finished,
          ...(i.skipped ? { skipped: true } : {}),
          ...(tests.has(i.id)
            ? { tests: tally(i.id).map((t) => ({ ...t, trialsLeft: t.solved ? 0 : study.trials - t.trialsUsed })) }
            : {}),
        })),
      },
    } satisfies SessionView);
  });
}

/** `POST /sessions/:sessionId/finish`: the session ended by its participant, and the completion code. */
function sessionFinishRoute(api: Hono, { store, now, participants, summaries, endings }: FinishServices): void {
  api.post('/sessions/:sessionId/finish', async (c) => {
    const p = await participants.authenticate(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const parsed = await readBody(c, FinishRequest, 'The finish request is not valid');
    if (!parsed.ok) return parsed.res;
    if (session.ackedThrough < parsed.data.lastSeq) {
      return fail(
        c,
        409,
        'events_pending',
        `Events after seq ${session.ackedThrough} are not on the server yet (you sent up to ${parsed.data.lastSeq}); send them, then finish again.`,
        { ackedThrough: session.ackedThrough },
      );
    }
    if (session.state === 'withdrawn')
      return fail(
        c,
        409,
        'session_withdrawn',
        'You withdrew from this study, so the session cannot be finished; you may close this page.',
      );
    if (session.state !== 'finished') {
      const t = now();
      const summary = await summaries.summarize(session, study);
      const state = effectiveState(session, study, t) === 'timed_out' ? 'timed_out' : 'finished';
      // The completion code is for finished work: every item done, unless the session's time ended it.
      const left = state === 'timed_out' ? [] : await unfinishedItems(session, study, summary.items, t);
      if (left.length && study.completion.unfinished === 'refuse') {
        const named = left.slice(0, 3).join(', ') + (left.length > 3 ? ` and ${left.length - 3} more` : '');
        return fail(
          c,
          409,
          'items_unfinished',
          `${left.length} of ${session.order.length} items of this session are not done yet (${named}). Finish them first, or withdraw to stop taking part; nothing was changed.`,
          { unfinished: left },
        );
      }
      await endings.end(session, study, { state, summary, flags: left.length ? ['unfinished'] : [] }, t);
    }
    return c.json({
      completionCode: study.completion.code,
      redirectUrl: completionRedirect(study),
      redirectAfterSeconds: study.completion.redirectAfterSeconds ?? REDIRECT_AFTER_SECONDS,
    } satisfies FinishResult);
  });

  /**
   * The items of a session not done yet: every item but pages, done when ended (or a later one
   * started, or a task solved or out of trials), when its hard limit has passed since it started,
   * or, for a pool candidate, when too little of the session's time was left to start it.
   */
  async function unfinishedItems(
    session: SessionRecord,
    study: StudyDefinition,
    items: readonly ItemSummary[],
    t: number,
  ): Promise<string[]> {
    const marks = await store.readEvents(session.id, { kinds: [ITEM_START, ITEM_END] });
    const skipped = new Set(
      sessionProgress(study, session.order, marks, undefined, {
        createdAt: session.createdAt,
        now: t,
        pauses: session.pauses,
      })
        .items.filter((i) => i.skipped)
        .map((i) => i.id),
    );
    return items
      .filter((i, pos) => {
        if (i.kind === 'page' || i.finished || skipped.has(i.id)) return false;
        // Surveys have no hard limit; every other item's limit is the study's rule.
        const hard = itemLimits(study, study.items[session.order[pos]]).hardMinutes;
        return !(i.kind !== 'survey' && i.startedAt !== null && t - i.startedAt > hard * 60_000);
      })
      .map((i) => i.id);
  }
}
