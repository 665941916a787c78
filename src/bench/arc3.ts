/**
 * arcengine games as participants play them: through ARC Studio's participant routes on the real
 * `arc-studio serve` (HTTP on loopback with one kept-alive connection per player, the session's
 * admission, the Python worker, the frames encoded against the previous step, the step signed and
 * its `game_steps` row committed in its group commit before the answer), beside the official engine in process, in the same run, with
 * the same kind of policy: a seeded random choice among the answer's `available_actions`, ACTION6
 * clicking a random cell whose colour is not the frame's background (its most common colour),
 * RESET after GAME_OVER or WIN. Only the steps are timed, never the policy, on both sides.
 *
 * Per game (every vendored one: ls20 keys, ft09 and vc33 clicks):
 * - `studio.actions_per_s`, `studio.p50_ms`, `studio.p99_ms`: one client, one session, one run,
 *   `POST /api/sessions/:id/runs/:run/actions` back to back, each answered once played,
 *   admitted and stored (PGlite, the default database).
 * - `engine.actions_per_s`: `Arcade(operation_mode=OFFLINE, ...).make(id)` then `env.step(...)` in
 *   one Python process, timed inside Python, frames left as numpy arrays, with pydantic's check of
 *   default factories kept per factory as the studio's worker keeps it (`memoize_factory_checks`
 *   in `worker.py`: on pydantic 2.13 it saves about 0.3 ms of every action), so that the two sides
 *   run the same engine code; `engine_as_installed.actions_per_s` the same without it.
 * - `studio_vs_engine`: the first over the second (1 = the studio costs nothing over the engine);
 *   `studio_vs_engine_as_installed` over the engine as installed.
 * - `floor.http_round_trip_ms` (per game) and `arc3.floor.pipe_round_trip_ms` (once): the two
 *   round trips a step cannot do without, timed back to back with servers that only answer
 *   (`floor.ts`): a kept-alive HTTP request to another Node process, the size of the game's
 *   requests and answers, through the same client code; a short line to a Python process and back.
 *   `studio_vs_engine_ceiling`: `studio_vs_engine` if the studio spent nothing but those, the most
 *   this machine allows.
 * - `step.<part>_ms`: where a step's time went, the mean over the one-client run, from the
 *   server's `Server-Timing` header (`ARC_STUDIO_SERVER_TIMING=1`): `admission` (the session
 *   token, the run's item, the study's rules), `worker` (the round trip to the Python worker,
 *   frames decoded), `frames` (the last frame hashed, the frames encoded for the answer and
 *   against the previous step for storage), `sign`, `store` (building the `game_steps` row and
 *   committing it, with the steps of other runs arriving meanwhile, before the answer),
 *   `route_other` (the rest of the route: JSON in and out), `http` (the client's round trip less
 *   the route's time: sockets, HTTP parsing, the event loop's queue).
 * - `worker_only.actions_per_s`: one `Arc3Worker` driven directly, without HTTP, storage or
 *   signing (the floor the studio's route adds to).
 * - `cpu.server_ms_per_action`, `cpu.workers_ms_per_action`: the CPU time (Linux /proc) the
 *   server process (HTTP, admission, frames, signing and PGlite, which runs in it) and its Python
 *   workers spent per action of the one-client run; `cpu.engine_ms_per_action` the engine's in
 *   process, `cpu.engine_vs_studio` the ratio, and `cpu.players_at_5_per_s_by_cpu` how many
 *   players at 5 actions/s the machine's cores could serve by CPU alone (no load generator, no
 *   waiting). CPU time moves far less than wall time when other work shares the machine.
 *
 * Players (ls20, vc33 and the game slowest on the engine in process in this run, each on servers
 * of its own; `BENCH_ARC3_PLAYERS_GAMES=ls20,ft09` names others): K participants, each with a
 * session of its own and a kept-alive connection,
 * each acting every 200 ms (5 actions/s, faster than people play), for a few seconds; K stepped up
 * until the p99 action round trip passes 100 ms. Each step's p50/p99 and the actions/s served,
 * the CPU the servers, their Python workers and the load generator each spent per action
 * (`cpu.servers_ms_per_action`, `cpu.workers_ms_per_action`, `cpu.generator_ms_per_action`) and
 * the p99 of how late the load generator's own event loop ran (`generator_lag_p99_ms`: a late
 * generator delays the players' round trips as a slow server does),
 * then `p99_under_100ms`, the largest K that stayed under, for one server on PGlite, one
 * server on PostgreSQL and two servers (two processes, players split between them) on one
 * PostgreSQL (a throwaway cluster, or `BENCH_DATABASE_URL`). The load generator runs on the same
 * machine and takes its share of its cores.
 *
 * `BENCH_ARC3_PLAYERS` picks the players cases (a comma-separated list of `pglite-1-server`,
 * `postgres-1-server`, `postgres-2-servers`; `none` for the one-client figures alone); all by
 * default.
 *
 * `machine.load_1m_per_core` is the machine's one-minute load average per core when the suite
 * starts: other work moves these figures, the players' p99 most; the ratios, measured in one run,
 * move less.
 *
 * Needs Python with arcengine and arc_agi (`ARC_STUDIO_PYTHONPATH`, or `pip install arc-agi`) and
 * the games (`ARC_STUDIO_ARC3_GAMES`); both default to the official files vendored in
 * ../shared/vendor/arc-agi-3 beside the checkout. Without them the suite says where it looked and
 * what to set, and yields nothing. `ARC_STUDIO_TEST_PORTS=A-B` keeps its servers in a port range.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../server/host/root';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { BenchResult } from './result';
import { startPgCluster, type PgCluster } from '../server/store/pgCluster';
import { Arc3Worker, WORKER_SCRIPT } from '../server/arc3/worker';
import { probe } from '../server/arc3/probe';
import { startServe, stop } from './ingest';
import { httpFloorMs, pipeFloorMs } from './floor';
import { postgresDatabase } from './databases';
import { percentile } from './measure';
import { ADMIN, admin, lcg, makeStudy, participant, pick, pickStep, serverCpu, sleep, step } from './arc3Client';

/** Wall time each side plays each game. */
const BUDGET_MS = 3000;
/** How long each players step lasts. */
const PLAYERS_MS = 4000;
const PACE_MS = 200;
const PLAYER_STEPS = [16, 32, 64, 100, 150, 200, 250, 300, 400, 500];
const VENDOR = path.join(ROOT, '../shared/vendor/arc-agi-3');
const PARTS = ['admission', 'worker', 'frames', 'sign', 'store'] as const;

