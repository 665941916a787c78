/**
 * Signals of help and low effort through a real `arc-studio serve`: pastes logged by the
 * participant's page and refused at the door when malformed, identical wrong grids across
 * sessions, and both listed in the results' participants, the campaign view and the payments,
 * without holding back any bonus.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudyResults } from '../../core/analysis/results';
import type { CampaignView, PaymentsView } from '../../core/protocol/campaign';
import type { StudyDefinitionInput } from '../../core/study/schema';
import { freePort } from '../store/pgCluster';
import { kill9, serveFolders, startServe, type ServeFolders, type ServeProcess } from '../testing/serve';

const ADMIN = 'signals-researcher-token-0123456789';
const TASKS = ['downscale-blocks', 'mirror-across-wall'];

const STUDY: StudyDefinitionInput = {
  title: 'Signals',
  consent: 'Consent.',
  completion: { code: 'DONE' },
  payment: { currency: 'GBP', fee: 10, bonus: { perSolve: 5 } },
  items: [
    {
      kind: 'pool',
      id: 'grid',
      draw: 2,
      target: { solves: 5 },
      candidates: TASKS.map((task, i) => ({ kind: 'task', id: `c${i}`, collection: 'samples', task })),
    },
  ],
};

interface Session {
  sessionId: string;
  token: string;
  seq: number;
}

describe('signals through a real server', () => {
  let folders: ServeFolders;
  let server: ServeProcess;

  beforeAll(async () => {
    folders = serveFolders('arc-studio-signals-');
    server = await startServe({
      dataDir: folders.dataDir,
      dist: folders.dist,
      port: await freePort(),
      adminToken: ADMIN,
      args: ['--tasks', path.resolve(__dirname, '../../../data/tasks/samples')],
    });
  });
  afterAll(async () => {
    if (server) await kill9(server);
    folders?.remove();
  });

  const call = async (method: string, url: string, token: string | null, body?: unknown) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetch(`${server.url}/api${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
  };
  const log = async (s: Session, events: { kind: string; data: Record<string, unknown> }[]) => {
    const batch = events.map((e) => ({ seq: s.seq, t: s.seq++ * 700, ...e }));
    const r = await call('POST', `/sessions/${s.sessionId}/events`, s.token, { events: batch });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  const start = async (pid: string): Promise<Session> => {
    const r = await call('POST', '/studies/sig/sessions', null, { params: { PROLIFIC_PID: pid } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return { ...(r.body as { sessionId: string; token: string }), seq: 0 };
  };
  /** Plays each drawn task: a few edits, `paste` text into its description, and three trials of `wrong`. */
  const play = async (s: Session, wrong: number[][], paste: boolean) => {
    const items = (await call('GET', `/sessions/${s.sessionId}`, s.token)).body.items as {
      id: string;
      kind: string;
      testIndices: number[];
    }[];
    for (const item of items) {
      await log(s, [
        { kind: 'item.start', data: { item: item.id, kind: 'task' } },
        ...Array.from({ length: 8 }, (_, i) => ({
          kind: 'paint',
          data: { row: 0, col: i % 2, color: 1 + (i % 3), stroke: i },
        })),
        ...(paste
          ? [
              {
                kind: 'text.paste',
                data: {
                  item: item.id,
                  field: 'description',
                  stage: 'last',
                  length: 41,
                  text: 'Mirror the shape across the grey wall.',
                },
              },
            ]
          : []),
      ]);
      for (const t of item.testIndices)
        for (let k = 0; k < 3; k++) {
          const r = await call('POST', `/sessions/${s.sessionId}/submissions`, s.token, {
            key: `${item.id}-${t}-${k}`,
            item: item.id,
            testIndex: t,
            grid: wrong.map((row) => row.map((c) => (c + k) % 10)),
          });
          expect(r.body.verdict, JSON.stringify(r.body)).toBe('wrong');
        }
      await log(s, [{ kind: 'item.end', data: { item: item.id } }]);
    }
    const done = await call('POST', `/sessions/${s.sessionId}/finish`, s.token, { lastSeq: s.seq - 1 });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
  };

  it('lists pastes and copied answers per session in results, the campaign view and the payments, and pays them all', async () => {
    expect((await call('POST', '/admin/studies/sig', ADMIN, { definition: STUDY })).status).toBe(201);
    const a = await start('pa');
    const b = await start('pb');
    const c = await start('pc');

    // A paste whose field is not one the page logs is refused whole, naming the field; nothing is stored.
    const bad = await call('POST', `/sessions/${a.sessionId}/events`, a.token, {
      events: [{ seq: 0, t: 1, kind: 'text.paste', data: { item: 'c0', field: 'clipboard', length: 1, text: 'x' } }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/data\.field/);
    const tooLong = await call('POST', `/sessions/${a.sessionId}/events`, a.token, {
      events: [
        { seq: 0, t: 1, kind: 'text.paste', data: { item: 'c0', field: 'answer', length: 1, text: 'x'.repeat(5001) } },
      ],
    });
    expect(tooLong.status).toBe(400);
    expect((await call('GET', `/sessions/${a.sessionId}`, a.token)).status).toBe(200);

    // a and b paste and submit the same wrong grids on both tasks; c works alone.
    await play(
      a,
      [
        [3, 3],
        [3, 4],
      ],
      true,
    );
    await play(
      b,
      [
        [3, 3],
        [3, 4],
      ],
      true,
    );
    await play(c, [[5]], false);

    const signals = ['pasted_text:c0', 'pasted_text:c1', 'same_wrong_answer:c0', 'same_wrong_answer:c1'];
    const results = (await call('GET', '/admin/studies/sig/results', ADMIN)).body as StudyResults;
    const flags = new Map(results.participants.map((p) => [p.sessionId, [...p.flags].sort()]));
    expect(flags.get(a.sessionId)).toEqual(signals);
    expect(flags.get(b.sessionId)).toEqual(signals);
    expect(flags.get(c.sessionId)).toEqual([]);

    const view = (await call('GET', '/admin/studies/sig/campaign', ADMIN)).body as CampaignView;
    expect(view.signals.map((s) => [s.participant, [...s.signals].sort()])).toEqual([
      ['pa', signals],
      ['pb', signals],
    ]);

    const pay = (await call('GET', '/admin/studies/sig/campaign/payments', ADMIN)).body as PaymentsView;
    const bySession = new Map(pay.sessions.map((s) => [s.sessionId, s]));
    expect([...bySession.get(a.sessionId)!.signals].sort()).toEqual(signals);
    expect(bySession.get(c.sessionId)!.signals).toEqual([]);
    // Signals are reasons to look, not exclusions: every finished session stays in the bonus file's list.
    expect(pay.sessions.map((s) => s.counts)).toEqual([true, true, true]);
  });
});
