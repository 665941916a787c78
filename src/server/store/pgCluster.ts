/**
 * A throwaway PostgreSQL cluster for tests and benchmarks, from the Debian packages
 * (`postgresql`, binaries in /usr/lib/postgresql/<major>/bin). Started on a free loopback port
 * in a temporary folder and removed on stop. PostgreSQL refuses to run as root, so as root the
 * cluster runs as the `postgres` user.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PgCluster {
  readonly url: string;
  stop(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => existsSync(path.join(root, d, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!majors.length) throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb). Install it with "apt-get install postgresql", or set TEST_DATABASE_URL to a server you can create schemas on.');
  return path.join(root, majors[0], 'bin');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-pg-'));
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], { encoding: 'utf8' }) : spawnSync(path.join(bin, cmd), args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status ?? r.signal}): ${(r.stderr || r.stdout || String(r.error ?? '')).trim().slice(0, 2000)}`);
  };
  try {
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
    }
    const data = path.join(dir, 'data');
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    const port = await freePort();
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '30', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`, 'start']);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      stop() {
        try { run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']); } finally { rmSync(dir, { recursive: true, force: true }); }
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
