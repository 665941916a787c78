/**
 * A testing centre (docs/api.md, "Testing centre"; docs/testing-centre.md): a proctor registers
 * browsers as stations of a study, checks participants in, follows every station on a console,
 * pauses, resumes, notes, flags and ends sessions, and prints the day's payouts.
 *
 * A station begins its participant's session itself, through the study link's own route
 * (`POST /api/studies/:studyId/sessions` with `participantId` and `station` params), so the
 * campaign's draws, claims and admission are the study link's (`study/sessionRoutes.ts`,
 * `campaign/assign.ts`, `study/admission.ts`), and never a candidate the participant met before
 * (`participantKey` reads `participantId`). It then tells this router which session it began,
 * proving it with the session's token.
 */
import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import {
  CheckinRequest,
  ClearedRequest,
  EndRequest,
  NoteRequest,
  PARTICIPANT_PARAM,
  PingRequest,
  STATION_PARAM,
  StationRequest,
  StationSessionRequest,
  type ConsoleView,
  type PayoutsView,
  type StationCreated,
  type StationView,
} from '../../core/protocol/centre';
import { effectiveState, isFinalState } from '../../core/study/rules';
import { isPaused } from '../../core/study/pauses';
import { STATION_OFFLINE_MS } from '../../core/study/centre';
import { payoutCsv, payoutSheet } from '../../core/analysis/payouts';
import { paymentsView } from '../../core/analysis/campaign';
import { bearer, hashToken, newToken, tokenMatches } from '../people/auth';
import { auditActorOf } from '../people/permissions';
import type { StationRecord } from '../store/centreStore';
import type { StudyWiring } from '../study/services';
import { type CampaignServices, campaignFigures } from '../campaign/routes';
import { bodyLimit, fail, readBody, stageQuery } from '../http';
import { type ConsoleReader, consoleReader } from './console';

/** The largest body a centre route reads, in bytes. */
const MAX_BODY = 16_384;

/** A day as the payout routes take it: `YYYY-MM-DD`, UTC. */
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** What the proctor's routes take: the campaign figures' services (for the payout sheet) and the session's end. */
type ProctorServices = CampaignServices & Pick<StudyWiring, 'store' | 'now' | 'definitions' | 'summaries' | 'endings'>;
type StationServices = Pick<StudyWiring, 'store' | 'now' | 'definitions'>;

export function centreRoutes(services: ProctorServices & StationServices): Hono {
  const api = new Hono();
  // Every body here is a few fields: anything larger is refused before it is read.
  api.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY,
      onError: (c) =>
        fail(
          c,
          413,
          'too_large',
          `A testing centre request is at most ${MAX_BODY} bytes; send only the fields the route takes.`,
        ),
    }),
  );
  proctorRoutes(api, services, consoleReader(services));
  stationRoutes(api, services);
  return api;
}

