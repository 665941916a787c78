/**
 * Agents over the ARC-AGI-3 protocol: actions per second that the real server answers on a
 * built-in game over loopback, for one keep-alive client and for 16 concurrent clients, each
 * with its own scorecard and game session (each action a full official response with its
 * 64x64 frame). Each client replays Push's level-1 solution and a RESET, over and over.
 * The same run measures the loopback ceiling of this machine: one keep-alive client against a
 * bare Node server that answers a body of the same size and does nothing else, so the figures
 * can be judged as a ratio on a shared machine.
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchResult } from '../cli/bench';
import { versionedGameId } from '../core/game';
import { games, solutions } from '../games';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** `arc-studio serve` in a process of its own, so the clients do not share its event loop; resolves to its URL. */
function serve(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/arc-studio.mjs'), 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString('utf8');
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/login/.exec(out);
      if (m) resolve({ url: m[1], stop });
    });
    child.once('exit', (code) => reject(new Error(`the server stopped (exit ${code}) before it listened:\n${out}`)));
  });
}

const SECONDS = 3;
const WARM_UP_MS = 6_000;
/** A bound on the requests of one scenario, whatever the machine's speed. */
const MAX_REQUESTS = 200_000;

function post(agent: Agent, url: URL, route: string, key: string, body: unknown): Promise<Record<string, unknown>> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({
      agent, host: url.hostname, port: url.port, path: route, method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'X-API-Key': key },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const out = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        if (res.statusCode !== 200) reject(new Error(`${route} answered ${res.statusCode}: ${String(out.message)}`));
        else resolve(out);
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** One client: its own keep-alive connection, scorecard and session; returns the actions answered before `until`. */
async function client(url: URL, key: string, until: number, budget: { left: number }): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const gameId = versionedGameId(games.push);
    const { card_id } = await post(agent, url, '/api/scorecard/open', key, { tags: ['bench'] });
    const { guid } = await post(agent, url, '/api/cmd/RESET', key, { game_id: gameId, card_id });
    const plan = [...solutions.push[0].split(','), 'RESET'];
    let n = 0;
    while (Date.now() < until && budget.left-- > 0) {
      await post(agent, url, `/api/cmd/${plan[n % plan.length]}`, key, { game_id: gameId, guid });
      n++;
    }
    return n;
  } finally {
    agent.destroy();
  }
}

/** A bare Node HTTP server in a process of its own answering every request with `bytes` of JSON. */
function bareServer(bytes: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const script = `const body = JSON.stringify({ pad: 'x'.repeat(${bytes} - 10) });
require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }); res.end(body); }); })
  .listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port + '/login'); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (b: Buffer) => resolve({ url: b.toString('utf8').trim().replace(/\/login$/, ''), stop }));
    child.once('exit', (code) => reject(new Error(`the bare server stopped (exit ${code})`)));
  });
}

/** Requests answered by the bare server for one keep-alive client in SECONDS. */
async function ceiling(bytes: number): Promise<number> {
  const bare = await bareServer(bytes);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const url = new URL(bare.url);
    const until = Date.now() + SECONDS * 1000;
    const start = performance.now();
    let n = 0;
    while (Date.now() < until) {
      await post(agent, url, '/api/cmd/ACTION1', 'none', { game_id: 'x', guid: 'y' });
      n++;
    }
    return n / ((performance.now() - start) / 1000);
  } finally {
    agent.destroy();
    await bare.stop();
  }
}

export async function* run(): AsyncIterable<BenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-bench-agents-'));
  const dist = path.join(dir, 'dist');
  mkdirSync(dist, { recursive: true });
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><html><body></body></html>');
  const key = 'researcher-token-for-the-agents-bench-0123';
  const server = await serve(path.join(dir, 'data'), { ...process.env, ARC_STUDIO_DIST: dist, ARC_STUDIO_ADMIN_TOKEN: key, DATABASE_URL: '' });
  try {
    const url = new URL(server.url);
    // Warm-up: the engine, the routes and the database's first inserts. The server's code runs
    // through the TypeScript loader and is compiled hot over the first few seconds (measured
    // here: one client's rate climbs for about 5 s, then holds), so the figures are steady state.
    await client(url, key, Date.now() + WARM_UP_MS, { left: MAX_REQUESTS });
    for (const clients of [1, 16]) {
      const start = performance.now();
      const budget = { left: MAX_REQUESTS };
      const counts = await Promise.all(Array.from({ length: clients }, () => client(url, key, Date.now() + SECONDS * 1000, budget)));
      const seconds = (performance.now() - start) / 1000;
      const total = counts.reduce((a, b) => a + b, 0);
      yield { name: `agents.rest.push.${clients === 1 ? 'one_client' : `${clients}_clients`}.actions_per_s`, value: total / seconds, unit: 'actions/s' };
    }
    // The same response size as an action's (one 64x64 frame and the fields around it).
    yield { name: 'agents.rest.loopback_ceiling.one_client.requests_per_s', value: await ceiling(8_800), unit: 'requests/s' };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