const TOOLKIT = String.raw`
import json, logging, random, sys, time
import numpy as np
from arc_agi import Arcade, OperationMode
from arcengine import GameAction, GameState
games_dir, game_id, budget = sys.argv[1], sys.argv[2], float(sys.argv[3]) / 1000
if len(sys.argv) > 4:
    sys.path.insert(0, sys.argv[4])
    from worker import memoize_factory_checks
    memoize_factory_checks()
quiet = logging.getLogger("bench"); quiet.setLevel(logging.CRITICAL)
env = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=games_dir, logger=quiet).make(game_id)
if env is None:
    sys.exit("the toolkit could not make " + game_id + " from " + games_dir)
fd = env.observation_space
rng = random.Random(42)

def click(frames):
    if not frames:
        return {"x": rng.randrange(64), "y": rng.randrange(64)}
    g = np.asarray(frames[-1])
    bg = np.bincount(g.ravel()).argmax()
    ys, xs = np.nonzero(g != bg)
    if len(ys) == 0:
        return {"x": rng.randrange(g.shape[1]), "y": rng.randrange(g.shape[0])}
    i = rng.randrange(len(ys))
    return {"x": int(xs[i]), "y": int(ys[i])}

n, stepping, cpu = 0, 0.0, 0.0
t0 = time.perf_counter()
while time.perf_counter() - t0 < budget:
    if fd.state in (GameState.GAME_OVER, GameState.WIN) or not fd.available_actions:
        action, data = GameAction.RESET, None
    else:
        a = rng.choice(fd.available_actions)
        action, data = GameAction.from_id(a), (click(fd.frame) if a == 6 else None)
    t, c = time.perf_counter(), time.process_time()
    fd = env.step(action, data=data)
    stepping += time.perf_counter() - t
    cpu += time.process_time() - c
    n += 1
print("BENCH " + json.dumps({"actions": n, "seconds": stepping, "cpu_seconds": cpu}))
`;

