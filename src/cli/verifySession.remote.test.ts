/**
 * `arc-studio games verify-session` of a session played on a remote ARC-AGI-3 server (the official
 * toolkit's REST server, vendored in ../shared/vendor/arc-agi-3, on loopback): its run is played
 * again on the server it recorded, every step matching; a server that cannot be reached is named,
 * with what to do, and the check fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RemoteArc3Source } from '../server/arc3/remote';
import { freePort } from '../server/store/pgCluster';
import { runCli } from './testing';
import { VENDOR, playRun, withPlayingApi } from './arc3Testing';

const SERVE = String.raw`
import logging, sys
logging.disable(logging.CRITICAL)
from arc_agi import Arcade, OperationMode
Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=sys.argv[1]).listen_and_serve(host="127.0.0.1", port=int(sys.argv[2]))
`;
const LS20 = 'ls20-9607627b';

const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-verify-remote-'));
const dataDir = path.join(dir, 'data');
let toolkit: ChildProcess | undefined;
let baseUrl = '';
let sessionId = '';

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  let out = '';
  toolkit = spawn('python3', ['-c', SERVE, path.join(VENDOR, 'environment_files'), String(port)], {
    cwd: dir,
    env: { ...process.env, PYTHONPATH: path.join(VENDOR, 'python'), PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  toolkit.stdout!.on('data', (t: Buffer) => (out += t.toString()));
  toolkit.stderr!.on('data', (t: Buffer) => (out += t.toString()));
  await vi.waitFor(
    async () => {
      if (toolkit!.exitCode !== null) throw new Error(`the toolkit server stopped: ${out}`);
      const up = await fetch(`${baseUrl}/api/healthcheck`).then(
        (r) => r.ok,
        () => false,
      );
      if (!up) throw new Error(`the toolkit server does not answer yet: ${out}`);
    },
    { timeout: 180_000, interval: 100 },
  );

  // A participant plays ls20 through the routes of a server whose games are the toolkit server's.
  const games = {
    dirs: [],
    servers: [baseUrl],
    remote: (url: string, log: (line: string) => void) => new RemoteArc3Source({ baseUrl: url, log }),
  };
  const study = {
    title: 'Remote',
    consent: 'Yes.',
    completion: { code: 'R' },
    items: [{ kind: 'game', id: 'keys', game: LS20 }],
  };
  await withPlayingApi(dataDir, games, { id: 'remote', definition: study }, async ({ post }) => {
    sessionId = (await playRun(post, 'remote', 'keys', {}, 'ACTION3,ACTION3,ACTION1,ACTION4,RESET,ACTION2')).sessionId;
  });
}, 300_000);

afterAll(async () => {
  if (toolkit && toolkit.exitCode === null) {
    const exited = new Promise((r) => toolkit!.once('exit', r));
    toolkit.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('games verify-session of a remote source', () => {
  it('plays the run again on the server it recorded, with no engine folders needed, every step matching', async () => {
    const r = await runCli(['games', 'verify-session', sessionId, '--data-dir', dataDir], {
      DATABASE_URL: '',
      ARC_STUDIO_ARC3_GAMES: '',
    });
    expect(r.err).toBe('');
    expect(r.out).toMatch(new RegExp(`^keys ${LS20} run \\S+ \\(seed 0, 7 steps\\): every step matches$`, 'm'));
    expect(r.code).toBe(0);
    const json = await runCli(['games', 'verify-session', sessionId, '--data-dir', dataDir, '--json'], {
      DATABASE_URL: '',
      ARC_STUDIO_ARC3_GAMES: '',
    });
    expect(JSON.parse(json.out)).toMatchObject({ ok: true, remoteServers: [baseUrl] });
  });

  it('names a server it cannot reach, with what to do, and fails', async () => {
    const elsewhere = `http://127.0.0.1:${await freePort()}`;
    const r = await runCli(['games', 'verify-session', sessionId, '--data-dir', dataDir, '--arc3-server', elsewhere], {
      DATABASE_URL: '',
      ARC_STUDIO_ARC3_GAMES: '',
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain(`cannot reach the ARC-AGI-3 server at ${elsewhere} (ECONNREFUSED)`);
  });
});
