/**
 * Agents over the ARC-AGI-3 protocol: actions per second that the real server answers on a
 * built-in game over loopback, for one keep-alive client and for 16 concurrent clients, each
 * with its own scorecard and game session (each action a full official response with its
 * 64x64 frame). Each client replays Push's level-1 solution and a RESET, over and over.
 * The same run measures the loopback ceiling of this machine: one keep-alive client against a
 * bare Node server that answers a body of the same size and does nothing else, so the figures
 * can be judged as a ratio on a shared machine.
 *
 * Each rate is measured with two keys in turn on the same server: the bootstrap researcher token
 * (checked by one hash comparison) and an agent key a designer of the lab issued with her
 * personal token (looked up in the database, then kept a while), with the ratio of the two: what
 * authenticating an agent costs per action.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../server/host/root';
import { NODE_FLAGS } from '../server/host/nodeFlags';
import type { BenchResult } from './result';
import { versionedGameId } from '../core/game';
import { games, solutions } from '../games';
import { benchPerson } from './people';

/** `arc-studio serve` in a process of its own, so the clients do not share its event loop; resolves to its URL. */
function serve(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      ...NODE_FLAGS,
      path.join(ROOT, 'bin/arc-studio.mjs'),
      'serve',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir,
    ],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
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

const SECONDS = 4;
const WARM_UP_S = 6;

/** Each key's turn while several keys are measured together (`KEYS`). */
const SLOT_MS = 250;

/**
 * The clients, as a plain Node script in a process of their own (neither the bench's TypeScript
 * loader nor its event loop in the way): `CLIENTS` clients, each with a keep-alive connection,
 * scorecard and session per key of `KEYS` (comma-separated), replaying `PLAN` for `WARM_UP`
 * seconds and then for `SECONDS` more (measured). With several keys the keys take turns of
 * `SLOT_MS` on every client, so that each key meets the same moments of a shared machine; a
 * request counts for the turn it started in. Prints the sum of the clients' rates (actions per
 * second) per key, as JSON `{ "rates": [...] }`. With `BARE` set it sends the same requests
 * without a scorecard or session.
 */
const CLIENT_SCRIPT = `const { Agent, request } = require('node:http');
const { BASE_URL, KEYS, GAME, PLAN, WARM_UP, SECONDS, CLIENTS, BARE } = process.env;
const SLOT = ${SLOT_MS};
const url = new URL(BASE_URL);
const plan = PLAN.split(',');
const keys = KEYS.split(',');
function post(agent, key, route, body) {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: url.hostname, port: url.port, path: route, method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'X-API-Key': key } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const out = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (res.statusCode !== 200) reject(new Error(route + ' answered ' + res.statusCode + ': ' + out.message));
        else resolve(out);
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}
async function client(warm, until) {
  const lanes = [];
  for (const key of keys) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let guid = 'none';
    if (!BARE) {
      const { card_id } = await post(agent, key, '/api/scorecard/open', { tags: ['bench'] });
      ({ guid } = await post(agent, key, '/api/cmd/RESET', { game_id: GAME, card_id }));
    }
    lanes.push({ agent, key, guid, i: 0, n: 0 });
  }
  const turn = (t) => lanes[Math.floor(t / SLOT) % lanes.length];
  const act = (lane) => post(lane.agent, lane.key, '/api/cmd/' + plan[lane.i++ % plan.length], { game_id: GAME, guid: lane.guid });
  while (Date.now() < warm) await act(turn(performance.now()));
  const start = performance.now();
  for (;;) {
    const now = performance.now();
    if (Date.now() >= until) break;
    const lane = turn(now - start);
    await act(lane);
    lane.n++;
  }
  const seconds = (performance.now() - start) / 1000;
  for (const lane of lanes) lane.agent.destroy();
  // Each key had its share of the time.
  return lanes.map((lane) => lane.n / (seconds / lanes.length));
}
(async () => {
  const warm = Date.now() + Number(WARM_UP) * 1000;
  const all = await Promise.all(Array.from({ length: Number(CLIENTS) }, () => client(warm, warm + Number(SECONDS) * 1000)));
  console.log(JSON.stringify({ rates: keys.map((_, k) => all.reduce((a, r) => a + r[k], 0)) }));
})().catch((e) => { console.error(e.message); process.exit(1); });`;

