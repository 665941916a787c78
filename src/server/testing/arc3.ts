/**
 * The tests' ARC-AGI-3 server: an in-process API whose arcengine games the vendored official
 * engine runs (`arc3Vendor.ts`), and a participant who plays one through the participant routes
 * and logs it as the study page does.
 */
import type { Hono } from 'hono';
import { expect } from 'vitest';
import { parseActions } from '../../core/game';
import { serverStepEventData, type ServerRunReply, type ServerStep } from '../../core/game/serverGame';
import type { LogEvent } from '../../core/log/events';
import { createApi } from '../app';
import { startArc3, studioGames, type Arc3Started } from '../arc3/mount';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds } from '../study/studies';
import type { Store } from '../store/types';
import { apiCaller } from './api';
import { ARC3_ENV, OFFICIAL_GAMES } from './arc3Vendor';

export * from './arc3Vendor';

export interface Arc3Api {
  readonly app: Hono;
  readonly arc3: Arc3Started;
  /** A JSON request to `app` (`apiCaller`). */
  readonly call: ReturnType<typeof apiCaller>;
  /** The researcher's token. */
  readonly admin: string;
}

/**
 * An in-process API on `store` as `serve` makes it, with the arcengine games of `dirs` (the official
 * ones by default) run by the official engine on one engine process. Stop `arc3.service` after.
 */
export async function arc3Api(
  store: Store,
  opts: {
    readonly admin: string;
    readonly dirs?: readonly string[];
    /** Where the games' code versions are kept (`serve` keeps them in its data folder). */
    readonly codeDir?: string;
    readonly exportThreads?: boolean;
    readonly now?: () => number;
    /** Where the engine's lines go (the server's log); nowhere by default. */
    readonly log?: (line: string) => void;
  },
): Promise<Arc3Api> {
  const arc3 = await startArc3(
    {
      dirs: [...(opts.dirs ?? [OFFICIAL_GAMES])],
      servers: [],
      env: ARC3_ENV,
      workers: 1,
      ...(opts.codeDir ? { codeDir: opts.codeDir } : {}),
    },
    store,
    opts.log ?? (() => {}),
  );
  const { replay, gameInfo } = studioGames(arc3);
  const app = createApi({
    library: new TaskLibrary(),
    version: 'test',
    study: {
      store,
      adminTokenHash: hashToken(opts.admin),
      replay,
      gameInfo,
      games: new Set([...gameIds, ...arc3.service.ids]),
      exportThreads: opts.exportThreads ?? false,
      threadReplay: () => arc3.service.threadReplay(),
      arc3: { service: arc3.service, engine: arc3.engine, checkReplayer: arc3.checkReplayer },
      ...(opts.now ? { now: opts.now } : {}),
    },
  });
  return { app, arc3, call: apiCaller(() => app), admin: opts.admin };
}

export interface Arc3Play {
  readonly study: string;
  /** The study's game item. */
  readonly item: string;
  readonly game: string;
  /** The actions after the opening RESET, as `arc-studio games play` takes them (`ACTION6:x:y`, `RESET`). */
  readonly actions: readonly string[];
  /** The session's link parameters. */
  readonly params?: Record<string, string>;
  /** How far the participant gets: the item left open, the item ended, or the session finished too. Default `item`. */
  readonly until?: 'open' | 'item' | 'finished';
  /** A step whose logged level is changed: a log that is not what the server answered. */
  readonly tamperStep?: number;
}

export interface Arc3Played {
  readonly sessionId: string;
  readonly token: string;
  /** Every step the participant was answered, the opening RESET first. */
  readonly steps: readonly ServerStep[];
  readonly events: readonly LogEvent[];
}

/**
 * A participant plays `actions` through the participant routes and logs them as the study page
 * does (the steps' answers with their signatures), once the server has stored every step.
 * Event times are fixed, a fraction of a millisecond apart as `performance.now()` gives them.
 */
export async function playArc3(api: Arc3Api, p: Arc3Play): Promise<Arc3Played> {
  const { call } = api;
  const made = await call('POST', `/studies/${p.study}/sessions`, null, { params: p.params ?? {} });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const { sessionId, token } = made.body as { sessionId: string; token: string };
  const opened = await call('POST', `/sessions/${sessionId}/runs`, token, { item: p.item });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const reply = opened.body as ServerRunReply;
  const steps: ServerStep[] = [reply.steps[0]];
  for (const input of parseActions(p.actions.join(','))) {
    const r = await call('POST', `/sessions/${sessionId}/runs/${reply.run}/actions`, token, {
      step: steps.length,
      ...input,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    steps.push(r.body as ServerStep);
  }
  // Answered before stored: the steps land before the log that cites them.
  await api.arc3.service.stepsStored();
  const logged = [
    { kind: 'session.start', data: { wallClock: '2026-02-01T09:00:00.000Z' } },
    { kind: 'item.start', data: { item: p.item, kind: 'game' } },
    {
      kind: 'game.open',
      data: { game: p.game, seed: 0, run: reply.run, source: 'arcengine', engine: reply.game.engine },
    },
    ...steps.map((s) => {
      const data = serverStepEventData(s);
      return { kind: 'game.action', data: s.step === p.tamperStep ? { ...data, level: Number(data.level) + 1 } : data };
    }),
    ...(p.until === 'open' ? [] : [{ kind: 'item.end', data: { item: p.item } }]),
  ];
  const events = logged.map((e, seq) => ({ seq, t: (seq + 1) * 150.25, ...e })) as LogEvent[];
  const sent = await call('POST', `/sessions/${sessionId}/events`, token, { events });
  expect(sent.body).toEqual({ ackedThrough: events.length - 1 });
  if (p.until === 'finished') {
    const finished = await call('POST', `/sessions/${sessionId}/finish`, token, { lastSeq: events.length - 1 });
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
  }
  return { sessionId, token, steps, events };
}
