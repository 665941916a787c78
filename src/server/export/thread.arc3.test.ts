/**
 * The bundle of a study with an arcengine game (the official ls20) is written on an export
 * thread, recordings and their frames included: participants' batches go on being acknowledged
 * while it downloads, each recording holds the frames the participant was answered, and the logs
 * are verified there by the server's signatures, a tampered one flagged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFrames } from '../../core/formats/frames';
import type { ServerStep } from '../../core/game/serverGame';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { LS20, arc3Api, playArc3, type Arc3Api } from '../testing/arc3';
import { ackProbe } from '../../bench/ackProbe';
import { exportsOnThreads } from './thread';
import { readZip } from './zip';

const ADMIN = 'researcher-token-for-arc3-export-thread-tests';
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
  let api: Arc3Api;
  /** Per session: the steps its participant was answered. */
  const played = new Map<string, readonly ServerStep[]>();

  /** A participant plays `MOVES` and logs them as the study page does; `tamper` changes a logged level. */
  const participant = async (tamper: boolean) => {
    const { sessionId, steps } = await playArc3(api, {
      study: 'ls20',
      item: 'keys',
      game: LS20,
      actions: MOVES,
      until: 'open',
      ...(tamper ? { tamperStep: 3 } : {}),
    });
    played.set(sessionId, steps);
    return sessionId;
  };

  beforeAll(async () => {
    store = await pglite.open();
    await store.saveStudy('ls20', STUDY, 'file', Date.now());
    api = await arc3Api(store, { admin: ADMIN, exportThreads: true });
  });
  afterAll(async () => {
    await api?.arc3.service.stop();
    await store?.close();
  });

  it('is written on a thread while acknowledgements go on, with every frame answered, verified by signatures', async () => {
    const honest = await participant(false);
    const tampered = await participant(true);
    const { app, call } = api;
    const probe = await ackProbe(app, 'ls20', 4);

    const before = exportsOnThreads();
    const made = await call('POST', '/admin/studies/ls20/exports', ADMIN, { format: 'zip' });
    expect(made.status).toBe(201);
    const url = (made.body as { url: string }).url.replace(/^\/api/, '');
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
