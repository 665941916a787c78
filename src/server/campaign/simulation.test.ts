/**
 * A simulated calibration campaign on two real `arc-studio serve` processes over one throwaway
 * PostgreSQL database, driven over HTTP: 150 participants (seeded behaviour: some solve, some
 * fail, some abandon mid-session, some come back with the same Prolific id for a later batch)
 * over a pool of 40 candidates, each needing 2 full solves. Four candidates nobody solves and four
 * almost everybody solves; the others as the participant's skill allows. Sessions start in waves
 * on both servers at once, then play and finish.
 *
 * Time is real, and the study's own time settings are short: `abandonAfterMinutes` is a quarter
 * of a minute, so a session left in its first candidate goes stale and its claim stops counting
 * as in flight (as after half an hour in a real study), and `sessionMinutes` is a minute, after
 * which the campaign view settles the claims of abandoned sessions. The participants who abandon
 * start in the first waves; the others start once the campaign view counts none of their claims
 * in flight (waited on, so a quiet machine playing the waves in seconds finds the same pool as a
 * busy one), and their sessions' time runs out while the others play; the end waits (polling the
 * campaign view) until every claim is settled.
 *
 * Then, from the raw logs (events, submissions, session records, read from the database) and
 * nothing the campaign code computed: every candidate that can be solved reached its target and
 * every one nobody solves was retired (`revise`) after exactly `reviseAfter` attempts, no
 * participant met a candidate twice, no claim was made on a candidate whose target was already
 * reached by solves settled before the claiming session started (what is beyond was in flight)
 * nor on one retired by attempts settled before, the campaign view's figures are the recomputed
 * ones, and the bonus file pays what the rule gives. How many solves go beyond the targets here
 * depends on how the two servers' sessions interleave (the machine's load), so its bound is held
 * where the draws are seeded and timed by the test alone: `core/study/drawSimulation.test.ts`.
 */
import path from 'node:path';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../store/pgCluster';
import { freshPostgresDatabase } from '../store/testing';
import { openStore } from '../store/open';
import type { Store } from '../store/types';
import { kill9, startServe, type ServeProcess } from '../testing/serve';
import { parseTaskText, type ArcTask } from '../../core/formats/arcTask';
import { Rng } from '../../core/game/rng';
import type { StudyDefinitionInput } from '../../core/study/schema';
import type { CampaignView, PaymentsView } from '../../core/protocol/campaign';

const ROOT = path.resolve(__dirname, '../../..');
const SAMPLES = path.join(ROOT, 'data/tasks/samples');
const ADMIN = 'simulation-researcher-token-0123456789';
const PARTICIPANTS = 150;
const CANDIDATES = 40;
const TARGET = 2;
const PER_SOLVE = 0.75;
const WAVE = 12;
/**
 * The pool's `reviseAfter`. Candidates other than the easy and impossible ones are solved at the
 * participant's skill (0.15-0.85, 0.5 on average), so `n` attempts in a row all fail with chance
 * about 0.5^n, and the abandoned sessions' attempts come on top: with the default 10, some one of
 * the 32 solvable candidates was retired unsolved in about one run of thirty. With 20, about one
 * in a thousand.
 */
const REVISE_AFTER = 20;
/** Candidate k's chance of being solved: nobody solves c0, c10, c20, c30; almost everybody c1, c11, c21, c31. */
const rateOf = (id: string, skill: number) => {
  const k = Number(id.slice(1)) % 10;
  return k === 0 ? 0 : k === 1 ? 0.97 : skill;
};
/** A session silent this long is abandoned (15 s): far above the pauses of a simulated participant. */
const ABANDON_MINUTES = 0.25;
/**
 * The session's time budget and each item's hard limit (60 s): far above the few seconds a
 * simulated session plays (3.5 s for the slowest wave with the machine's load at 6 on 2 cores),
 * and above what it takes beside the browser tests: with 30 s, a run in which the machine was
 * that busy had items ended by their hard limit, which count as attempts without a solve. An
 * abandoned session may still come back until its time is over, so only then are its claims
 * settled (until then they are held but no longer counted in flight). A longer budget only makes
 * the end wait longer.
 */
const SESSION_MINUTES = 1;