/** Where the engine and games are, or what is missing and how to point the suite at them. */
export async function locate(): Promise<
  { python: string; pythonPath?: string; gamesDir: string } | { missing: string }
> {
  const vendored = existsSync(path.join(VENDOR, 'python', 'arcengine'));
  const pythonPath = process.env.ARC_STUDIO_PYTHONPATH ?? (vendored ? path.join(VENDOR, 'python') : undefined);
  const gamesDir =
    process.env.ARC_STUDIO_ARC3_GAMES?.split(path.delimiter)[0] ?? path.join(VENDOR, 'environment_files');
  const how = `Point the suite at the engine with ARC_STUDIO_PYTHONPATH (a folder holding arcengine and arc_agi; or \`pip install arc-agi\`) and at the games with ARC_STUDIO_ARC3_GAMES (a folder in the toolkit's layout, <game>/<version>/<game>.py + metadata.json).`;
  const found = await probe({ pythonPath });
  if (!found.ok) {
    const where = process.env.ARC_STUDIO_PYTHONPATH
      ? `ARC_STUDIO_PYTHONPATH=${process.env.ARC_STUDIO_PYTHONPATH}`
      : `${path.join(VENDOR, 'python')}${vendored ? '' : ' (missing)'} and the installed packages`;
    return { missing: `${found.message} Looked for arcengine in ${where}. ${how}` };
  }
  if (!existsSync(gamesDir)) {
    const where = process.env.ARC_STUDIO_ARC3_GAMES ? `ARC_STUDIO_ARC3_GAMES=${gamesDir}` : gamesDir;
    return { missing: `no games folder at ${where}. ${how}` };
  }
  return { python: found.executable, pythonPath, gamesDir };
}

