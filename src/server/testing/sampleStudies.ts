/**
 * Small studies over the sample tasks and a built-in game, as the tests of stages, deletions on
 * request and other study-wide figures make them: a study of a task and a game, a paid campaign
 * that draws one task, and an in-process API on a store with such studies created through the
 * studio's route.
 */
import path from 'node:path';
import type { Hono } from 'hono';
import { expect } from 'vitest';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from '../study/studies';
import type { Store } from '../store/types';
import { apiCaller } from './api';

const ROOT = path.resolve(__dirname, '../../..');

/** The sample task of every item below, by item id, as `takePart` is told the tasks to solve. */
export const SAMPLE_TASKS = { mirror: 'mirror-across-wall', c0: 'mirror-across-wall' } as const;

let samples: Promise<TaskLibrary> | undefined;
/** The task library of `data/tasks/samples`, mounted once for the test file (the APIs only read it). */
export function sampleLibrary(): Promise<TaskLibrary> {
  samples ??= (async () => {
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    return library;
  })();
  return samples;
}

/** The sample task `mirror` and level 1 of glow (`lamps`), then `more` items. */
export const taskAndGameStudy = (title: string, code: string, more: readonly object[] = []) => ({
  title,
  consent: 'ok',
  completion: { code },
  items: [
    { kind: 'task', id: 'mirror', collection: 'samples', task: SAMPLE_TASKS.mirror },
    { kind: 'game', id: 'lamps', game: 'glow', seed: 0 },
    ...more,
  ],
});

/**
 * A campaign whose pool `grid` draws its one candidate `c0` (the sample task) toward `solves`
 * solves, paying 10 GBP and 5 a solve, then `more` items.
 */
export const oneTaskCampaign = (title: string, code: string, solves: number, more: readonly object[] = []) => ({
  title,
  consent: 'ok',
  completion: { code },
  payment: { currency: 'GBP', fee: 10, bonus: { perSolve: 5 } },
  items: [
    {
      kind: 'pool',
      id: 'grid',
      draw: 1,
      target: { solves },
      candidates: [{ kind: 'task', id: 'c0', collection: 'samples', task: SAMPLE_TASKS.c0 }],
    },
    ...more,
  ],
});

/**
 * An in-process API on `store` with the sample tasks (`sampleLibrary`) and the built-in games, its
 * clock `now`, and `studies` (by id) created through the studio's route with the researcher's token `admin`.
 */
export async function sampleStudiesApi(
  store: Store,
  opts: {
    readonly admin: string;
    readonly now: () => number;
    readonly studies: Record<string, object>;
  },
): Promise<{ app: Hono; call: ReturnType<typeof apiCaller> }> {
  const app = createApi({
    library: await sampleLibrary(),
    version: 'test',
    study: {
      store,
      adminTokenHash: hashToken(opts.admin),
      replay: replayWithEngine,
      games: gameIds,
      now: opts.now,
    },
  });
  const call = apiCaller(() => app);
  for (const [id, definition] of Object.entries(opts.studies)) {
    const made = await call('POST', `/admin/studies/${id}`, opts.admin, { definition });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  }
  return { app, call };
}
