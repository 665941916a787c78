/**
 * The tests' ARC-AGI-3 set-up: the official engine, toolkit and games vendored beside the checkout
 * (`../shared/vendor/arc-agi-3`, or `ARC_AGI_3_VENDOR`), an in-process API whose arcengine games
 * that engine runs, and a participant who plays one through the participant routes and logs it
 * as the study page does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
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

const ROOT = path.resolve(__dirname, '../../..');
export const VENDOR = path.resolve(process.env.ARC_AGI_3_VENDOR ?? path.join(ROOT, '../shared/vendor/arc-agi-3'));
export const PYTHONPATH = path.join(VENDOR, 'python');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);
/** The official games (ls20, vc33, ft09) in the toolkit's layout. */
export const OFFICIAL_GAMES = path.join(VENDOR, 'environment_files');
/** Games of the tests in the toolkit's layout (tg01). */
export const FIXTURE_GAMES = path.join(ROOT, 'e2e/fixtures/arc3-games');
/** The environment of an engine process: the vendored engine, no games from the caller's environment, no `.pyc` files written into the vendor folder. */
export const ARC3_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  ARC_STUDIO_PYTHONPATH: PYTHONPATH,
  ARC_STUDIO_ARC3_GAMES: '',
  PYTHONDONTWRITEBYTECODE: '1',
};

export const LS20 = 'ls20-9607627b';
export const VC33 = 'vc33-5430563c';
export const TG01 = 'tg01-5e1f0a27';

/** `n` times the action `a`. */
export const times = (n: number, a: string): string[] => Array<string>(n).fill(a);
/** vc33: clicks that solve levels 1 and 2, one that changes nothing, and 75 that end level 3 in GAME_OVER. */
export const VC33_MOVES = {
  solve1: times(3, 'ACTION6:60:32'),
  solve2: [...times(2, 'ACTION6:0:24'), ...times(5, 'ACTION6:0:44')],
  waste: 'ACTION6:10:60',
  lose: times(75, 'ACTION6:60:32'),
} as const;
/** tg01's recorded solution (its README), after the opening RESET: 10 actions per level. */
export const TG01_SOLUTION: readonly string[] = [
  ...['ACTION2', 'ACTION2', 'ACTION4', 'ACTION4', 'ACTION4', 'ACTION4', 'ACTION4', 'ACTION2', 'ACTION2', 'ACTION2'],
  ...['ACTION6:12:52', 'ACTION2', 'ACTION2', 'ACTION4', 'ACTION4', 'ACTION4', 'ACTION4', 'ACTION2', 'ACTION2'],
  'ACTION4',
];

/**
 * Runs a script of `src/core/scoring/fixtures` against the vendored toolkit: `input` as JSON on
 * its standard input, its standard output read as JSON.
 */
export function runToolkit<T>(script: string, input: unknown): T {
  const r = spawnSync('python3', [path.join(ROOT, 'src/core/scoring/fixtures', script), VENDOR], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    timeout: 180_000,
    env: ARC3_ENV,
  });
  if (r.status !== 0) throw new Error(`the official toolkit failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

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
  opts: { readonly admin: string; readonly dirs?: readonly string[]; readonly exportThreads?: boolean },
): Promise<Arc3Api> {
  const arc3 = await startArc3(
    { dirs: [...(opts.dirs ?? [OFFICIAL_GAMES])], servers: [], env: ARC3_ENV, workers: 1 },
    store,
    () => {},
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