export async function* run(): AsyncIterable<BenchResult> {
  const where = await locate();
  if ('missing' in where) {
    console.error(`bench arc3: skipped: ${where.missing}`);
    return;
  }
  const { python, pythonPath, gamesDir } = where;
  // Other work on the machine moves these figures, the players' p99 most: say how busy it was.
  yield { name: 'arc3.machine.load_1m_per_core', value: loadavg()[0] / cpus().length, unit: 'load' };
  yield { name: 'arc3.machine.cores', value: cpus().length, unit: 'cores' };
  const env: NodeJS.ProcessEnv = {
    ARC_STUDIO_SERVER_TIMING: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    ...(pythonPath ? { ARC_STUDIO_PYTHONPATH: pythonPath } : {}),
  };
  const args = ['--no-samples', '--arc3-games', gamesDir];
  const pipeMs = await pipeFloorMs(python);
  yield { name: 'arc3.floor.pipe_round_trip_ms', value: pipeMs, unit: 'ms' };

  // One client per game, on one server with PGlite.
  let ids: string[] = [];
  /** Each game's actions/s on the engine in process: the slowest is among the players' games. */
  const engineRates = new Map<string, number>();
  yield* withServers(1, { ...env, DATABASE_URL: '' }, args, async function* (_urls, servers) {
    const url = servers[0];
    ids = (await admin<{ games: { id: string }[] }>(url.url, 'GET', '/api/admin/arc3/games')).games.map((g) => g.id);
    for (const gameId of ids) {
      const game = gameId.split('-')[0];
      await makeStudy(url.url, gameId);
      const cpuBefore = serverCpu(servers[0].pid);
      const studio = await playStudio(url.url, gameId);
      const cpuAfter = serverCpu(servers[0].pid);
      yield { name: `arc3.${game}.studio.actions_per_s`, value: studio.actionsPerS, unit: 'actions/s' };
      yield { name: `arc3.${game}.studio.p50_ms`, value: studio.p50, unit: 'ms' };
      yield { name: `arc3.${game}.studio.p99_ms`, value: studio.p99, unit: 'ms' };
      const installed = playToolkit(python, pythonPath, gamesDir, gameId, false);
      const engine = playToolkit(python, pythonPath, gamesDir, gameId, true);
      if (installed !== null) {
        yield {
          name: `arc3.${game}.engine_as_installed.actions_per_s`,
          value: installed.actionsPerS,
          unit: 'actions/s',
        };
        yield {
          name: `arc3.${game}.studio_vs_engine_as_installed`,
          value: studio.actionsPerS / installed.actionsPerS,
          unit: 'x',
        };
      }
      if (engine !== null) {
        engineRates.set(gameId, engine.actionsPerS);
        yield { name: `arc3.${game}.engine.actions_per_s`, value: engine.actionsPerS, unit: 'actions/s' };
        yield { name: `arc3.${game}.studio_vs_engine`, value: studio.actionsPerS / engine.actionsPerS, unit: 'x' };
        // What the studio could reach if its route cost nothing beyond the two round trips it cannot do without.
        const httpMs = await httpFloorMs(studio.requestBytes, studio.answerBytes);
        yield { name: `arc3.${game}.floor.http_round_trip_ms`, value: httpMs, unit: 'ms' };
        const engineMs = 1000 / engine.actionsPerS;
        yield {
          name: `arc3.${game}.studio_vs_engine_ceiling`,
          value: engineMs / (engineMs + httpMs + pipeMs),
          unit: 'x',
        };
      }
      if (cpuBefore && cpuAfter) {
        const node = (cpuAfter.node - cpuBefore.node) / studio.actions;
        const workers = (cpuAfter.children - cpuBefore.children) / studio.actions;
        yield { name: `arc3.${game}.cpu.server_ms_per_action`, value: node, unit: 'ms' };
        yield { name: `arc3.${game}.cpu.workers_ms_per_action`, value: workers, unit: 'ms' };
        if (engine !== null) {
          yield { name: `arc3.${game}.cpu.engine_ms_per_action`, value: engine.cpuMsPerAction, unit: 'ms' };
          yield {
            name: `arc3.${game}.cpu.engine_vs_studio`,
            value: engine.cpuMsPerAction / (node + workers),
            unit: 'x',
          };
        }
        // Players at 5 actions/s the machine's cores could serve on CPU alone (the load generator and HTTP client not counted).
        yield {
          name: `arc3.${game}.cpu.players_at_5_per_s_by_cpu`,
          value: (cpus().length * 1000) / ((node + workers) * 5),
          unit: 'players',
        };
      }
      for (const [part, ms] of Object.entries(studio.parts))
        yield { name: `arc3.${game}.step.${part}_ms`, value: ms, unit: 'ms' };
      const worker = new Arc3Worker({ gameDirs: [gamesDir], pythonPath });
      try {
        const w = await playWorker(worker, gameId);
        yield { name: `arc3.${game}.worker_only.actions_per_s`, value: w.actionsPerS, unit: 'actions/s' };
      } finally {
        await worker.stop();
      }
    }
  });
  const cases = playersCases();
  if (!cases.size) return;
  const games = playersGames(ids, engineRates);
  if (!games.length) {
    console.error(
      `bench arc3: no players figures: none of the games asked for is in ${gamesDir} (${ids.join(', ') || 'none'}).`,
    );
    return;
  }
  // Each game on servers of its own, so that one game's open runs do not weigh on the next.
  if (cases.has('pglite-1-server'))
    for (const gameId of games)
      yield* withServers(1, { ...env, DATABASE_URL: '' }, args, (_urls, servers) =>
        players('pglite-1-server', servers, gameId),
      );
  if (!cases.has('postgres-1-server') && !cases.has('postgres-2-servers')) return;
  const external = process.env.BENCH_DATABASE_URL;
  let cluster: PgCluster | null = null;
  try {
    const base = external ?? (cluster = await startPgCluster()).url;
    for (const gameId of games) {
      const game = gameId.split('-')[0];
      if (cases.has('postgres-1-server'))
        yield* withServers(
          1,
          { ...env, DATABASE_URL: await postgresDatabase(base, `bench_arc3_one_${game}`) },
          args,
          (_urls, servers) => players('postgres-1-server', servers, gameId),
        );
      if (cases.has('postgres-2-servers'))
        yield* withServers(
          2,
          { ...env, DATABASE_URL: await postgresDatabase(base, `bench_arc3_two_${game}`) },
          args,
          (_urls, servers) => players('postgres-2-servers', servers, gameId),
        );
    }
  } catch (e) {
    console.error(`bench arc3: PostgreSQL part stopped: ${(e as Error).message}`);
  } finally {
    cluster?.stop();
  }
}

