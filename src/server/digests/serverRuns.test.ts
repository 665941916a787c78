/**
 * Studies with server-run games (arcengine, remote) are digested and summarised on the digest
 * threads like those with built-in games: the thread is handed the signing key and the game list
 * (`arc3/replayCheck.ts`), and its results (figures, verified steps, the forged step found) equal
 * those of the main thread, step for step.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds } from '../study/studies';
import { stepSigningText } from '../../core/game/serverGame';
import { backends } from '../store/testing';
import type { EventInput, Store } from '../store/types';
import { serverRunReplay, stepSignature, studioReplay, type ThreadReplay } from '../arc3/replayCheck';
import { computeStudyResults, type ResultsDeps } from './studyDigests';
import { DigestPool } from './pool';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-server-run-digests';
const GAME = 'tg01-5e1f0a27';
const stores: Store[] = [];
const pools: DigestPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.stop()));
  await Promise.all(stores.map((s) => s.close()));
});

const key = randomBytes(32);
const spec: ThreadReplay = { key: key.toString('hex'), serverGames: [GAME] };
const replay = studioReplay(
  serverRunReplay(
    (id) => id === GAME,
    () => key,
  ),
);

/** A participant's log of a server-run game: signed steps, the last one forged in session `forged`. */
function gameLog(sessionId: string, steps: number, forged: boolean): EventInput[] {
  const run = `run-${sessionId}`;
  const out: EventInput[] = [
    { seq: 0, t: 0, kind: 'session.start', data: {} },
    { seq: 1, t: 1, kind: 'item.start', data: { item: 'g' } },
    { seq: 2, t: 2, kind: 'game.open', data: { game: GAME, run } },
  ];
  for (let step = 0; step < steps; step++) {
    const d = {
      run,
      game: GAME,
      step,
      action: step === 0 ? 'RESET' : `ACTION${1 + (step % 4)}`,
      level: Math.min(2, Math.floor(step / 10)),
      state: step === steps - 1 ? 'WIN' : 'NOT_FINISHED',
      frameHash: `f${step}`,
    };
    const sig = stepSignature(key, stepSigningText(d));
    const level = forged && step === steps - 1 ? 2 : d.level;
    out.push({ seq: 3 + step, t: 10 + step * 100, kind: 'game.action', data: { ...d, level, sig } });
  }
  out.push({ seq: 3 + steps, t: 10 + steps * 100, kind: 'item.end', data: { item: 'g' } });
  return out;
}

async function study(threads: boolean) {
  const store = await backends.find((b) => b.name === 'pglite')!.open();
  stores.push(store);
  const library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  await store.saveStudy(
    'arc',
    {
      title: 'Server-run game',
      consent: 'Yes.',
      completion: { code: 'ARC' },
      items: [{ kind: 'game', id: 'g', game: GAME }],
    },
    'studio',
    1,
  );
  for (const [k, forged] of [false, true, false].entries()) {
    const id = `arc-s${k}`;
    await store.createSession({
      id,
      studyId: 'arc',
      studyVersion: 1,
      tokenHash: `h${k}`,
      params: {},
      seed: k,
      order: [0],
      createdAt: 1 + k,
    });
    await store.appendEvents(id, gameLog(id, 12 + k * 5, forged), { receivedAt: 5, pastSessionLimit: false });
  }
  const pool = threads ? new DigestPool(1) : undefined;
  if (pool) pools.push(pool);
  const gameInfo = () => ({ [GAME]: { title: 'tg01', levels: 2, version: GAME } });
  const deps: ResultsDeps = {
    store,
    library,
    adminTokenHash: hashToken(ADMIN),
    replay,
    gameInfo,
    digests: pool,
    ...(threads ? { threadReplay: () => spec } : {}),
    now: () => 10_000_000,
  };
  const app = createApi({
    library,
    version: 'test',
    study: {
      store,
      adminTokenHash: deps.adminTokenHash,
      replay,
      games: new Set([...gameIds, GAME]),
      gameInfo,
      digests: pool,
      ...(threads ? { threadReplay: () => spec } : {}),
    },
  });
  return { deps, app, pool };
}

describe('server-run games on the digest threads', () => {
  it('digests and summaries computed on the threads equal those of the main thread', async () => {
    const summary = async (app: ReturnType<typeof createApi>, id: string) =>
      (
        (await (
          await app.request(`/admin/sessions/${id}`, { headers: { Authorization: `Bearer ${ADMIN}` } })
        ).json()) as { summary: unknown }
      ).summary;
    const ids = ['arc-s0', 'arc-s1', 'arc-s2'];
    // One after the other: the test stores share one PGlite, each in a schema of its own.
    const main = await study(false);
    const a = await computeStudyResults(main.deps, 'arc', null);
    const mainSummaries = await Promise.all(ids.map((id) => summary(main.app, id)));
    const threads = await study(true);
    const b = await computeStudyResults(threads.deps, 'arc', null);
    expect(b).toEqual(a);
    // Three sessions' digests, all computed on a thread.
    expect([...threads.pool!.done.values()].reduce((x, y) => x + y, 0)).toBe(3);
    expect(await Promise.all(ids.map((id) => summary(threads.app, id)))).toEqual(mainSummaries);
    expect(threads.pool!.summaries).toBe(3);
    // The forged step is found on the thread as here: the check did run there.
    expect(JSON.stringify(mainSummaries[1])).toContain('signature');
    expect(JSON.stringify(a)).toContain('game_log_unverified:g');
  });
});
