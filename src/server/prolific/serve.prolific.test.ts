/**
 * "Pay bonuses" on real `arc-studio serve` processes over one PostgreSQL, against the Prolific
 * stand-in: 200 participants each solve a candidate on either of two servers and finish; the first
 * Pay kills its server between Prolific's "create" and "pay" (`ARC_STUDIO_FAULT_PROLIFIC`); the
 * server comes back and both servers are pressed at once, twice. By the stand-in's own count every
 * participant is paid exactly once, and the ledger (`GET .../campaign/payments`, `ledger.csv`)
 * says so with Prolific's ids.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTaskText, type ArcTask } from '../../core/formats/arcTask';
import type { PaymentsView } from '../../core/protocol/campaign';
import { type Standin, startStandin } from '../../prolificStandin/standin';
import { freePort } from '../store/pgCluster';
import { freshPostgresDatabase } from '../store/testing';
import { kill9, serveFolders, startServe, type ServeProcess } from '../testing/serve';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'prolific-serve-researcher-token-0123';
const TOKEN = 'serve-test-prolific-token';
const N = 200;
const PROLIFIC_STUDY = '6650aa00bb11cc22dd33ee44';
const TASKS = ['downscale-blocks', 'mirror-across-wall', 'color-by-orientation', 'most-common-color'];
const taskOf = (name: string) =>
  (
    parseTaskText(readFileSync(path.join(ROOT, 'data/tasks/samples', `${name}.json`), 'utf8')) as {
      ok: true;
      task: ArcTask;
    }
  ).task;

describe('Pay bonuses on two servers over one PostgreSQL, one killed between create and pay', () => {
  const folders = serveFolders('arc-studio-prolific-pay-');
  const cleanups: (() => Promise<void> | void)[] = [() => folders.remove()];
  let standin: Standin;
  let url: string;
  const servers: ServeProcess[] = [];
  const start = async (k: number, env: NodeJS.ProcessEnv = {}) =>
    startServe({
      dataDir: path.join(folders.tmp, `s${k}`),
      dist: folders.dist,
      port: await freePort(),
      adminToken: ADMIN,
      databaseUrl: url,
      env: {
        ARC_STUDIO_PROLIFIC_API_URL: standin.url,
        ARC_STUDIO_PROLIFIC_TOKEN: TOKEN,
        ARC_STUDIO_SECRET_KEY: 'a-key-both-servers-share-0123456789',
        ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT: '100000',
        ARC_STUDIO_STUDY_SESSIONS_PER_MINUTE: '100000',
        ...env,
      },
    });

  beforeAll(async () => {
    standin = await startStandin({ token: TOKEN, rateLimit: 100_000 });
    cleanups.push(() => standin.close());
    const db = await freshPostgresDatabase('prolific_pay');
    cleanups.push(db.drop);
    url = db.url;
    cleanups.push(async () => {
      for (const s of servers) await kill9(s);
    });
    servers.push(await start(0, { ARC_STUDIO_FAULT_PROLIFIC: 'after-create' }));
    servers.push(await start(1));
  });
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const call = async (server: number, method: string, p: string, token: string | null, body?: unknown) => {
    const res = await fetch(`${servers[server].url}/api${p}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text && res.headers.get('Content-Type')?.includes('json') ? JSON.parse(text) : text,
    };
  };

  /** A participant takes part on Prolific, solves the candidate drawn and finishes, on `server`. */
  const takePart = async (pid: string, server: number) => {
    const sub = (await (
      await fetch(`${standin.url}/__standin/studies/${PROLIFIC_STUDY}/submissions`, {
        method: 'POST',
        body: JSON.stringify({ participant_id: pid }),
      })
    ).json()) as { id: string };
    const s = await call(server, 'POST', '/studies/paid/sessions', null, {
      params: { PROLIFIC_PID: pid, STUDY_ID: PROLIFIC_STUDY, SESSION_ID: sub.id },
    });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    const { sessionId, token } = s.body as { sessionId: string; token: string };
    const ev = (seq: number, kind: string, data: Record<string, unknown>) => ({ seq, t: seq * 100, kind, data });
    const view = await call(server, 'GET', `/sessions/${sessionId}`, token);
    const item = (view.body.items as { id: string; kind: string }[]).find((i) => i.kind === 'task')!;
    const task = taskOf(TASKS[Number(item.id.slice(1))]);
    expect(
      (
        await call(server, 'POST', `/sessions/${sessionId}/events`, token, {
          events: [ev(0, 'item.start', { item: item.id, kind: 'task' })],
        })
      ).status,
    ).toBe(200);
    // Every test input of the task, answered right: a solve.
    for (const t of task.test.keys()) {
      const judged = await call(server, 'POST', `/sessions/${sessionId}/submissions`, token, {
        key: `k${t}`,
        item: item.id,
        testIndex: t,
        grid: task.test[t].output,
      });
      expect(judged.body.verdict, JSON.stringify(judged.body)).toBe('correct');
    }
    await call(server, 'POST', `/sessions/${sessionId}/events`, token, {
      events: [ev(1, 'item.end', { item: item.id })],
    });
    const f = await call(server, 'POST', `/sessions/${sessionId}/finish`, token, { lastSeq: 1 });
    expect(f.status, JSON.stringify(f.body)).toBe(200);
  };

  it("pays every one of 200 participants exactly once, by the stand-in's count", async () => {
    const definition = {
      title: 'Paid on Prolific',
      consent: 'Consent.',
      completion: { code: 'PAID' },
      prolific: { studyId: PROLIFIC_STUDY },
      payment: { currency: 'GBP', fee: 5, bonus: { perSolve: 0.5 } },
      items: [
        {
          kind: 'pool',
          id: 'grid',
          draw: 1,
          fill: 'fast',
          target: { solves: 1000 },
          candidates: TASKS.map((t, i) => ({ kind: 'task', id: `c${i}`, collection: 'samples', task: t })),
        },
      ],
    };
    expect((await call(1, 'POST', '/admin/studies/paid', ADMIN, { definition })).status).toBe(201);
    const pids = Array.from({ length: N }, (_, k) => `5f${String(k).padStart(4, '0')}aa11bb22cc33dd44ee`);
    for (let k = 0; k < N; k += 20)
      await Promise.all(pids.slice(k, k + 20).map((pid, j) => takePart(pid, (k + j) % 2)));

    // The first press: its server dies once Prolific set the bulk bonus up, before paying it.
    await expect(call(0, 'POST', '/admin/studies/paid/campaign/bonuses/pay', ADMIN)).rejects.toThrow();
    await new Promise<void>((r) =>
      servers[0].proc.exitCode !== null || servers[0].proc.signalCode !== null
        ? r()
        : servers[0].proc.once('exit', () => r()),
    );
    expect(Object.keys(await (await fetch(`${standin.url}/__standin/paid`)).json())).toEqual([]);
    const before = (await call(1, 'GET', '/admin/studies/paid/campaign/payments', ADMIN)).body as PaymentsView;
    const notCounted = before.sessions.filter((x) => !x.counts || x.bonus !== 0.5);
    expect(notCounted, JSON.stringify(notCounted.slice(0, 3))).toEqual([]);
    expect(before.ledger!.batches.map((b) => [b.state, b.participants])).toEqual([['created', N]]);

    // Back up; both servers pressed at once, each twice.
    servers[0] = await start(0);
    const presses = await Promise.all(
      [0, 1, 0, 1].map((k) => call(k, 'POST', '/admin/studies/paid/campaign/bonuses/pay', ADMIN)),
    );
    for (const p of presses) expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(presses.reduce((n, p) => n + (p.body as { paid: number }).paid, 0)).toBe(N);

    const paid = (await (await fetch(`${standin.url}/__standin/paid`)).json()) as Record<string, number>;
    expect(Object.keys(paid).sort()).toEqual([...pids].sort());
    expect(Object.values(paid).every((v) => v === 0.5)).toBe(true);

    const after = (await call(0, 'GET', '/admin/studies/paid/campaign/payments', ADMIN)).body as PaymentsView;
    const ledger = after.ledger!;
    expect(ledger.unpaid).toBe(0);
    expect(ledger.participants).toHaveLength(N);
    const bulk = ledger.batches[0].bulk_bonus_id;
    expect(ledger.batches.map((b) => b.state)).toEqual(['paid']);
    for (const p of ledger.participants) {
      expect(p).toMatchObject({ amount: 0.5, paid: true, paid_amount: 0.5, state: 'paid', bulk_bonus_ids: [bulk] });
      expect(p.submission_id).toMatch(/^[0-9a-f]{24}$/);
    }
    const csv = (await call(1, 'GET', '/admin/studies/paid/campaign/ledger.csv', ADMIN)).body as string;
    expect(csv.trim().split('\n')).toHaveLength(N + 1);
    expect(csv).toContain(`${pids[0]},0.50,true,0.50,0.00,paid,`);
  });
});