const sampleNames = [
  'color-by-orientation',
  'continue-pattern',
  'count-objects-bar',
  'crop-largest-object',
  'denoise-rectangles',
  'downscale-blocks',
  'fall-onto-grey',
  'fill-closed-boxes',
  'fill-row-if-ends-match',
  'keep-dots-inside-frame',
  'mirror-across-wall',
  'most-common-color',
  'rays-until-wall',
  'sort-bars-by-height',
];
const tasks = new Map(
  sampleNames.map((n) => [
    n,
    (parseTaskText(readFileSync(path.join(SAMPLES, `${n}.json`), 'utf8')) as { ok: true; task: ArcTask }).task,
  ]),
);
/** Candidate k shows a sample task (several candidates share one: they are told apart by id). */
const taskOfCandidate = (id: string) => sampleNames[Number(id.slice(1)) % sampleNames.length];

function study(batch: number): StudyDefinitionInput {
  return {
    title: `Calibration batch ${batch}`,
    consent: 'Consent.',
    completion: { code: `BATCH-${batch}` },
    campaign: { id: 'calibration' },
    payment: { currency: 'GBP', fee: 6, bonus: { perSolve: PER_SOLVE } },
    limits: {
      sessionMinutes: SESSION_MINUTES,
      itemSoftMinutes: ABANDON_MINUTES,
      itemHardMinutes: SESSION_MINUTES,
      abandonAfterMinutes: ABANDON_MINUTES,
    },
    items: [
      { kind: 'page', id: 'welcome', markdown: 'Welcome.' },
      {
        kind: 'pool',
        id: 'grids',
        draw: 3,
        minMinutesLeft: 0.1,
        target: { solves: TARGET },
        reviseAfter: REVISE_AFTER,
        candidates: Array.from({ length: CANDIDATES }, (_, k) => ({
          kind: 'task' as const,
          id: `c${k}`,
          collection: 'samples',
          task: sampleNames[k % sampleNames.length],
        })),
      },
      { kind: 'survey', id: 'feedback', questions: [{ id: 'fun', prompt: 'How was it?', type: 'text' }] },
    ],
  };
}

interface Participant {
  pid: string;
  skill: number;
  abandons: boolean;
  returns: boolean;
}
/** A session as the test saw it: `startedAt`/`finishedAt` are ticks of the test's own order of events. */
interface Session {
  sessionId: string;
  token: string;
  server: number;
  pid: string;
  seq: number;
  startedAt: number;
  finishedAt: number | null;
}

