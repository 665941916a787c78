/**
 * A researcher's long reads let participants go first: while one session's log of 12,000 events
 * is read back (its events, its summary, its game run's steps, the export of its study), a
 * participant's event batch sent during the read is answered before the read asks for its next
 * page, on the real embedded database whose queries all run on the acknowledging thread. Told
 * by the order in which things happened, never by time. The pages give every event once, in
 * order. How long the acknowledgements wait meanwhile is a figure of `npm run bench -- scale`.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from './app';
import { hashToken } from './people/auth';
import { TaskLibrary } from './collections/collections';
import { gameIds, replayWithEngine } from './study/studies';
import { backends } from './store/testing';
import type { EventInput, Store } from './store/types';
import { DigestPool } from './digests/pool';
import { ParticipantsFirst, participantWrites } from './load';

const ROOT = path.resolve(__dirname, '../..');
const ADMIN = 'researcher-token-for-participants-first-tests';
const EVENTS = 12_000;
const LONG = 'long-session';
const stores: Store[] = [];
const pools: DigestPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.stop()));
  await Promise.all(stores.map((s) => s.close()));
});

const STUDY = {
  title: 'Long reads',
  consent: 'Yes.',
  completion: { code: 'LONG' },
  items: [{ kind: 'task', id: 'task', collection: 'samples', task: 'continue-pattern' }],
};

async function setup() {
  const store = await backends.find((b) => b.name === 'pglite')!.open();
  stores.push(store);
  const library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  await store.saveStudy('long', STUDY, 'studio', 1);
  await store.createSession({
    id: LONG,
    studyId: 'long',
    studyVersion: 1,
    tokenHash: 'hlong',
    params: {},
    seed: 1,
    order: [0],
    createdAt: 1,
  });
  for (let from = 0; from < EVENTS; from += 3_000) {
    const batch: EventInput[] = Array.from({ length: 3_000 }, (_, k) => {
      const seq = from + k;
      return seq === 0
        ? { seq, t: 0, kind: 'session.start', data: {} }
        : seq === 1
          ? { seq, t: 1, kind: 'item.start', data: { item: 'task' } }
          : { seq, t: seq, kind: 'paint', data: { row: seq % 3, col: 0, color: 1, stroke: seq } };
    });
    await store.appendEvents(LONG, batch, { receivedAt: 2, pastSessionLimit: false });
  }
  const pool = new DigestPool(1);
  pools.push(pool);
  const app = createApi({
    library,
    version: 'test',
    study: {
      store,
      adminTokenHash: hashToken(ADMIN),
      replay: replayWithEngine,
      games: gameIds,
      digests: pool,
      exportThreads: true,
    },
  });
  const created = await app.request('/studies/long/sessions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ params: {} }),
  });
  expect(created.status).toBe(201);
  const participant = (await created.json()) as { sessionId: string; token: string };

  // What happened, in order: each page of the long log the store gave, and the batch's answer.
  const log: string[] = [];
  let pageRead: () => void = () => {};
  const read = (sessionId: string, first: number, last: number) => {
    if (sessionId !== LONG) return;
    log.push(`page ${first}-${last}`);
    pageRead();
  };
  const streamEvents = store.streamEvents.bind(store);
  store.streamEvents = async function* (sessionId, opts) {
    for await (const page of streamEvents(sessionId, opts)) {
      read(sessionId, page[0].seq, page[page.length - 1].seq);
      yield page;
    }
  };
  // The same pages as JSON text (the summary's and the export's threads read these).
  const streamEventsJson = store.streamEventsJson.bind(store);
  store.streamEventsJson = async function* (sessionId, opts) {
    for await (const page of streamEventsJson(sessionId, opts)) {
      read(sessionId, (JSON.parse(page.json) as { seq: number }[])[0].seq, page.last);
      yield page;
    }
  };
  let seq = 0;
  /** Sends the participant's batch once the read has read its first page; resolves when it is answered. */
  const batchDuringRead = async () => {
    await new Promise<void>((r) => {
      pageRead = r;
    });
    pageRead = () => {};
    log.push('batch sent');
    const res = await app.request(`/sessions/${participant.sessionId}/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${participant.token}` },
      body: JSON.stringify({ events: [{ seq: seq, t: seq, kind: 'session.start', data: {} }] }),
    });
    seq++;
    expect(res.status).toBe(200);
    log.push('batch answered');
  };
  const admin = (url: string, init: RequestInit = {}) =>
    Promise.resolve(app.request(url, { ...init, headers: { Authorization: `Bearer ${ADMIN}`, ...init.headers } }));
  return { store, app, log, batchDuringRead, admin };
}

