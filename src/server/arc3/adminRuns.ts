/**
 * Researcher routes over the stored steps of server-run games (docs/api.md, "ARC-AGI-3 games"),
 * mounted under `/admin`, guarded by the permission table (people/permissions.ts):
 * - `GET /sessions/:sessionId/runs`: the session's runs, every step with its frames (for replays);
 * - `GET /studies/:studyId/games/:gameId/levels/:level/frame`: the first frame of a level, from
 *   the study's stored runs (for the click heatmap);
 * - `POST /sessions/:sessionId/runs/verify` starts playing every run of the session again on the
 *   engine (answers 202 and a job id at once), `GET /sessions/:sessionId/runs/verify/:job` tells
 *   how far it got and, once done, which steps differ.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { stream } from 'hono/streaming';
import { decodeFrames, encodeFrames, type FrameGrid } from '../../core/formats/frames';
import type { ServerStep } from '../../core/game/serverGame';
import { fail } from '../http';
import type { GameRunStore, SessionStore } from '../store/types';
import { participantsFirst } from '../load';
import type { Arc3Service } from './runs';
import {
  formatSessionCheck,
  levelFirstFrame,
  stepPages,
  verifySession,
  type Replayer,
  type SessionCheck,
} from './storedRuns';
import type { Arc3FrameData } from './worker';
import { stepViewsJson, type StepDamage, type StepViewsJson } from './steps';
import type { DigestPool } from '../digests/pool';

/** Checks kept for polling; older ones are forgotten. */
const KEPT_JOBS = 50;

export interface AdminRunsDeps {
  readonly store: SessionStore & GameRunStore;
  /** Threads that make each page of steps into the replay view (decoding and encoding frames); absent: this thread. */
  readonly digests?: DigestPool;
  /**
   * The engine to play runs again on, for one check, and what to do when the check is over (stop a
   * fresh pool); null when this server runs no ARC-AGI-3 games.
   */
  readonly replayer: (() => { replayer: Replayer; release: () => Promise<void> }) | null;
}

interface Job {
  readonly sessionId: string;
  state: 'running' | 'done' | 'failed';
  check?: SessionCheck;
  report?: string[];
  error?: string;
}

/**
 * Plays runs on the service's own sources, as unrecorded playtest runs (they close when idle, as
 * a researcher's playtests do). A CLI or a server that knows its game folders can use a fresh
 * `Arc3Pool` instead, which keeps the check off the participants' workers.
 */
export function serviceReplayer(service: Arc3Service): Replayer {
  const runs = new Map<string, { run: string; step: number }>();
  const data = (s: ServerStep, prevFrames: () => number[][][]): Arc3FrameData => ({
    game_id: s.game_id,
    guid: s.run,
    frame: s.frames ? decodeFrames(s.frames) : prevFrames(),
    state: s.state as Arc3FrameData['state'],
    levels_completed: s.levels_completed,
    win_levels: s.win_levels,
    available_actions: [...s.available_actions],
    full_reset: s.full_reset,
  });
  // The folders `code` found, by the version's hash, for `open`.
  const versions = new Map<string, string>();
  return {
    async code(gameId, codeHash) {
      const found = await service.codeFolder(gameId, codeHash);
      if ('dir' in found) versions.set(found.dir, codeHash);
      return found;
    },
    async open(id, gameId, seed, _level, codeDir) {
      const hash = codeDir ? versions.get(codeDir) : undefined;
      const reply = await service.open({ gameId, seed, ...(codeDir && hash ? { code: { hash, dir: codeDir } } : {}) });
      runs.set(id, { run: reply.run, step: 0 });
      return { gameId: reply.game.id, frame: data(reply.steps[0], () => []) };
    },
    async act(id, action) {
      const r = runs.get(id);
      if (!r) throw new Error(`no open check run ${id}`);
      r.step++;
      const step = await service.act(
        r.run,
        null,
        action.action === 'ACTION6'
          ? { step: r.step, action: 'ACTION6', x: action.x, y: action.y }
          : { step: r.step, action: action.action },
      );
      return data(step, () => []);
    },
    close(id) {
      runs.delete(id);
      return Promise.resolve();
    },
  };
}