describe('a simulated campaign on two server processes over one PostgreSQL', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  const servers: ServeProcess[] = [];
  let store: Store;
  /** The test's order of events: a start sent after a finish was answered saw that finish settled. */
  let tick = 0;

  beforeAll(async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-campaign-sim-'));
    cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
    const dist = path.join(tmp, 'dist');
    mkdirSync(dist);
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>test</title>');
    const db = await freshPostgresDatabase('campaign_sim');
    cleanups.push(db.drop);
    cleanups.push(async () => {
      for (const s of servers) await kill9(s);
    });
    const env = {
      ARC_STUDIO_DB_POOL: '4',
      ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT: '100000',
      ARC_STUDIO_STUDY_SESSIONS_PER_MINUTE: '100000',
    };
    // One after the other: the first migrates the new database.
    for (const k of [0, 1])
      servers.push(
        await startServe({
          dataDir: path.join(tmp, `s${k}`),
          dist,
          port: await freePort(),
          adminToken: ADMIN,
          databaseUrl: db.url,
          env,
        }),
      );
    // The test reads the raw logs straight from the database.
    store = await openStore({ databaseUrl: db.url, poolSize: 2 });
    cleanups.push(() => store.close());
  });
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const call = async (server: number, method: string, url: string, token: string | null, body?: unknown) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetch(`${servers[server].url}/api${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const parsed = text && res.headers.get('Content-Type')?.startsWith('application/json') ? JSON.parse(text) : text;
    return { status: res.status, body: parsed };
  };
  const log = async (s: Session, events: { kind: string; data: Record<string, unknown> }[]) => {
    const batch = events.map((e) => ({ seq: s.seq++, t: s.seq * 250, ...e }));
    const r = await call(s.server, 'POST', `/sessions/${s.sessionId}/events`, s.token, { events: batch });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };

  /** Plays a session's drawn candidates; an abandoning participant stops in the first one and never finishes. */
  const play = async (s: Session, who: Participant, rng: Rng) => {
    const view = (await call(s.server, 'GET', `/sessions/${s.sessionId}`, s.token)).body as {
      items: { id: string; kind: string; testIndices?: number[] }[];
    };
    await log(s, [
      { kind: 'item.start', data: { item: 'welcome', kind: 'page' } },
      { kind: 'item.end', data: { item: 'welcome' } },
    ]);
    for (const item of view.items.filter((i) => i.kind === 'task')) {
      // A few edits on the grid first (fewer would flag the session as low effort).
      const edits = Array.from({ length: 8 }, (_, k) => ({
        kind: 'paint',
        data: { row: 0, col: 0, color: 1 + (k % 9), stroke: k },
      }));
      await log(s, [{ kind: 'item.start', data: { item: item.id, kind: 'task' } }, ...edits]);
      if (who.abandons) return;
      const solves = rng.next() < rateOf(item.id, who.skill);
      const task = tasks.get(taskOfCandidate(item.id))!;
      for (const t of item.testIndices!) {
        if (solves) {
          const r = await call(s.server, 'POST', `/sessions/${s.sessionId}/submissions`, s.token, {
            key: `${item.id}-${t}`,
            item: item.id,
            testIndex: t,
            grid: task.test[t].output,
          });
          expect(r.body.verdict).toBe('correct');
        } else {
          const r = await call(s.server, 'POST', `/sessions/${s.sessionId}/submissions`, s.token, {
            key: `${item.id}-${t}-x`,
            item: item.id,
            testIndex: t,
            grid: [
              [9, 9],
              [9, 9],
            ],
          });
          expect(r.body.verdict).toBe('wrong');
        }
      }
      await log(s, [{ kind: 'item.end', data: { item: item.id } }]);
    }
    await log(s, [
      { kind: 'item.start', data: { item: 'feedback', kind: 'survey' } },
      { kind: 'item.end', data: { item: 'feedback' } },
    ]);
    const f = await call(s.server, 'POST', `/sessions/${s.sessionId}/finish`, s.token, { lastSeq: s.seq - 1 });
    expect(f.status).toBe(200);
    s.finishedAt = ++tick;
  };

  it('brings every candidate that can be solved to its target and retires those nobody solves, without anyone meeting a candidate twice, and the view and bonus file agree with the raw logs', async () => {
    for (const b of [1, 2])
      expect((await call(b - 1, 'POST', `/admin/studies/batch-${b}`, ADMIN, { definition: study(b) })).status).toBe(
        201,
      );
    const rng = new Rng(20260301);
    const people: Participant[] = Array.from({ length: PARTICIPANTS }, (_, k) => ({
      pid: `6${k.toString(16).padStart(7, '0')}aa11bb22cc33dd44`,
      skill: 0.15 + 0.7 * rng.next(),
      abandons: rng.next() < 0.12,
      returns: rng.next() < 0.25,
    }));
    // Batch 1: everyone, those who abandon first (their sessions' time runs out while the others
    // play); batch 2 (later): those who return, with the same Prolific id.
    const first = [...people.filter((p) => p.abandons), ...people.filter((p) => !p.abandons)];
    const queue = [
      ...first.map((p) => ({ p, study: 'batch-1' })),
      ...people.filter((p) => p.returns).map((p) => ({ p: { ...p, abandons: false }, study: 'batch-2' })),
    ];
    // Waves of WAVE starts, the abandoning participants' waves apart from the others'.
    const abandoning = people.filter((p) => p.abandons).length;
    const waves: { start: number; end: number }[] = [];
    for (const [from, to] of [
      [0, abandoning],
      [abandoning, queue.length],
    ])
      for (let w = from; w < to; w += WAVE) waves.push({ start: w, end: Math.min(w + WAVE, to) });
    const sessions: Session[] = [];
    for (const { start: w, end } of waves) {
      if (w === abandoning)
        // The abandoned sessions hold the candidates they drew until they have been silent for
        // `abandonAfterMinutes`; waves playing faster than that (a quiet machine) would find the
        // pool held by sessions nobody plays. The others start once none is counted in flight.
        await expect
          .poll(
            async () =>
              ((await call(0, 'GET', '/admin/studies/batch-1/campaign', ADMIN)).body as CampaignView).candidates.reduce(
                (n, c) => n + c.inProgress,
                0,
              ),
            { timeout: (ABANDON_MINUTES + 1) * 60_000, interval: 500 },
          )
          .toBe(0);
      const wave = queue.slice(w, end);
      // Every start of the wave at once, on both servers.
      const started = await Promise.all(
        wave.map(async ({ p, study: id }, k) => {
          const server = k % 2;
          const startedAt = ++tick;
          const r = await call(server, 'POST', `/studies/${id}/sessions`, null, {
            params: { PROLIFIC_PID: p.pid, STUDY_ID: id, SESSION_ID: `s${w + k}` },
          });
          expect(r.status, JSON.stringify(r.body)).toBe(201);
          return {
            ...(r.body as { sessionId: string; token: string }),
            server,
            pid: p.pid,
            seq: 0,
            startedAt,
            finishedAt: null,
          };
        }),
      );
      sessions.push(...started);
      await Promise.all(started.map((s, k) => play(s, wave[k].p, new Rng(w * 100 + k))));
    }
    expect(people.some((p) => p.abandons)).toBe(true);

    // Once the last abandoned sessions are out of time, the view settles their claims.
    let view = null as CampaignView | null;
    const held = async () => (await store.campaigns.claims('calibration')).filter((c) => c.state === 'held').length;
    await expect
      .poll(
        async () => {
          view = (await call(1, 'GET', '/admin/studies/batch-1/campaign', ADMIN)).body as CampaignView;
          return held();
        },
        { timeout: (SESSION_MINUTES + 2) * 60_000, interval: 500 },
      )
      .toBe(0);
    const view2 = (await call(0, 'GET', '/admin/studies/batch-2/campaign', ADMIN)).body as CampaignView;

    // --- Recomputed from the raw logs ---
    const rows = await store.listSessions();
    const byId = new Map(rows.map((r) => [r.id, r]));
    const metBy = new Map<string, string[]>();
    const drawn = new Map<string, number>();
    const attempts = new Map<string, number>();
    const solvers = new Map<string, Set<string>>();
    const solvedIn = new Map<string, number>();
    /** Per candidate, the ticks at finish of the finished sessions that attempted it. */
    const attemptedAt = new Map<string, number[]>();
    /** Per candidate, the solving sessions' ticks at finish. */
    const solvedAt = new Map<string, { pid: string; at: number }[]>();
    for (const s of sessions) {
      const record = byId.get(s.sessionId)!;
      const items = (
        (await call(s.server, 'GET', `/admin/sessions/${s.sessionId}`, ADMIN)).body as {
          summary: { items: { id: string; kind: string }[] };
        }
      ).summary.items;
      for (const it of items) if (it.kind === 'task') drawn.set(it.id, (drawn.get(it.id) ?? 0) + 1);
      const events = await store.readEvents(s.sessionId);
      const subs = await store.listSubmissions(s.sessionId);
      const opened = [
        ...new Set(
          events
            .filter((e) => e.kind === 'item.start' && /^c\d+$/.test(String(e.data.item)))
            .map((e) => String(e.data.item)),
        ),
      ];
      metBy.set(record.params.PROLIFIC_PID, [...(metBy.get(record.params.PROLIFIC_PID) ?? []), ...opened]);
      let solved = 0;
      for (const id of opened) {
        attempts.set(id, (attempts.get(id) ?? 0) + 1);
        if (s.finishedAt !== null) attemptedAt.set(id, [...(attemptedAt.get(id) ?? []), s.finishedAt]);
        const need = tasks.get(taskOfCandidate(id))!.test.map((_, i) => i);
        if (need.every((t) => subs.some((x) => x.item === id && x.testIndex === t && x.verdict === 'correct'))) {
          solved++;
          const set = solvers.get(id) ?? new Set<string>();
          set.add(record.params.PROLIFIC_PID);
          solvers.set(id, set);
          solvedAt.set(id, [...(solvedAt.get(id) ?? []), { pid: record.params.PROLIFIC_PID, at: s.finishedAt! }]);
        }
      }
      solvedIn.set(s.sessionId, solved);
    }

    // Every candidate that can be solved reached its target; every one nobody solves was retired
    // at the attempts the rule allows it: no more of finished sessions (an abandoned session's
    // claim stops being in flight before it settles, so its attempt may come on top).
    const ids = Array.from({ length: CANDIDATES }, (_, k) => `c${k}`);
    const impossible = ids.filter((id) => rateOf(id, 1) === 0);
    for (const id of ids) {
      if (!impossible.includes(id)) {
        expect(solvers.get(id)?.size ?? 0, `${id}: ${attempts.get(id) ?? 0} attempts`).toBeGreaterThanOrEqual(TARGET);
        continue;
      }
      expect(solvers.get(id)?.size ?? 0, id).toBe(0);
      expect(attempts.get(id), id).toBeGreaterThanOrEqual(REVISE_AFTER);
      expect(attemptedAt.get(id)?.length ?? 0, id).toBeLessThanOrEqual(REVISE_AFTER);
    }
    // Nobody met a candidate twice, across sessions and batches.
    for (const [pid, met] of metBy) expect(new Set(met).size, pid).toBe(met.length);
    expect(
      people.filter((p) => p.returns).every((p) => rows.filter((r) => r.params.PROLIFIC_PID === p.pid).length === 2),
    ).toBe(true);

    // No candidate drawn beyond what sessions in flight explain: a session that started after
    // TARGET solves of a candidate had been settled (their sessions' finish answered) never drew it.
    const startOf = new Map(sessions.map((s) => [s.sessionId, s.startedAt]));
    const claims = await store.campaigns.claims('calibration');
    // Every claim is settled: those of abandoned sessions too (by the campaign view, from their summaries).
    expect(claims.filter((c) => c.state === 'held')).toEqual([]);
    for (const c of claims) {
      const before = (solvedAt.get(c.candidate) ?? []).filter((x) => x.at < startOf.get(c.sessionId)!);
      expect(new Set(before.map((x) => x.pid)).size, `${c.candidate} claimed by ${c.sessionId}`).toBeLessThan(TARGET);
      // Nor one retired by attempts of sessions whose finish was answered before it started.
      const triedBefore = (attemptedAt.get(c.candidate) ?? []).filter((at) => at < startOf.get(c.sessionId)!);
      if (!before.length)
        expect(triedBefore.length, `${c.candidate} claimed by ${c.sessionId}`).toBeLessThan(REVISE_AFTER);
    }

    // The campaign view (campaign-wide figures, the same from either study and server) equals the recomputation.
    for (const v of [view!, view2]) {
      expect(v.candidates.map((c) => c.id)).toEqual(ids);
      for (const c of v.candidates) {
        expect({
          id: c.id,
          drawn: c.drawn,
          attempts: c.attempts,
          solves: c.solves,
          inProgress: c.inProgress,
          status: c.status,
        }).toEqual({
          id: c.id,
          drawn: drawn.get(c.id) ?? 0,
          attempts: attempts.get(c.id) ?? 0,
          solves: solvers.get(c.id)?.size ?? 0,
          inProgress: 0,
          status: impossible.includes(c.id) ? 'revise' : 'met',
        });
        expect(c.needed).toEqual({ state: impossible.includes(c.id) ? 'retired' : 'met' });
      }
      expect(v.participantsNeeded).toBe(0);
      expect(v.participants.inProgress).toBe(0);
    }
    expect(view!.participants.total + view2.participants.total).toBe(sessions.length);

    // The bonus file pays PER_SOLVE per candidate solved, in sessions that finished.
    const expected = new Map<string, number>();
    for (const s of sessions) {
      const record = byId.get(s.sessionId)!;
      const finished = (await store.getSession(s.sessionId))!.state === 'finished';
      if (!finished || record.studyId !== 'batch-1') continue;
      const amount = solvedIn.get(s.sessionId)! * PER_SOLVE;
      if (amount > 0)
        expected.set(record.params.PROLIFIC_PID, (expected.get(record.params.PROLIFIC_PID) ?? 0) + amount);
    }
    const file = (await call(0, 'GET', '/admin/studies/batch-1/campaign/bonuses.csv', ADMIN)).body as string;
    const lines = file.split('\n').filter(Boolean);
    expect(lines.every((l) => /^[0-9a-f]{24},\d+\.\d{2}$/.test(l))).toBe(true);
    expect(new Map(lines.map((l) => [l.split(',')[0], Number(l.split(',')[1])]))).toEqual(expected);
    const payments = (await call(1, 'GET', '/admin/studies/batch-1/campaign/payments', ADMIN)).body as PaymentsView;
    const sum = [...expected.values()].reduce((a, b) => a + b, 0);
    expect(payments.total).toBeCloseTo(sum, 9);
    expect(payments.sessions.filter((x) => !x.counts).every((x) => x.reason === 'not_finished')).toBe(true);
    for (const s of servers) expect(s.output()).not.toMatch(/\bError\b/);
  }, 600_000);
});