const PLAYERS_CASES = ['pglite-1-server', 'postgres-1-server', 'postgres-2-servers'] as const;

/**
 * The games the players play (full ids, in this order): those `BENCH_ARC3_PLAYERS_GAMES` names
 * (short ids, comma-separated), or by default ls20, vc33 and the game slowest on the engine in
 * process in this run (the slowest vendored game), each once.
 */
function playersGames(ids: readonly string[], engineRates: ReadonlyMap<string, number>): string[] {
  const byShort = (short: string) => ids.find((id) => id.split('-')[0] === short);
  const asked = process.env.BENCH_ARC3_PLAYERS_GAMES?.trim();
  if (asked) {
    const names = asked.split(',').map((n) => n.trim());
    const unknown = names.filter((n) => !byShort(n));
    if (unknown.length)
      throw new Error(
        `BENCH_ARC3_PLAYERS_GAMES=${asked} names ${unknown.join(', ')}, not among the games found (${ids.map((id) => id.split('-')[0]).join(', ')}); name some of those.`,
      );
    return [...new Set(names.map((n) => byShort(n)!))];
  }
  const slowest = [...engineRates].sort((a, b) => a[1] - b[1])[0]?.[0];
  const chosen = [byShort('ls20'), byShort('vc33'), slowest].filter((id): id is string => id !== undefined);
  return [...new Set(chosen)];
}

/** The players cases `BENCH_ARC3_PLAYERS` asks for (all when unset). */
function playersCases(): Set<string> {
  const asked = process.env.BENCH_ARC3_PLAYERS?.trim();
  if (!asked) return new Set(PLAYERS_CASES);
  if (asked === 'none') return new Set();
  const names = asked.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !(PLAYERS_CASES as readonly string[]).includes(n));
  if (unknown.length)
    throw new Error(
      `BENCH_ARC3_PLAYERS=${asked} names no players case ${unknown.join(', ')}; give none, or some of ${PLAYERS_CASES.join(', ')}.`,
    );
  return new Set(names);
}

