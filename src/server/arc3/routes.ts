/**
 * HTTP routes of server-run ARC-AGI-3 games (docs/api.md, "ARC-AGI-3 games"):
 * - participants, with their session token: `POST /sessions/:id/runs` opens (or resumes) the run
 *   of a game item, `POST /sessions/:id/runs/:run/actions` performs one action;
 * - researchers: `GET /admin/arc3/games` lists every game with the engine found,
 *   `GET /admin/arc3/games/:id/frame` the frame it opens on (thumbnails),
 *   `GET /admin/arc3/games/:id/status` tells a playtest page that the game's file was reloaded,
 *   `POST /admin/arc3/runs` + `/admin/arc3/runs/:run/actions` play without recording (from any
 *   level), `GET /admin/arc3/runs/:run/inspect` shows such a run's attributes and sprites, and
 *   `POST /admin/arc3/runs/:run/determinism` plays its actions twice and compares the frames,
 *   `POST /admin/arc3/games/:id/graph` explores a level's state graph and
 *   `POST /admin/arc3/graphs/:exploration/cancel` stops one under way.
 */
import { performance } from 'node:perf_hooks';
import { Hono, type Context } from 'hono';
import type { ApiErrorBody } from '../../core/protocol/errors';
import type { Arc3GamesReply } from '../../core/protocol/arc3';
import {
  ExplorationId,
  GraphExploreRequest,
  PlaytestOpenRequest,
  RunActionRequest,
  RunOpenRequest,
} from '../../core/protocol/requests';
import type { StudyDefinition, StudyItem } from '../../core/study/schema';
import { fail, readBody } from '../http';
import type { SessionRecord, SessionStamp } from '../store/types';
import { type AdminRunsDeps, adminRunsRoutes, serviceReplayer } from './adminRuns';
import { StepRefused, type Arc3RouteInfo, type StepAdmission, type StepTiming } from './runs';
import { Arc3Error } from './worker';

/** An `Arc3Error` as a reply; the traceback only for researchers, the server log always has it. */
function arc3Fail(c: Context, e: unknown, researcher: boolean) {
  if (!(e instanceof Arc3Error)) throw e;
  if (e.traceback) console.error(`${e.message}\n${e.traceback}`);
  const tb = researcher && e.traceback ? { traceback: e.traceback } : {};
  switch (e.code) {
    case 'bad_request':
      return fail(c, 400, 'malformed', e.message);
    case 'unknown_run':
      return fail(c, 404, 'run_lost', `${e.message}.`);
    case 'unknown_game':
      return fail(c, 404, 'not_found', `${e.message}.`);
    case 'ambiguous_game':
      return fail(c, 409, 'ambiguous_game', `${e.message}.`);
    case 'upstream_lost':
      return fail(
        c,
        409,
        'game_lost',
        researcher
          ? `${e.message}.`
          : 'The server that runs this game lost it and it could not be rebuilt. Everything you did is saved: tell the researcher, then go on with the study.',
      );
    case 'cancelled':
      return fail(c, 409, 'cancelled', e.message);
    case 'too_many_runs':
      return fail(c, 409, 'too_many_runs', `${e.message[0].toUpperCase()}${e.message.slice(1)}.`);
    case 'too_many_open_runs': {
      const wait = e.retryAfter ?? 60;
      return c.json(
        {
          error: 'too_many_open_runs',
          message: `${e.message[0].toUpperCase()}${e.message.slice(1)}.`,
          retryAfter: wait,
        } satisfies ApiErrorBody,
        429,
        { 'Retry-After': String(wait) },
      );
    }
    case 'game_error':
    case 'load_error':
      return c.json(
        {
          error: 'game_error',
          message: researcher
            ? e.message
            : 'The game failed on this action. Nothing you did is lost: the game goes on from where it was, and the researcher has been told.',
          ...tb,
        } satisfies ApiErrorBody,
        422,
      );
    default:
      return c.json(
        {
          error: 'game_unavailable',
          message: researcher
            ? e.message
            : 'The game is not answering right now. Wait a moment and try again; nothing you did is lost.',
          ...tb,
        } satisfies ApiErrorBody,
        503,
        { 'Retry-After': '2' },
      );
  }
}

/** A participant's write about a game item, as the admission rule takes it. */
interface GameWrite {
  readonly item: StudyItem;
  readonly lastSeq?: number;
  /** What is refused, for messages. */
  readonly what: string;
}

