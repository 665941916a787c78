/**
 * What the ARC-AGI-3 benchmarks share: the seeded random policy both sides play, a participant's
 * requests to a server under test (session, run, steps, with the server's timing header read),
 * and a process's CPU time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { decodeFrames } from '../core/formats/frames';
import type { ServerRunReply, ServerStep } from '../core/game/serverGame';
import type { Arc3Action, Arc3FrameData } from '../server/arc3/worker';
import { requestJson } from './http';

/** The researcher token of the benchmarks' servers. */
export const ADMIN = 'bench-researcher-token-0123456789';

/** A small seeded generator (the Python side uses `random.Random(42)`: the same policy, its own draws). */
export function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** A random cell whose colour is not the grid's most common one; any cell when there is none. */
function clickTarget(grid: number[][] | undefined, r: () => number): { x: number; y: number } {
  if (!grid?.length) return { x: Math.floor(r() * 64), y: Math.floor(r() * 64) };
  const counts = new Array<number>(256).fill(0);
  for (const row of grid) for (const c of row) counts[c]++;
  const bg = counts.indexOf(Math.max(...counts));
  const cells: number[] = [];
  const w = grid[0].length;
  grid.forEach((row, y) =>
    row.forEach((c, x) => {
      if (c !== bg) cells.push(y * w + x);
    }),
  );
  if (!cells.length) return { x: Math.floor(r() * w), y: Math.floor(r() * grid.length) };
  const i = cells[Math.floor(r() * cells.length)];
  return { x: i % w, y: Math.floor(i / w) };
}

/** The policy's next action, given the state, the actions available and (for clicks) the last frame. */
function choose(
  state: string,
  available: readonly number[],
  lastFrame: () => number[][] | undefined,
  r: () => number,
): Arc3Action {
  if (state === 'GAME_OVER' || state === 'WIN' || available.length === 0) return { action: 'RESET' };
  const a = available[Math.floor(r() * available.length)];
  return a === 6
    ? { action: 'ACTION6', ...clickTarget(lastFrame(), r) }
    : { action: `ACTION${a}` as Arc3Action['action'] };
}

export function pick(fd: Arc3FrameData, r: () => number): Arc3Action {
  return choose(fd.state, fd.available_actions, () => fd.frame.at(-1), r);
}

/** The same policy on a studio answer; its frames are decoded only when a click needs them. */
export function pickStep(step: ServerStep, shown: { last?: number[][] }, r: () => number): Arc3Action {
  return choose(
    step.state,
    step.available_actions,
    () => {
      const frames = decodeFrames(step.frames, null);
      if (frames.length) shown.last = frames[frames.length - 1];
      return shown.last;
    },
    r,
  );
}

export interface Answer {
  status: number;
  json: unknown;
  timing: Record<string, number>;
}

export async function call(url: string, method: 'GET' | 'POST', body: unknown, token: string | null): Promise<Answer> {
  const r = await requestJson(url, method, body === undefined ? '' : JSON.stringify(body), token);
  const timing: Record<string, number> = {};
  for (const m of String(r.headers['server-timing'] ?? '').matchAll(/(\w+);dur=([\d.]+)/g)) timing[m[1]] = Number(m[2]);
  return { status: r.status, json: r.json, timing };
}

/** A researcher's request; a 503 (a server at capacity, as on a busy machine) is sent again after its Retry-After, up to 10 times. */
export async function admin<T>(url: string, method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
  let r = await call(`${url}${route}`, method, body, ADMIN);
  for (let tries = 1; r.status === 503 && tries < 10; tries++) {
    await sleep(1000 * ((r.json as { retryAfter?: number } | null)?.retryAfter ?? 1));
    r = await call(`${url}${route}`, method, body, ADMIN);
  }
  if (r.status !== 200 && r.status !== 201)
    throw new Error(`${method} ${route} answered ${r.status}: ${JSON.stringify(r.json)}`);
  return r.json as T;
}

/** The study `bench-<game>`: one item, the game. */
export async function makeStudy(url: string, gameId: string): Promise<void> {
  await admin(url, 'POST', `/api/admin/studies/bench-${gameId.split('-')[0]}`, {
    definition: {
      title: `Bench ${gameId}`,
      consent: 'A benchmark run.',
      instructions: 'Play.',
      completion: { code: 'BENCH' },
      items: [{ kind: 'game', id: 'game', game: gameId }],
    },
  });
}

/** A request sent again after the Retry-After of a 503 (a server at capacity), as the study page does. */
export async function patiently(url: string, body: unknown, token: string | null): Promise<Answer> {
  for (;;) {
    const r = await call(url, 'POST', body, token);
    if (r.status !== 503) return r;
    await sleep(1000 * ((r.json as { retryAfter?: number }).retryAfter ?? 1));
  }
}

/** A participant of `bench-<game>` with its run open on step 0. */
export async function participant(
  url: string,
  gameId: string,
  pid: string,
): Promise<{ sessionId: string; token: string; run: string; step: ServerStep }> {
  const s = await patiently(
    `${url}/api/studies/bench-${gameId.split('-')[0]}/sessions`,
    { params: { PROLIFIC_PID: pid } },
    null,
  );
  if (s.status !== 201) throw new Error(`Creating a session failed (${s.status}): ${JSON.stringify(s.json)}`);
  const { sessionId, token } = s.json as { sessionId: string; token: string };
  const r = await patiently(`${url}/api/sessions/${sessionId}/runs`, { item: 'game' }, token);
  if (r.status !== 200) throw new Error(`Opening the run failed (${r.status}): ${JSON.stringify(r.json)}`);
  const reply = r.json as ServerRunReply;
  return { sessionId, token, run: reply.run, step: reply.steps[reply.steps.length - 1] };
}

/** One player's action; its answer, or an error naming what the server said. */
export async function step(
  url: string,
  p: { sessionId: string; token: string; run: string },
  n: number,
  action: Arc3Action,
): Promise<Answer & { step: ServerStep }> {
  const r = await call(
    `${url}/api/sessions/${p.sessionId}/runs/${p.run}/actions`,
    'POST',
    { step: n, ...action },
    p.token,
  );
  if (r.status !== 200)
    throw new Error(`Step ${n} (${action.action}) was answered ${r.status}: ${JSON.stringify(r.json)}`);
  return { ...r, step: r.json as ServerStep };
}

/**
 * CPU time (user + system, ms) used so far by a server process and by its child processes (the
 * Python workers), read from Linux's /proc; null elsewhere. Unlike wall time, it moves little when
 * other work shares the machine.
 */
export function serverCpu(pid: number): { node: number; children: number } | null {
  const ticks = (stat: string) => {
    // Fields after the command name (which may hold spaces): state is 3rd, utime 14th, stime 15th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ms: ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS };
  };
  try {
    const node = ticks(readFileSync(`/proc/${pid}/stat`, 'utf8')).ms;
    let children = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const t = ticks(readFileSync(`/proc/${entry}/stat`, 'utf8'));
        if (t.ppid === pid) children += t.ms;
      } catch {
        // The process ended meanwhile.
      }
    }
    return { node, children };
  } catch {
    return null;
  }
}

/** Linux's clock ticks per second (`getconf CLK_TCK`), which /proc counts CPU time in. */
export const CLOCK_TICKS = 100;

export function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms));
}