/** The log has the batch sent after the first page and answered before the second. */
function answeredBeforeNextPage(log: readonly string[]) {
  const sent = log.indexOf('batch sent');
  const answered = log.indexOf('batch answered');
  expect(sent).toBeGreaterThan(0);
  expect(log.slice(sent + 1, answered + 1)).toEqual(['batch answered']);
  expect(log.filter((l) => l.startsWith('page')).length).toBeGreaterThan(1);
}

describe("researchers' long reads on PGlite", () => {
  it("a session's events: every event once, in order, and a batch sent during the read is answered before its next page", async () => {
    const { log, batchDuringRead, admin } = await setup();
    const [res] = await Promise.all([
      admin(`/admin/sessions/${LONG}/events`).then(async (r) => {
        const body = await r.text();
        log.push('read done');
        return { status: r.status, body };
      }),
      batchDuringRead(),
    ]);
    expect(res.status).toBe(200);
    const doc = JSON.parse(res.body) as { events: { seq: number }[] };
    expect(doc.events.map((e) => e.seq)).toEqual(Array.from({ length: EVENTS }, (_, i) => i));
    answeredBeforeNextPage(log);
    expect(log.at(-1)).toBe('read done');
  });

  it("a session's summary: a batch sent during the read is answered before its next page", async () => {
    const { log, batchDuringRead, admin } = await setup();
    const [res] = await Promise.all([admin(`/admin/sessions/${LONG}`), batchDuringRead()]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { summary: { items: { id: string }[] } };
    expect(body.summary.items.map((i) => i.id)).toEqual(['task']);
    answeredBeforeNextPage(log);
  });

  it('the export of its study: a batch sent during the download is answered before the next page is read, and the file holds every event once', async () => {
    const { log, batchDuringRead, admin } = await setup();
    const made = await admin('/admin/studies/long/exports', {
      method: 'POST',
      body: JSON.stringify({ format: 'jsonl' }),
    });
    expect(made.status).toBe(201);
    const url = ((await made.json()) as { url: string }).url.replace(/^\/api/, '');
    const [res] = await Promise.all([admin(url).then((r) => r.text()), batchDuringRead()]);
    const seqs = res
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { sessionId: string; seq: number })
      .filter((l) => l.sessionId === LONG)
      .map((l) => l.seq);
    expect(seqs).toEqual(Array.from({ length: EVENTS }, (_, i) => i));
    answeredBeforeNextPage(log);
  });
});

describe('ParticipantsFirst', () => {
  it('a turn waits for the writes begun before it, not for those begun after', async () => {
    const writes = new ParticipantsFirst();
    const order: string[] = [];
    const first = writes.begin();
    const turn = writes.turn().then(() => order.push('turn'));
    // Begun after the turn was asked for (once the turn has looked): it does not hold the turn.
    await new Promise<void>((r) => setImmediate(() => setImmediate(() => setImmediate(r))));
    const later = writes.begin();
    order.push('first answered');
    first();
    await turn;
    expect(order).toEqual(['first answered', 'turn']);
    later();
    expect(writes.inProgress).toBe(0);
    expect(participantWrites.inProgress).toBe(0);
  });
});