/** The proctor's console: stations, check-ins, retiring stations, pauses, ending a session, notes, the payout sheet. */
function proctorRoutes(api: Hono, services: ProctorServices, consoleView: ConsoleReader): void {
  const { store, now, definitions, summaries, endings } = services;
  const offlineMs = stationOfflineMs(process.env.ARC_STUDIO_STATION_OFFLINE_S);
  /** The session of the route's `:sessionId` begun at the centre, with its study; or the reply. */
  const centreSession = async (c: Context) => {
    const id = c.req.param('sessionId') ?? '';
    const [session, checkin] = await Promise.all([store.getSession(id), store.centre.checkinOf(id)]);
    if (!session || !checkin)
      return {
        ok: false as const,
        res: fail(
          c,
          404,
          'not_found',
          `No session "${id}" was begun at a station. The console lists the sessions there are.`,
        ),
      };
    const study = await definitions.at(session.studyId, session.studyVersion);
    return { ok: true as const, session, checkin, study };
  };

  api.get('/admin/studies/:studyId/centre', async (c) => {
    const id = c.req.param('studyId');
    const rec = await store.getStudy(id);
    if (!rec) return fail(c, 404, 'not_found', `No study "${id}". The studies page lists the studies you may open.`);
    const view = await consoleView(id, now(), offlineMs, c.req.query('retired') === '1');
    return c.json({ ...view, title: definitions.ofRecord(rec).title } satisfies ConsoleView);
  });

  api.post('/admin/studies/:studyId/centre/stations', async (c) => {
    const id = c.req.param('studyId');
    if (!(await store.getStudy(id)))
      return fail(c, 404, 'not_found', `No study "${id}". The studies page lists the studies you may open.`);
    const body = await readBody(c, StationRequest, 'The station is not valid');
    if (!body.ok) return body.res;
    const secret = newToken();
    const station = { id: randomUUID(), studyId: id, name: body.data.name, secretHash: hashToken(secret) };
    const added = await store.centre.addStation({ ...station, createdAt: now(), createdBy: auditActorOf(c).actor });
    if (!added)
      return fail(
        c,
        409,
        'exists',
        `Study "${id}" has a station named "${body.data.name}" already; choose another name.`,
      );
    return c.json(
      { id: station.id, name: station.name, secret, link: `/station#${secret}` } satisfies StationCreated,
      201,
    );
  });

  api.post('/admin/studies/:studyId/centre/stations/:stationId/checkin', async (c) => {
    const body = await readBody(c, CheckinRequest, 'The check-in is not valid');
    if (!body.ok) return body.res;
    const { studyId, stationId } = c.req.param();
    const busy = (await consoleView(studyId, now(), offlineMs, true)).stations.find((s) => s.id === stationId);
    if (!busy)
      return fail(c, 404, 'not_found', `Study "${studyId}" has no station "${stationId}". Reload the console.`);
    if (busy.retiredAt !== null)
      return fail(
        c,
        409,
        'conflict',
        `Station "${busy.name}" is retired. Check ${body.data.participantId} in at another station, or put "${busy.name}" back in service first (the console's retired stations).`,
      );
    if (busy.session && !isFinalState(busy.session.state))
      return fail(
        c,
        409,
        'conflict',
        `Station "${busy.name}" has ${busy.session.participant} on it still. End or finish that session first, or check ${body.data.participantId} in at another station.`,
      );
    await store.centre.setPending(studyId, stationId, body.data.participantId);
    return c.json({ station: stationId, waiting: body.data.participantId });
  });

  // A retired station is kept (its check-ins name it on the payout sheet) but takes no one.
  const retireRoute = (retire: boolean) => async (c: Context) => {
    const { studyId, stationId } = c.req.param();
    const stations = (await consoleView(studyId, now(), offlineMs, true)).stations;
    const st = stations.find((s) => s.id === stationId);
    if (!st) return fail(c, 404, 'not_found', `Study "${studyId}" has no station "${stationId}". Reload the console.`);
    if (retire && st.session && !isFinalState(st.session.state))
      return fail(
        c,
        409,
        'conflict',
        `Station "${st.name}" has ${st.session.participant} on it still. End or finish that session first, then retire the station.`,
      );
    const changed = await store.centre.setRetired(studyId, stationId, retire ? (st.retiredAt ?? now()) : null);
    if (!changed)
      return fail(c, 404, 'not_found', `Study "${studyId}" has no station "${stationId}". Reload the console.`);
    return c.json({ id: changed.id, name: changed.name, retiredAt: changed.retiredAt });
  };
  api.post('/admin/studies/:studyId/centre/stations/:stationId/retire', retireRoute(true));
  api.post('/admin/studies/:studyId/centre/stations/:stationId/unretire', retireRoute(false));

  const pauseRoute = (pause: boolean) => async (c: Context) => {
    const s = await centreSession(c);
    if (!s.ok) return s.res;
    const t = now();
    const state = effectiveState(s.session, s.study, t);
    if (isFinalState(state))
      return fail(
        c,
        409,
        'session_closed',
        `This session is ${state.replace('_', ' ')}; there is nothing to ${pause ? 'pause' : 'resume'}.`,
      );
    const r = pause ? await store.centre.pause(s.session.id, t) : await store.centre.resume(s.session.id, t);
    const fresh = await store.getSession(s.session.id);
    return c.json({ sessionId: s.session.id, paused: isPaused(fresh?.pauses), changed: r.found && r.changed });
  };
  api.post('/admin/sessions/:sessionId/centre/pause', pauseRoute(true));
  api.post('/admin/sessions/:sessionId/centre/resume', pauseRoute(false));

  api.post('/admin/sessions/:sessionId/centre/end', async (c) => {
    const body = await readBody(c, EndRequest, 'The end request is not valid');
    if (!body.ok) return body.res;
    const s = await centreSession(c);
    if (!s.ok) return s.res;
    const t = now();
    const state = effectiveState(s.session, s.study, t);
    if (!isFinalState(state)) {
      // A break still open ends with the session, so its time counts as a break and nothing else.
      await store.centre.resume(s.session.id, t);
      const summary = await summaries.summarize(s.session, s.study);
      await endings.end(
        s.session,
        s.study,
        { state: state === 'timed_out' ? 'timed_out' : 'finished', summary, flags: ['ended_by_proctor'] },
        t,
      );
      if (body.data.reason)
        await store.centre.addNote({
          sessionId: s.session.id,
          studyId: s.session.studyId,
          at: t,
          ...pick(auditActorOf(c)),
          text: `Ended: ${body.data.reason}`,
          flag: false,
        });
    }
    return c.json({ sessionId: s.session.id, ended: true });
  });

  api.post('/admin/sessions/:sessionId/centre/notes', async (c) => {
    const body = await readBody(c, NoteRequest, 'The note is not valid');
    if (!body.ok) return body.res;
    const s = await centreSession(c);
    if (!s.ok) return s.res;
    const note = await store.centre.addNote({
      sessionId: s.session.id,
      studyId: s.session.studyId,
      at: now(),
      ...pick(auditActorOf(c)),
      text: body.data.text,
      flag: body.data.flag,
    });
    return c.json(note, 201);
  });

  const payouts = async (c: Context): Promise<{ ok: true; view: PayoutsView } | { ok: false; res: Response }> => {
    const id = c.req.param('studyId') ?? '';
    const day = c.req.query('day') ?? null;
    if (day !== null && !DAY.test(day))
      return {
        ok: false,
        res: fail(c, 400, 'malformed', `day must be a date as YYYY-MM-DD (UTC), e.g. 2026-12-06; got "${day}".`),
      };
    const st = stageQuery(c);
    if (!st.ok) return st;
    const f = await campaignFigures(services, id, st.stage);
    if ('error' in f)
      return { ok: false, res: fail(c, f.status, f.status === 404 ? 'not_found' : 'not_a_campaign', f.error) };
    const since = day === null ? undefined : Date.parse(`${day}T00:00:00Z`);
    const stations = new Map((await store.centre.listStations(id, true)).map((s) => [s.id, s.name]));
    const checkins = (await store.centre.checkins(id, since)).filter(
      (k) => since === undefined || k.checkedInAt < since + 86_400_000,
    );
    const sheet = payoutSheet(
      paymentsView(f.study, f.sessions, f.claims),
      checkins.map((k) => ({ ...k, station: stations.get(k.stationId) ?? k.stationId })),
    );
    return { ok: true, view: { ...sheet, studyId: id, day } };
  };

  api.get('/admin/studies/:studyId/centre/payouts', async (c) => {
    const p = await payouts(c);
    return p.ok ? c.json(p.view) : p.res;
  });

  api.get('/admin/studies/:studyId/centre/payouts.csv', async (c) => {
    const p = await payouts(c);
    if (!p.ok) return p.res;
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header(
      'Content-Disposition',
      `attachment; filename="${p.view.studyId}-payouts${p.view.day ? `-${p.view.day}` : ''}.csv"`,
    );
    return c.body(payoutCsv(p.view));
  });
}

