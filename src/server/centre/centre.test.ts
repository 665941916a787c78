/**
 * A testing centre with 100 stations, against the real `arc-studio serve` over HTTP: a proctor
 * registers the stations and checks a participant in at each; each station begins its session
 * through the study link's own route and logs its way into a pool candidate. After each change
 * the proctor makes (pause, resume, a note, end) the console's next reading shows it for exactly
 * the sessions it was made on, among the 100; a station that stops calling shows offline and then
 * behind and caught up; a participant who comes back never meets a candidate again; the payout
 * sheet adds up. Refusals of what a station or a proctor must not do come last.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../store/pgCluster';
import { kill9, serveFolders, startServe, type ServeProcess } from '../testing/serve';
import type { StudyDefinitionInput } from '../../core/study/schema';
import type { ConsoleView, PayoutsView, StationCreated, StationView } from '../../core/protocol/centre';
import { parseCsv } from '../../core/formats/csv';

const ADMIN = 'centre-researcher-token-0123456789abcdef';
const STATIONS = 100;
const STUDY = 'centre-day';

const definition: StudyDefinitionInput = {
  title: 'A day at the centre',
  consent: 'Consent.',
  completion: { code: 'CENTRE' },
  payment: { currency: 'USD', fee: 130, bonus: { perSolve: 5 } },
  items: [
    { kind: 'page', id: 'welcome', markdown: 'Welcome.' },
    {
      kind: 'pool',
      id: 'grids',
      draw: 2,
      target: { solves: 500 },
      // Every station draws two at once: pacing would hold back candidates no one has solved yet.
      fill: 'fast',
      candidates: Array.from({ length: 12 }, (_, k) => ({
        kind: 'task' as const,
        id: `c${k}`,
        collection: 'samples',
        task: ['mirror-across-wall', 'continue-pattern', 'most-common-color'][k % 3],
      })),
    },
  ],
};

interface Station {
  readonly id: string;
  readonly name: string;
  readonly secret: string;
  session?: { id: string; token: string; seq: number; participant: string; items: string[] };
}

describe('a testing centre of 100 stations on the real server', () => {
  let server: ServeProcess;
  const folders = serveFolders('arc-studio-centre-');
  const stations: Station[] = [];

  const call = async (method: string, url: string, token: string | null, body?: unknown) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetch(`${server.url}/api${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json = res.headers.get('Content-Type')?.startsWith('application/json');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (json ? JSON.parse(text) : text) as any };
  };
  const consoleNow = async () => (await call('GET', `/admin/studies/${STUDY}/centre`, ADMIN)).body as ConsoleView;
  const ping = async (s: Station, pending = 0) => {
    const r = await call('POST', '/centre/station/ping', s.secret, { sessionId: s.session?.id ?? null, pending });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as StationView;
  };
  const log = async (s: Station, events: { kind: string; data: Record<string, unknown> }[]) => {
    const session = s.session!;
    const batch = events.map((e) => ({ seq: session.seq++, t: session.seq * 100, ...e }));
    const r = await call('POST', `/sessions/${session.id}/events`, session.token, { events: batch });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  /** What the station does once a participant is waiting for it: begins the session by the study link's route. */
  const begin = async (s: Station, participant: string) => {
    const made = await call('POST', `/studies/${STUDY}/sessions`, null, {
      params: { participantId: participant, station: s.id },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const linked = await call('POST', '/centre/station/sessions', s.secret, made.body);
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    const view = await call('GET', `/sessions/${made.body.sessionId}`, made.body.token);
    const items = (view.body.items as { id: string }[]).map((i) => i.id);
    expect(items, JSON.stringify(view.body).slice(0, 300)).toHaveLength(3);
    s.session = { id: made.body.sessionId, token: made.body.token, seq: 0, participant, items };
    await log(s, [
      { kind: 'session.start', data: { mode: 'study' } },
      { kind: 'item.start', data: { item: 'welcome', kind: 'page' } },
      { kind: 'item.end', data: { item: 'welcome' } },
      { kind: 'item.start', data: { item: items[1], kind: 'task' } },
    ]);
  };
  const byName = (v: ConsoleView) => new Map(v.stations.map((s) => [s.name, s]));

  // The stations call the server, except those a test silences: every 5 s here, where their page
  // calls every second. A station shows offline only after 20 s of silence, and a hundred stations
  // pinging each second kept the server busy through the whole file (on a loaded machine that made
  // it six times longer, and every other file slower beside it); the first test's pings to every
  // station and the console's readings are what it checks.
  const HEARTBEAT_MS = 5_000;
  const silent = new Set<Station>();
  let beating: ReturnType<typeof setInterval> | null = null;
  let round: Promise<unknown> | null = null;
  const heartbeat = () => {
    round ??= Promise.all(
      stations
        .filter((s) => !silent.has(s))
        .map((s) => call('POST', '/centre/station/ping', s.secret, { sessionId: s.session?.id ?? null })),
    )
      .catch(() => {})
      .finally(() => (round = null));
  };

  beforeAll(async () => {
    server = await startServe({
      dataDir: folders.dataDir,
      dist: folders.dist,
      port: await freePort(),
      adminToken: ADMIN,
      env: {
        ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT: '100000',
        ARC_STUDIO_STUDY_SESSIONS_PER_MINUTE: '100000',
        // The stations' calls come late on a machine this test shares with others: a silent
        // station shows offline after 20 s here, not 5.
        ARC_STUDIO_STATION_OFFLINE_S: '20',
      },
    });
    expect((await call('POST', `/admin/studies/${STUDY}`, ADMIN, { definition })).status).toBe(201);
  });
  afterAll(async () => {
    if (beating) clearInterval(beating);
    await round;
    if (server) await kill9(server);
    folders.remove();
  });

  it('registers 100 stations, checks a participant in at each, and shows every one running its candidate', async () => {
    for (let k = 0; k < STATIONS; k++) {
      const r = await call('POST', `/admin/studies/${STUDY}/centre/stations`, ADMIN, { name: `S${k}` });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      const made = r.body as StationCreated;
      expect(made.link).toBe(`/station#${made.secret}`);
      stations.push({ id: made.id, name: made.name, secret: made.secret });
    }
    expect((await consoleNow()).stations.map((s) => s.state)).toEqual(Array(STATIONS).fill('offline'));

    await Promise.all(stations.map((s) => ping(s)));
    beating = setInterval(heartbeat, HEARTBEAT_MS);
    expect(new Set((await consoleNow()).stations.map((s) => s.state))).toEqual(new Set(['free']));

    for (const [k, s] of stations.entries()) {
      const r = await call('POST', `/admin/studies/${STUDY}/centre/stations/${s.id}/checkin`, ADMIN, {
        participantId: `p${k}`,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    const waiting = byName(await consoleNow());
    expect(stations.map((s) => `${s.name} ${waiting.get(s.name)?.state} ${waiting.get(s.name)?.waiting}`)).toEqual(
      stations.map((s, k) => `${s.name} waiting p${k}`),
    );

    await Promise.all(
      stations.map(async (s, k) => {
        expect((await ping(s)).waiting).toBe(`p${k}`);
        await begin(s, `p${k}`);
      }),
    );
    const view = byName(await consoleNow());
    for (const [k, s] of stations.entries()) {
      const st = view.get(s.name)!;
      expect(st.state, s.name).toBe('running');
      expect(st.waiting).toBeNull();
      expect(st.session).toMatchObject({
        participant: `p${k}`,
        paused: false,
        item: { id: s.session!.items[1], candidate: true },
      });
      expect(st.session!.item!.msLeft).toBeGreaterThan(0);
      expect(st.session!.sessionMsLeft).toBeGreaterThan(0);
    }
  });

  it('shows a pause, a resume, a note and a flag in the very next reading, on exactly their sessions', async () => {
    const paused = stations.filter((_, k) => k % 10 === 3);
    await Promise.all(paused.map((s) => call('POST', `/admin/sessions/${s.session!.id}/centre/pause`, ADMIN)));
    let view = byName(await consoleNow());
    for (const s of stations) expect(view.get(s.name)!.state, s.name).toBe(paused.includes(s) ? 'paused' : 'running');
    for (const s of paused)
      expect((await ping(s)).session).toMatchObject({ id: s.session!.id, paused: true, ended: false });
    // A second pause changes nothing: one break at a time.
    expect((await call('POST', `/admin/sessions/${paused[0].session!.id}/centre/pause`, ADMIN)).body).toMatchObject({
      paused: true,
      changed: false,
    });

    await Promise.all(paused.map((s) => call('POST', `/admin/sessions/${s.session!.id}/centre/resume`, ADMIN)));
    view = byName(await consoleNow());
    for (const s of paused) expect(view.get(s.name)!.state).toBe('running');
    // The break moved the end of the participant's budget later by its length.
    const own = paused[0].session!;
    const budget = (await call('GET', `/sessions/${own.id}`, own.token)).body as {
      session: { createdAt: number };
      budget: { endsAt: number };
    };
    expect(budget.budget.endsAt).toBeGreaterThan(budget.session.createdAt + 90 * 60_000);

    const noted = stations[7];
    await call('POST', `/admin/sessions/${noted.session!.id}/centre/notes`, ADMIN, { text: 'asked for water' });
    await call('POST', `/admin/sessions/${noted.session!.id}/centre/notes`, ADMIN, {
      text: 'looked at a phone',
      flag: true,
    });
    view = byName(await consoleNow());
    expect(view.get(noted.name)!.session!.notes.map((n) => [n.text, n.flag, n.actor])).toEqual([
      ['asked for water', false, 'researcher'],
      ['looked at a phone', true, 'researcher'],
    ]);
    expect(stations.filter((s) => view.get(s.name)!.session!.notes.length > 0)).toEqual([noted]);
  });

  it('shows idle and away from the station’s presence events', async () => {
    await log(stations[11], [{ kind: 'idle', data: { state: 'idle' } }]);
    await log(stations[12], [{ kind: 'visibility', data: { state: 'hidden' } }]);
    const view = byName(await consoleNow());
    expect(view.get('S11')!.state).toBe('idle');
    expect(view.get('S12')!.state).toBe('away');
    await log(stations[11], [{ kind: 'idle', data: { state: 'active' } }]);
    await log(stations[12], [{ kind: 'visibility', data: { state: 'visible' } }]);
    const after = byName(await consoleNow());
    expect([after.get('S11')!.state, after.get('S12')!.state]).toEqual(['running', 'running']);
  });

  it('shows a silent station offline, then behind while it sends what it kept, then caught up', async () => {
    const quiet = stations[20];
    silent.add(quiet);
    await expect
      .poll(async () => byName(await consoleNow()).get(quiet.name)!.state, { interval: 500, timeout: 120_000 })
      .toBe('offline');
    expect(byName(await consoleNow()).get('S21')!.state).toBe('running');
    await ping(quiet, 42);
    let st = byName(await consoleNow()).get(quiet.name)!;
    expect([st.state, st.outboxPending]).toEqual(['running', 42]);
    await ping(quiet, 0);
    st = byName(await consoleNow()).get(quiet.name)!;
    expect([st.state, st.outboxPending]).toEqual(['running', 0]);
    silent.delete(quiet);
  });

  it('ends a session, tells its station, frees the station once cleared, and never draws a candidate again for a returning participant', async () => {
    const ended = stations.slice(30, 35);
    await Promise.all(ended.map((s) => ping(s)));
    for (const s of ended) {
      const r = await call('POST', `/admin/sessions/${s.session!.id}/centre/end`, ADMIN, { reason: 'fire drill' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    let view = byName(await consoleNow());
    for (const s of ended) expect(view.get(s.name)!.state).toBe('finished');
    for (const s of ended) {
      expect((await ping(s)).session).toMatchObject({ ended: true });
      expect((await call('POST', '/centre/station/cleared', s.secret, { sessionId: s.session!.id })).status).toBe(200);
    }
    view = byName(await consoleNow());
    for (const s of ended) expect([view.get(s.name)!.state, view.get(s.name)!.session]).toEqual(['free', null]);
    expect(stations.filter((s) => view.get(s.name)!.state === 'running')).toHaveLength(STATIONS - ended.length);

    // p30 comes back and sits at S31: the draw leaves out what they met at S30.
    const first = ended[0].session!;
    const again = ended[1];
    expect(
      (
        await call('POST', `/admin/studies/${STUDY}/centre/stations/${again.id}/checkin`, ADMIN, {
          participantId: first.participant,
        })
      ).status,
    ).toBe(200);
    await ping(again);
    await begin(again, first.participant);
    // What p30 met: the candidate they started (the other was never shown, and went back to its pool).
    const met = new Set([first.items[1]]);
    expect(again.session!.items.slice(1).filter((i) => met.has(i))).toEqual([]);
  });

  it('prints payouts whose slips add up to the sheet, fee for everyone seated', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const sheet = (await call('GET', `/admin/studies/${STUDY}/centre/payouts?day=${day}`, ADMIN)).body as PayoutsView;
    expect(sheet.slips).toHaveLength(STATIONS + 1);
    expect(sheet.slips.every((s) => s.fee === 130 && s.total === s.fee + s.bonus)).toBe(true);
    expect(sheet.totals.fee).toBe(130 * (STATIONS + 1));
    const csv = parseCsv((await call('GET', `/admin/studies/${STUDY}/centre/payouts.csv?day=${day}`, ADMIN)).body);
    const body = csv.slice(1, -1);
    expect(body).toHaveLength(STATIONS + 1);
    expect(body.reduce((n, r) => n + Number(r[9]), 0)).toBeCloseTo(Number(csv[csv.length - 1][9]), 2);
    const other = (await call('GET', `/admin/studies/${STUDY}/centre/payouts?day=2001-01-01`, ADMIN))
      .body as PayoutsView;
    expect(other.slips).toEqual([]);
  });

  it('refuses what a station or a proctor must not do, and says what to do', async () => {
    const s = stations[50];
    const wrong = await call('POST', '/centre/station/ping', 'not-a-station-secret', {});
    expect([wrong.status, wrong.body.message]).toEqual([401, expect.stringMatching(/new station link/)]);
    // Another station's session is not this station's to claim, nor a session without its token.
    const theirs = stations[51].session!;
    expect(
      (await call('POST', '/centre/station/sessions', s.secret, { sessionId: theirs.id, token: theirs.token })).status,
    ).toBe(409);
    expect(
      (await call('POST', '/centre/station/sessions', s.secret, { sessionId: theirs.id, token: 'guess' })).status,
    ).toBe(403);
    expect((await call('POST', '/centre/station/cleared', s.secret, { sessionId: theirs.id })).status).toBe(404);
    // A station with someone on it takes no one else; a duplicate name; an id with a space.
    const busy = await call('POST', `/admin/studies/${STUDY}/centre/stations/${s.id}/checkin`, ADMIN, {
      participantId: 'p999',
    });
    expect([busy.status, busy.body.message]).toEqual([409, expect.stringMatching(/has p50 on it still/)]);
    expect((await call('POST', `/admin/studies/${STUDY}/centre/stations`, ADMIN, { name: 'S1' })).status).toBe(409);
    const spaced = await call('POST', `/admin/studies/${STUDY}/centre/stations/${stations[30].id}/checkin`, ADMIN, {
      participantId: 'p 1',
    });
    expect(spaced.status).toBe(400);
    expect((await call('GET', `/admin/studies/${STUDY}/centre/payouts?day=yesterday`, ADMIN)).status).toBe(400);
    // A body far past the limit is refused before it is read; the server goes on.
    const big = await call('POST', '/centre/station/ping', s.secret, { pad: 'x'.repeat(100_000) });
    expect(big.status).toBe(413);
    expect((await ping(s)).station.name).toBe('S50');
  });

  it('retires a station once its session is over, hides it, refuses its link and check-ins plainly, and puts it back', async () => {
    const s = stations[60];
    const retire = (what: 'retire' | 'unretire') =>
      call('POST', `/admin/studies/${STUDY}/centre/stations/${s.id}/${what}`, ADMIN);
    const busy = await retire('retire');
    expect([busy.status, busy.body.message]).toEqual([409, expect.stringMatching(/has p60 on it still/)]);
    await call('POST', `/admin/sessions/${s.session!.id}/centre/end`, ADMIN, {});
    await call('POST', '/centre/station/cleared', s.secret, { sessionId: s.session!.id });

    const retired = await retire('retire');
    expect(retired.status, JSON.stringify(retired.body)).toBe(200);
    expect(retired.body.retiredAt).toEqual(expect.any(Number));
    expect(byName(await consoleNow()).has('S60')).toBe(false);
    const all = (await call('GET', `/admin/studies/${STUDY}/centre?retired=1`, ADMIN)).body as ConsoleView;
    expect(byName(all).get('S60')).toMatchObject({ state: 'retired', session: null });
    expect(all.stations).toHaveLength(STATIONS);
    // Its link refuses the station, saying why and what to do; the proctor cannot seat anyone there.
    const link = await call('POST', '/centre/station/ping', s.secret, {});
    expect([link.status, link.body.message]).toEqual([403, expect.stringMatching(/S60 is retired.*back in service/)]);
    const seat = await call('POST', `/admin/studies/${STUDY}/centre/stations/${s.id}/checkin`, ADMIN, {
      participantId: 'p600',
    });
    expect([seat.status, seat.body.message]).toEqual([409, expect.stringMatching(/"S60" is retired/)]);
    // Its past participant still has a slip that names it.
    const sheet = (await call('GET', `/admin/studies/${STUDY}/centre/payouts`, ADMIN)).body as PayoutsView;
    expect(JSON.stringify(sheet.slips.filter((x) => x.participant === 'p60'))).toContain('S60');

    expect((await retire('unretire')).body.retiredAt).toBeNull();
    expect((await ping(s)).station.name).toBe('S60');
    expect(byName(await consoleNow()).get('S60')!.state).toBe('free');
    expect(
      (await call('POST', `/admin/studies/${STUDY}/centre/stations/${s.id}/checkin`, ADMIN, { participantId: 'p600' }))
        .status,
    ).toBe(200);
  });
});