/** The router; routes.ts mounts it in its researcher router (guarded by the permission table). */
export function adminRunsRoutes(deps: AdminRunsDeps): Hono {
  const { store } = deps;
  const jobs = new Map<string, Job>();
  const api = new Hono();

  api.get('/sessions/:sessionId/runs', async (c) => {
    const sessionId = c.req.param('sessionId');
    if (!(await store.getSession(sessionId))) return fail(c, 404, 'not_found', `No session ${sessionId}.`);
    const runs = await store.listGameRuns(sessionId);
    // The same JSON as one document ({runs: [{...run, steps: [...]}]}), written a page of steps at
    // a time: a run of thousands of steps (megabytes of frames) is never read or encoded at once,
    // the participants' acknowledgements waiting on this thread go first between pages, and each
    // page's frames are decoded and encoded on a digest thread (the most of a replay read's work).
    c.header('Content-Type', 'application/json; charset=utf-8');
    return stream(
      c,
      async (out) => {
        await out.write('{"runs":[');
        for (const [k, run] of runs.entries()) {
          const head = JSON.stringify({ ...run, steps: [] });
          await out.write(`${k ? ',' : ''}${head.slice(0, -3)}[`);
          let first = true;
          let last: FrameGrid | null = null;
          let damage: StepDamage | undefined;
          for await (const steps of participantsFirst(stepPages(store, run.runId))) {
            const page: StepViewsJson = deps.digests
              ? await deps.digests.steps({ steps, last })
              : stepViewsJson(steps, last);
            last = page.last;
            if (page.json) await out.write((first ? '' : ',') + page.json);
            first &&= !page.json;
            damage = page.damage;
            if (damage) break;
          }
          // A run whose stored frames stop decoding is sent up to that step and marked damaged,
          // and the document goes on with the session's other runs.
          if (damage) {
            console.error(
              `Run ${run.runId} of session ${sessionId} is damaged at step ${damage.step} (${damage.message}); its steps are sent up to it. Run "arc-studio check" to repair it.`,
            );
            await out.write(`],"damaged":${JSON.stringify(damage)}}`);
          } else await out.write(']}');
        }
        await out.write(']}');
      },
      async (err) => {
        // The document is left unterminated, so a reader never takes a cut replay for a whole one.
        console.error(`Reading the game runs of session ${sessionId} failed: ${err.message}`);
      },
    );
  });

  api.get('/studies/:studyId/games/:gameId/levels/:level/frame', async (c) => {
    const { studyId, gameId } = c.req.param();
    const level = Number(c.req.param('level'));
    if (!Number.isInteger(level) || level < 0)
      return fail(
        c,
        400,
        'malformed',
        `level must be a whole number from 0 (levels completed), not "${c.req.param('level')}".`,
      );
    const found = await levelFirstFrame(store, studyId, gameId, level, participantsFirst);
    if (!found)
      return fail(
        c,
        404,
        'not_found',
        `No stored run of ${gameId} in study "${studyId}" reached level ${level + 1}, so its first frame is not known.`,
      );
    return c.json({ runId: found.runId, step: found.step, frames: encodeFrames([found.frame], null) });
  });

  api.post('/sessions/:sessionId/runs/verify', async (c) => {
    const sessionId = c.req.param('sessionId');
    if (!(await store.getSession(sessionId))) return fail(c, 404, 'not_found', `No session ${sessionId}.`);
    if (!deps.replayer)
      return fail(
        c,
        409,
        'no_engine',
        'This server runs no ARC-AGI-3 games (start it with --arc3-games), so runs cannot be played again here; use "arc-studio games verify-session".',
      );
    const id = randomUUID();
    const job: Job = { sessionId, state: 'running' };
    jobs.set(id, job);
    for (const old of jobs.keys()) if (jobs.size > KEPT_JOBS) jobs.delete(old);
    const { replayer, release } = deps.replayer();
    // The engine works in its own processes; this request answers at once and the page polls.
    void verifySession(store, replayer, sessionId)
      .then((check) => {
        job.check = check;
        job.report = formatSessionCheck(check);
        job.state = 'done';
      })
      .catch((e: unknown) => {
        job.error = `the check stopped: ${e instanceof Error ? e.message : String(e)}`;
        job.state = 'failed';
      })
      .finally(() => void release().catch(() => undefined));
    return c.json({ job: id, state: job.state }, 202);
  });

  api.get('/sessions/:sessionId/runs/verify/:job', (c) => {
    const job = jobs.get(c.req.param('job'));
    if (!job || job.sessionId !== c.req.param('sessionId'))
      return fail(
        c,
        404,
        'not_found',
        'No such check (checks are kept while the server runs, the last 50); start it again.',
      );
    return c.json({
      job: c.req.param('job'),
      state: job.state,
      ...(job.check ? { check: job.check, report: job.report } : {}),
      ...(job.error ? { error: job.error } : {}),
    });
  });

  return api;
}