/** The stations' own routes, each authenticated by the station's secret. */
function stationRoutes(api: Hono, { store, now, definitions }: StationServices): void {
  /** The station whose secret the request carries, or the 401 that says what to do. */
  const stationOf = async (
    c: Context,
  ): Promise<{ ok: true; station: StationRecord } | { ok: false; res: Response }> => {
    const secret = bearer(c.req.header('Authorization'));
    const station = secret ? await store.centre.stationBySecret(hashToken(secret)) : null;
    if (!station)
      return {
        ok: false,
        res: fail(
          c,
          401,
          'unauthorized',
          'This browser is not a station (or its station was removed). Ask the proctor for a new station link and open it here.',
        ),
      };
    if (station.retiredAt !== null)
      return {
        ok: false,
        res: fail(
          c,
          403,
          'forbidden',
          `Station ${station.name} is retired: it checks no one in. Ask the proctor to put it back in service on the console, or open another station's link on this machine.`,
        ),
      };
    return { ok: true, station };
  };

  api.post('/centre/station/ping', async (c) => {
    const s = await stationOf(c);
    if (!s.ok) return s.res;
    const body = await readBody(c, PingRequest, 'The station ping is not valid');
    if (!body.ok) return body.res;
    const t = now();
    // Three statements a ping: a station calls every second, a hundred of them at once.
    const [, open] = await Promise.all([
      store.centre.touchStation(s.station.id, t, body.data.pending),
      store.centre.openCheckins(s.station.studyId, s.station.id),
    ]);
    const last = open[open.length - 1];
    const session = last ? await store.getSession(last.sessionId) : null;
    const state = session && effectiveState(session, await definitions.at(session.studyId, session.studyVersion), t);
    return c.json({
      station: { id: s.station.id, name: s.station.name, studyId: s.station.studyId },
      waiting: s.station.pendingParticipant,
      session:
        last && session && state
          ? {
              id: session.id,
              participant: last.participant,
              paused: isPaused(session.pauses),
              ended: isFinalState(state),
            }
          : null,
      now: t,
    } satisfies StationView);
  });

  api.post('/centre/station/sessions', async (c) => {
    const s = await stationOf(c);
    if (!s.ok) return s.res;
    const body = await readBody(c, StationSessionRequest, 'The station session is not valid');
    if (!body.ok) return body.res;
    const session = await store.getSession(body.data.sessionId);
    const participant = session?.params[PARTICIPANT_PARAM];
    if (!session || !tokenMatches(body.data.token, session.tokenHash))
      return fail(
        c,
        403,
        'forbidden',
        'That session and token do not go together; begin the session again from the station.',
      );
    if (session.studyId !== s.station.studyId || session.params[STATION_PARAM] !== s.station.id || !participant)
      return fail(
        c,
        409,
        'conflict',
        `Session ${session.id} was not begun on this station for a participant (its link needs the "${STATION_PARAM}" and "${PARTICIPANT_PARAM}" params of this station's study).`,
      );
    const recorded = await store.centre.checkIn({
      sessionId: session.id,
      stationId: s.station.id,
      studyId: session.studyId,
      participant,
      checkedInAt: session.createdAt,
    });
    return c.json({ sessionId: session.id, recorded }, recorded ? 201 : 200);
  });

  api.post('/centre/station/cleared', async (c) => {
    const s = await stationOf(c);
    if (!s.ok) return s.res;
    const body = await readBody(c, ClearedRequest, 'The cleared report is not valid');
    if (!body.ok) return body.res;
    const checkin = await store.centre.checkinOf(body.data.sessionId);
    if (!checkin || checkin.stationId !== s.station.id)
      return fail(c, 404, 'not_found', `Session ${body.data.sessionId} was not begun on this station.`);
    await store.centre.cleared(checkin.sessionId, now());
    return c.json({ sessionId: checkin.sessionId, cleared: true });
  });
}

/**
 * How long a silent station stays online on the console: `ARC_STUDIO_STATION_OFFLINE_S` seconds
 * (stations on a slow network may call late), else `STATION_OFFLINE_MS`.
 */
export function stationOfflineMs(setting: string | undefined): number {
  const s = Number(setting);
  return setting !== undefined && Number.isFinite(s) && s > 0 ? s * 1000 : STATION_OFFLINE_MS;
}

/** A note's author from the request's audit actor. */
function pick(a: { actor: string; personId: string | null }) {
  return { actor: a.actor, personId: a.personId };
}
