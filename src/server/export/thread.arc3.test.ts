/**
 * The bundle of a study with an arcengine game (the official ls20) is written on an export
 * thread, recordings and their frames included: participants' batches go on being acknowledged
 * while it downloads, each recording holds the frames the participant was answered, and the logs
 * are verified there by the server's signatures, a tampered one flagged.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { decodeFrames } from '../../core/formats/frames';
import { serverStepEventData, type ServerRunReply, type ServerStep } from '../../core/game/serverGame';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { startArc3, studioGames, type Arc3Started } from '../arc3/mount';
import { gameIds } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { ackProbe } from '../../bench/ackProbe';
import { exportsOnThreads } from './thread';
import { readZip } from './zip';

const VENDOR = path.resolve(__dirname, '../../../../shared/vendor/arc-agi-3');
const ENV = { ...process.env, ARC_STUDIO_PYTHONPATH: path.join(VENDOR, 'python'), PYTHONDONTWRITEBYTECODE: '1' };
const ADMIN = 'researcher-token-for-arc3-export-thread-tests';
const LS20 = 'ls20-9607627b';
const STUDY = {
  title: 'ls20 on an export thread',
  consent: 'Yes.',
  completion: { code: 'DONE' },
  items: [{ kind: 'game', id: 'keys', game: LS20 }],
};
const MOVES = ['ACTION3', 'ACTION3', 'ACTION1', 'ACTION4', 'ACTION2', 'ACTION1', 'ACTION3', 'ACTION4'];

const pglite = backends.find((b) => b.name === 'pglite')!;

describe('the bundle of an arcengine study on an export thread', () => {
  let store: Store;
  let arc3: Arc3Started;
  let app: Hono;
  /** Per session: the steps its participant was answered. */
  const played = new Map<string, ServerStep[]>();

  const post = (url: string, token: string | null, body: unknown) =>
    app.request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });

  /** A participant plays `MOVES` and logs them as the study page does; `tamper` changes a logged level. */
  const participant = async (tamper: boolean) => {
    const { sessionId, token } = (await (await post('/studies/ls20/sessions', null, { params: {} })).json()) as {
      sessionId: string;
      token: string;
    };
    const reply = (await (await post(`/sessions/${sessionId}/runs`, token, { item: 'keys' })).json()) as ServerRunReply;
    const steps: ServerStep[] = [reply.steps[0]];
    for (const [i, action] of MOVES.entries()) {
      const r = await post(`/sessions/${sessionId}/runs/${reply.run}/actions`, token, { step: i + 1, action });
      expect(r.status).toBe(200);
      steps.push((await r.json()) as ServerStep);
    }
    let seq = 0;
    const ev = (kind: string, data: Record<string, unknown>) => ({ seq: seq++, t: seq * 200, kind, data });
    const events = [
      ev('item.start', { item: 'keys', kind: 'game' }),
      ev('game.open', { game: LS20, seed: 0, run: reply.run, source: 'arcengine' }),
      ...steps.map((s) => {
        const data = serverStepEventData(s);
        return ev('game.action', tamper && s.step === 3 ? { ...data, level: 4 } : data);
      }),
    ];
    expect((await post(`/sessions/${sessionId}/events`, token, { events })).status).toBe(200);
    played.set(sessionId, steps);
    return sessionId;
  };

  beforeAll(async () => {
    store = await pglite.open();
    await store.saveStudy('ls20', STUDY, 'file', Date.now());
    arc3 = await startArc3(
      { dirs: [path.join(VENDOR, 'environment_files')], servers: [], env: ENV, workers: 1 },
      store,
      () => {},
    );
    const { replay, gameInfo } = studioGames(arc3);
    app = createApi({
      library: new TaskLibrary(),
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken(ADMIN),
        replay,
        gameInfo,
        games: new Set([...gameIds, ...arc3.service.ids]),
        exportThreads: true,
        threadReplay: () => arc3.service.threadReplay(),
        arc3: { service: arc3.service, engine: arc3.engine },
      },
    });
  });
  afterAll(async () => {
    await arc3?.service.stop();
    await store?.close();
  });

  it('is written on a thread while acknowledgements go on, with every frame answered, verified by signatures', async () => {
    const honest = await participant(false);
    const tampered = await participant(true);
    await arc3.service.stepsStored();
    const probe = await ackProbe(app, 'ls20', 4);

    const before = exportsOnThreads();
    const made = await post('/admin/studies/ls20/exports', ADMIN, { format: 'zip' });
    expect(made.status).toBe(201);
    const url = ((await made.json()) as { url: string }).url.replace(/^\/api/, '');
    let running = true;
    const download = (async () => {
      try {
        const res = await app.request(url);
        expect(res.status).toBe(200);
        return Buffer.from(await res.arrayBuffer());
      } finally {
        running = false;
      }
    })();
    const meanwhile = await probe.acks(() => !running);
    const zip = await download;
    // Written on a thread (the main thread wrote studies with server-run games before), and
    // participants' batches were acknowledged while it was.
    expect(exportsOnThreads() - before).toBe(1);
    expect(meanwhile.length).toBeGreaterThan(0);

    const files = new Map(readZip(zip).map((e) => [e.name, e.data.toString('utf8')]));
    for (const [sessionId, steps] of played) {
      const name = [...files.keys()].find((n) => n.startsWith(`recordings/${sessionId}-keys-1`));
      expect(name, sessionId).toBeDefined();
      const lines = files
        .get(name!)!
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { data: { frame: unknown } });
      // One line per step, the opening RESET first, each with the frames its participant saw.
      expect(lines).toHaveLength(steps.length);
      lines.forEach((l, i) => expect(l.data.frame, `step ${i}`).toEqual(decodeFrames(steps[i].frames)));
    }
    // Verified on the thread with the server's signing key: the honest log is, the tampered one is not.
    const attempts = files.get('attempts.csv')!.trimEnd().split('\n');
    const header = attempts[0].split(',');
    const verified = (sessionId: string) =>
      attempts.map((row) => row.split(',')).find((row) => row[header.indexOf('session_id')] === sessionId)![
        header.indexOf('verified')
      ];
    expect(verified(honest)).toBe('true');
    expect(verified(tampered)).toBe('false');
    // The sums are those of the files.
    expect(files.get('SHA256SUMS')).toContain('  attempts.csv');
  });
});