/** A yes with the stamp of the session's row it was decided on, or the reply refusing the write. */
type StampedVerdict =
  { readonly ok: true; readonly stamp: SessionStamp } | { readonly ok: false; readonly res: Response };

/**
 * What the game routes take of the study's services: who a participant's request is
 * (`study/participants.ts`) and the admission rule (`study/admission.ts`), given by the study
 * routes; declared here in the terms of the layers below, as the study feature is built on this one.
 */
export interface Arc3RouteServices {
  readonly participants: {
    authenticate(
      c: Context,
      fresh?: boolean,
    ): Promise<
      | { readonly ok: true; readonly session: SessionRecord; readonly study: StudyDefinition }
      | { readonly ok: false; readonly res: Response }
    >;
  };
  readonly admission: {
    admit(
      c: Context,
      session: SessionRecord,
      study: StudyDefinition,
      req: GameWrite,
    ): Promise<{ readonly ok: true; readonly now: number } | { readonly ok: false; readonly res: Response }>;
    admitOnRow(
      c: Context,
      known: { session: SessionRecord; study: StudyDefinition },
      req: GameWrite,
    ): Promise<StampedVerdict>;
    admitOnFreshRow(c: Context, req: GameWrite): Promise<StampedVerdict>;
  };
  readonly store: AdminRunsDeps['store'];
  readonly digests?: AdminRunsDeps['digests'];
}