/** Starts `n` servers on one database (PGlite: one folder, so n = 1), runs `body`, stops them. */
async function* withServers(
  n: number,
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  body: (urls: string[], servers: { url: string; pid: number }[]) => AsyncIterable<BenchResult>,
): AsyncIterable<BenchResult> {
  const tmp = mkdtempSync(path.join(tmpdir(), 'arc-studio-bench-arc3-'));
  mkdirSync(path.join(tmp, 'dist'));
  writeFileSync(path.join(tmp, 'dist', 'index.html'), '<!doctype html><title>bench</title>');
  const servers: Awaited<ReturnType<typeof startServe>>[] = [];
  try {
    // One after the other: the first creates the tables.
    for (let i = 0; i < n; i++) servers.push(await startServe(tmp, { ARC_STUDIO_ADMIN_TOKEN: ADMIN, ...env }, args));
    yield* body(
      servers.map((s) => s.url),
      servers.map((s) => ({ url: s.url, pid: s.proc.pid! })),
    );
  } finally {
    await Promise.all(servers.map((s) => stop(s.proc)));
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function playStudio(
  url: string,
  gameId: string,
): Promise<{
  actions: number;
  actionsPerS: number;
  p50: number;
  p99: number;
  parts: Record<string, number>;
  requestBytes: number;
  answerBytes: number;
}> {
  const r = lcg(42);
  const p = await participant(url, gameId, `one-${gameId}`);
  let requestBytes = 0;
  let answerBytes = 0;
  const shown: { last?: number[][] } = {};
  let current = p.step;
  const times: number[] = [];
  const sums: Record<string, number> = {};
  const end = performance.now() + BUDGET_MS;
  while (performance.now() < end) {
    const action = pickStep(current, shown, r);
    const t = performance.now();
    const a = await step(url, p, current.step + 1, action);
    const took = performance.now() - t;
    times.push(took);
    requestBytes += JSON.stringify({ step: current.step + 1, ...action }).length;
    answerBytes += JSON.stringify(a.json).length;
    for (const part of PARTS) sums[part] = (sums[part] ?? 0) + (a.timing[part] ?? 0);
    const routeOther = a.timing.total - PARTS.reduce((s, part) => s + (a.timing[part] ?? 0), 0);
    sums.route_other = (sums.route_other ?? 0) + routeOther;
    sums.http = (sums.http ?? 0) + took - a.timing.total;
    current = a.step;
  }
  const stepping = times.reduce((a, b) => a + b, 0);
  const parts = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v / times.length]));
  return {
    actions: times.length,
    actionsPerS: times.length / (stepping / 1000),
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    parts,
    requestBytes: requestBytes / times.length,
    answerBytes: answerBytes / times.length,
  };
}