/** Runs {@link CLIENT_SCRIPT}; resolves to the actions (or requests) answered per second, per key of `KEYS`. */
function clients(env: Record<string, string>): Promise<number[]> {
  const child = spawn(process.execPath, ['-e', CLIENT_SCRIPT], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString('utf8');
  });
  child.stderr.on('data', (b: Buffer) => {
    err += b.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the bench's client failed (exit ${code}): ${err.trim()}`));
      resolve((JSON.parse(out) as { rates: number[] }).rates);
    });
  });
}

/** A bare Node HTTP server in a process of its own answering every request with `bytes` of JSON. */
function bareServer(bytes: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const script = `const body = JSON.stringify({ pad: 'x'.repeat(${bytes} - 10) });
require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }); res.end(body); }); })
  .listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port + '/login'); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (b: Buffer) =>
      resolve({
        url: b
          .toString('utf8')
          .trim()
          .replace(/\/login$/, ''),
        stop,
      }),
    );
    child.once('exit', (code) => reject(new Error(`the bare server stopped (exit ${code})`)));
  });
}

export async function* run(): AsyncIterable<BenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-bench-agents-'));
  const dist = path.join(dir, 'dist');
  mkdirSync(dist, { recursive: true });
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><html><body></body></html>');
  const key = 'researcher-token-for-the-agents-bench-0123';
  const server = await serve(path.join(dir, 'data'), {
    ...process.env,
    ARC_STUDIO_DIST: dist,
    ARC_STUDIO_ADMIN_TOKEN: key,
    DATABASE_URL: '',
  });
  const plan = [...solutions.push[0].split(','), 'RESET'].join(',');
  const env = { BASE_URL: server.url, KEYS: key, GAME: versionedGameId(games.push), PLAN: plan };
  try {
    // Each measurement follows a warm-up on the same connections: the server's code and the
    // client's are compiled hot over the first seconds (measured here: one client's rate climbs
    // for about 4 s, then holds), so the figures are steady state.
    const dee = await benchPerson(server.url, key, 'dee@lab.org', 'designer');
    const issued = await fetch(`${server.url}/api/admin/agent-keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${dee.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bench agent' }),
    });
    if (issued.status !== 201 && issued.status !== 200)
      throw new Error(`POST /api/admin/agent-keys answered ${issued.status}: ${await issued.text()}`);
    const agentKey = ((await issued.json()) as { key: string }).key;
    for (const n of [1, 16]) {
      const clientsName = `agents.rest.push.${n === 1 ? 'one_client' : `${n}_clients`}`;
      // Both keys in turns on the same clients; the measured time is shared, so it is doubled.
      const [value, keyed] = await clients({
        ...env,
        KEYS: `${key},${agentKey}`,
        WARM_UP: String(WARM_UP_S),
        SECONDS: String(2 * SECONDS),
        CLIENTS: String(n),
      });
      yield { name: `${clientsName}.actions_per_s`, value, unit: 'actions/s' };
      yield { name: `${clientsName}.designers_agent_key.actions_per_s`, value: keyed, unit: 'actions/s' };
      yield {
        name: `${clientsName}.designers_agent_key.ratio`,
        value: keyed / value,
        unit: 'x (to the researcher token)',
      };
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  // The same client against a bare server answering the same size as an action's (one 64x64
  // frame and the fields around it).
  const bare = await bareServer(8_800);
  try {
    const [value] = await clients({
      ...env,
      BASE_URL: bare.url,
      WARM_UP: String(WARM_UP_S),
      SECONDS: String(SECONDS),
      CLIENTS: '1',
      BARE: '1',
    });
    yield { name: 'agents.rest.loopback_ceiling.one_client.requests_per_s', value, unit: 'requests/s' };
  } finally {
    await bare.stop();
  }
}