export function arc3Routes({ participants, admission, store, digests }: Arc3RouteServices, info: Arc3RouteInfo): Hono {
  const { service } = info;
  const api = new Hono();

  api.post('/sessions/:sessionId/runs', async (c) => {
    const p = await participants.authenticate(c);
    if (!p.ok) return p.res;
    const parsed = await readBody(c, RunOpenRequest, 'The run request is not valid');
    if (!parsed.ok) return parsed.res;
    const item = p.study.items.find((i) => i.id === parsed.data.item);
    if (!item || item.kind !== 'game' || !service.has(item.game))
      return fail(c, 404, 'not_found', `This study has no ARC-AGI-3 game item "${parsed.data.item}".`);
    const admitted = await admission.admit(c, p.session, p.study, {
      item,
      lastSeq: parsed.data.lastSeq,
      what: 'game actions',
    });
    if (!admitted.ok) return admitted.res;
    try {
      const { resume } = parsed.data;
      if (resume) {
        // A run is resumed under its own item only, which the admission above checked.
        if ((await service.runItem(resume.run, p.session.id))?.item !== item.id)
          return fail(
            c,
            404,
            'run_lost',
            `No run ${resume.run} of item ${item.id} in this session; open the game again.`,
          );
        return c.json(await service.resume(resume.run, p.session.id, resume.after, resume.logged));
      }
      return c.json(
        await service.open({
          gameId: item.game,
          seed: item.seed ?? 0,
          session: { id: p.session.id, item: item.id, at: admitted.now },
        }),
      );
    } catch (e) {
      return arc3Fail(c, e, false);
    }
  });

  // Where a step's time went, for `npm run bench -- arc3`; off unless asked for, as it tells how the server is built.
  const serverTiming = process.env.ARC_STUDIO_SERVER_TIMING === '1';
  api.post('/sessions/:sessionId/runs/:run/actions', async (c) => {
    const t0 = performance.now();
    // The token is checked against the session as last read (its id, token and study never
    // change); the admission below is decided on that row too, and the step stored only while the
    // row is unchanged (`admitOnRow`).
    const p = await participants.authenticate(c, false);
    if (!p.ok) return p.res;
    const parsed = await readBody(c, RunActionRequest, 'The action is not valid');
    if (!parsed.ok) return parsed.res;
    const runId = c.req.param('run');
    const run = await service.runItem(runId, p.session.id);
    const item = p.study.items.find((i) => i.id === run?.item);
    if (!run || !item) return fail(c, 404, 'run_lost', `No run ${runId} in this session; open the game again.`);
    // The admission is decided while the worker plays the action: the step is answered and
    // stored only once admitted, and a refused action is dropped (runs.ts).
    const request = { item, what: 'game actions' };
    let refusal: Response | null = null;
    const verdictOf = (a: StampedVerdict) => {
      if (a.ok) return a.stamp;
      refusal = a.res;
      return null;
    };
    const gate: StepAdmission = {
      verdict: admission.admitOnRow(c, p, request).then(verdictOf),
      again: () => admission.admitOnFreshRow(c, request).then(verdictOf),
    };
    // Awaited by the service on every path that answers; this keeps a failed read from going unhandled on the others.
    gate.verdict.catch(() => undefined);
    try {
      if (!serverTiming) return c.json(await service.act(runId, p.session.id, parsed.data, undefined, gate));
      const t1 = performance.now();
      const timing: StepTiming = { worker: 0, frames: 0, sign: 0, store: 0 };
      const step = await service.act(runId, p.session.id, parsed.data, timing, gate);
      const res = c.json(step);
      const parts = { ...timing, admission: t1 - t0 + (timing.admission ?? 0), total: performance.now() - t0 };
      res.headers.set(
        'Server-Timing',
        Object.entries(parts)
          .map(([k, v]) => `${k};dur=${v.toFixed(3)}`)
          .join(', '),
      );
      return res;
    } catch (e) {
      if (e instanceof StepRefused && refusal) return refusal;
      return arc3Fail(c, e, false);
    }
  });

  const admin = new Hono();
  admin.get('/arc3/games', async (c) => {
    await service.refresh();
    const reply: Arc3GamesReply = {
      engine: info.engine,
      games: service.list().map((g) => ({ ...g, olderVersions: service.olderVersions(g.id) })),
    };
    return c.json(reply);
  });
  admin.get('/arc3/games/:id/status', (c) => {
    const id = c.req.param('id');
    if (!service.has(id)) return fail(c, 404, 'not_found', `No ARC-AGI-3 game ${id} on this server.`);
    return c.json(service.fileStatus(id));
  });
  admin.get('/arc3/games/:id/frame', async (c) => {
    try {
      return c.json({ frames: await service.openingFrame(c.req.param('id')) });
    } catch (e) {
      return arc3Fail(c, e, true);
    }
  });
  admin.post('/arc3/games/:id/graph', async (c) => {
    const parsed = await readBody(c, GraphExploreRequest, 'The state graph request is not valid');
    if (!parsed.ok) return parsed.res;
    try {
      const { level, seed = 0, maxStates = 2_000, maxSeconds = 30, exploration } = parsed.data;
      return c.json(
        await service.graph(c.req.param('id'), {
          level,
          seed,
          maxStates,
          maxSeconds,
          exploration,
          signal: c.req.raw.signal,
        }),
      );
    } catch (e) {
      return arc3Fail(c, e, true);
    }
  });
  admin.post('/arc3/graphs/:exploration/cancel', (c) => {
    const exploration = c.req.param('exploration');
    if (!ExplorationId.safeParse(exploration).success)
      return fail(
        c,
        400,
        'malformed',
        'exploration: must be 8 to 64 letters, digits or dashes, as the graph request named it.',
      );
    if (!service.cancelGraph(exploration))
      return fail(
        c,
        404,
        'not_found',
        `No exploration "${exploration}" is running on this server: it has ended (its answer says how) or never began.`,
      );
    return c.json({ cancelled: true });
  });
  admin.post('/arc3/runs', async (c) => {
    const parsed = await readBody(c, PlaytestOpenRequest, 'The run request is not valid');
    if (!parsed.ok) return parsed.res;
    try {
      return c.json(
        await service.open({ gameId: parsed.data.game, seed: parsed.data.seed ?? 0, level: parsed.data.level ?? 0 }),
      );
    } catch (e) {
      return arc3Fail(c, e, true);
    }
  });
  admin.post('/arc3/runs/:run/actions', async (c) => {
    const parsed = await readBody(c, RunActionRequest, 'The action is not valid');
    if (!parsed.ok) return parsed.res;
    try {
      return c.json(await service.act(c.req.param('run'), null, parsed.data));
    } catch (e) {
      return arc3Fail(c, e, true);
    }
  });
  admin.post('/arc3/runs/:run/determinism', async (c) => {
    try {
      return c.json(await service.determinism(c.req.param('run')));
    } catch (e) {
      return arc3Fail(c, e, true);
    }
  });
  admin.get('/arc3/runs/:run/inspect', async (c) => {
    try {
      return c.json(await service.inspect(c.req.param('run'), null));
    } catch (e) {
      return arc3Fail(c, e, true);
    }
  });
  admin.route(
    '/',
    adminRunsRoutes({
      store,
      digests,
      replayer:
        info.checkReplayer ?? (() => ({ replayer: serviceReplayer(service), release: () => Promise.resolve() })),
    }),
  );
  api.route('/admin', admin);
  return api;
}