async function playWorker(
  worker: Arc3Worker,
  gameId: string,
): Promise<{ actionsPerS: number; p50: number; p99: number }> {
  const r = lcg(42);
  let fd = await worker.open('bench', gameId);
  const times: number[] = [];
  const end = performance.now() + BUDGET_MS;
  while (performance.now() < end) {
    const action = pick(fd, r);
    const t = performance.now();
    fd = await worker.act('bench', action);
    times.push(performance.now() - t);
  }
  await worker.close('bench');
  const stepping = times.reduce((a, b) => a + b, 0);
  return { actionsPerS: times.length / (stepping / 1000), p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** The toolkit's in-process actions/s and CPU per action, or null (with the reason on stderr) when it could not run. */
function playToolkit(
  python: string,
  pythonPath: string | undefined,
  gamesDir: string,
  gameId: string,
  memoized: boolean,
): { actionsPerS: number; cpuMsPerAction: number } | null {
  const memo = memoized ? [path.dirname(WORKER_SCRIPT)] : [];
  try {
    const out = execFileSync(python, ['-c', TOOLKIT, gamesDir, gameId, String(BUDGET_MS), ...memo], {
      env: { ...process.env, PYTHONPATH: [pythonPath, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter) },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: BUDGET_MS + 60_000,
    });
    const line = out.split('\n').find((l) => l.startsWith('BENCH '));
    if (!line) throw new Error('it printed no result');
    const {
      actions,
      seconds,
      cpu_seconds: cpu,
    } = JSON.parse(line.slice(6)) as { actions: number; seconds: number; cpu_seconds: number };
    return { actionsPerS: actions / seconds, cpuMsPerAction: (cpu * 1000) / actions };
  } catch (e) {
    const err = e as Error & { stderr?: string };
    const detail = err.stderr?.trim().split('\n').at(-1) ?? err.message;
    console.error(
      `bench arc3: no toolkit figure for ${gameId}: ${detail}. The toolkit (arc_agi) must be importable by ${python}: set ARC_STUDIO_PYTHONPATH or \`pip install arc-agi\`.`,
    );
    return null;
  }
}

/** CPU time (ms) the servers, their Python workers and this process (the load generator) used so far. */
function machineCpu(servers: readonly { pid: number }[]): { servers: number; workers: number; generator: number } {
  const used = { servers: 0, workers: 0, generator: 0 };
  for (const s of servers) {
    const cpu = serverCpu(s.pid);
    used.servers += cpu?.node ?? NaN;
    used.workers += cpu?.children ?? NaN;
  }
  const self = process.cpuUsage();
  used.generator = (self.user + self.system) / 1000;
  return used;
}

/**
 * K players of a game spread over `servers`, stepped up until the p99 round trip passes 100 ms;
 * at each K, the CPU each part of the machine spent per action served (`cpu.<part>_ms_per_action`:
 * the servers, their Python workers, the load generator), which says where the cores went.
 */
async function* players(
  name: string,
  servers: readonly { url: string; pid: number }[],
  gameId: string,
): AsyncIterable<BenchResult> {
  const urls = servers.map((s) => s.url);
  const game = gameId.split('-')[0];
  await makeStudy(urls[0], gameId);
  let best = 0;
  let made: { url: string; p: Awaited<ReturnType<typeof participant>> }[] = [];
  for (const k of PLAYER_STEPS) {
    // New participants as K grows (runs already open go on where they were).
    for (let i = made.length; i < k; i += 25) {
      made = made.concat(
        await Promise.all(
          Array.from({ length: Math.min(25, k - i) }, async (_, j) => {
            const url = urls[(i + j) % urls.length];
            return { url, p: await participant(url, gameId, `${name}-${i + j}`) };
          }),
        ),
      );
    }
    const times: number[] = [];
    let failed = 0;
    const cpuBefore = machineCpu(servers);
    // How late the load generator's own event loop ran: a late loop delays the players' timings too.
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const t0 = performance.now();
    const end = t0 + PLAYERS_MS;
    await Promise.all(
      made.slice(0, k).map(async ({ url, p }, i) => {
        const r = lcg(i + 1);
        const shown: { last?: number[][] } = {};
        await sleep(r() * PACE_MS);
        for (let next = performance.now(); next < end; next += PACE_MS) {
          const wait = next - performance.now();
          if (wait > 0) await sleep(wait);
          const action = pickStep(p.step, shown, r);
          const t = performance.now();
          try {
            p.step = (await step(url, p, p.step.step + 1, action)).step;
            times.push(performance.now() - t);
          } catch (e) {
            if (failed++ === 0) console.error(`bench arc3: ${name}: ${(e as Error).message}`);
            return;
          }
        }
      }),
    );
    const elapsed = performance.now() - t0;
    lag.disable();
    const cpuAfter = machineCpu(servers);
    const p99 = percentile(times, 99);
    yield { name: `arc3.${game}.players.${name}.${k}.p50_ms`, value: percentile(times, 50), unit: 'ms' };
    yield { name: `arc3.${game}.players.${name}.${k}.p99_ms`, value: p99, unit: 'ms' };
    yield {
      name: `arc3.${game}.players.${name}.${k}.actions_per_s`,
      value: times.length / (elapsed / 1000),
      unit: 'actions/s',
    };
    for (const part of ['servers', 'workers', 'generator'] as const) {
      const ms = (cpuAfter[part] - cpuBefore[part]) / times.length;
      if (Number.isFinite(ms))
        yield { name: `arc3.${game}.players.${name}.${k}.cpu.${part}_ms_per_action`, value: ms, unit: 'ms' };
    }
    yield {
      name: `arc3.${game}.players.${name}.${k}.generator_lag_p99_ms`,
      value: lag.percentile(99) / 1e6,
      unit: 'ms',
    };
    if (failed) yield { name: `arc3.${game}.players.${name}.${k}.failed_players`, value: failed, unit: 'players' };
    if (p99 >= 100 || failed) break;
    best = k;
  }
  yield { name: `arc3.${game}.players.${name}.p99_under_100ms`, value: best, unit: 'players' };
}
