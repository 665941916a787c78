/**
 * A throwaway PostgreSQL cluster for tests and benchmarks, from the Debian packages
 * (`postgresql`, binaries in /usr/lib/postgresql/<major>/bin). Started on a free loopback port
 * in a temporary folder and removed on stop. PostgreSQL refuses to run as root, so as root the
 * cluster runs as the `postgres` user.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PgCluster {
  readonly url: string;
  /**
   * Stops the server and keeps its data: `immediate` as if it crashed (every connection cut,
   * recovery on the next start), `fast` an orderly shutdown that ends every connection.
   */
  halt(mode: 'immediate' | 'fast'): Promise<void>;
  /**
   * Ends the postmaster with SIGKILL, as an out-of-memory killer or a host fault would, and
   * resolves once it is gone; its backends end on their own when they notice. `resume()` starts
   * it again, with crash recovery.
   */
  killPostmaster(): Promise<void>;
  /** Starts a halted server again, on the same port and data. */
  resume(): Promise<void>;
  /** Stops the server and removes its folder. */
  stop(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((d) => existsSync(path.join(root, d, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!majors.length)
    throw new Error(
      'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb). Install it with "apt-get install postgresql", or set TEST_DATABASE_URL to a server you can create schemas on.',
    );
  return path.join(root, majors[0], 'bin');
}

const listenOn = (port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => {
      const bound = (s.address() as { port: number }).port;
      s.close(() => resolve(bound));
    });
  });

/**
 * A free loopback port: one the system picks, or with `ARC_STUDIO_TEST_PORTS=4600-4699` one of
 * that range (for machines where several people run tests and each keeps to a range).
 */
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.ARC_STUDIO_TEST_PORTS ?? '');
  if (!range) return listenOn(0);
  const [from, to] = [Number(range[1]), Number(range[2])];
  // From a random start, so that test files running at once rarely try the same port first.
  const start = Math.floor(Math.random() * (to - from + 1));
  for (let i = 0; i <= to - from; i++) {
    const port = from + ((start + i) % (to - from + 1));
    if (
      await listenOn(port).then(
        () => true,
        () => false,
      )
    )
      return port;
  }
  throw new Error(`No free port in ARC_STUDIO_TEST_PORTS=${range[0]}: stop what holds them or widen the range.`);
}

export interface PgClusterOptions {
  /**
   * Commits survive a crash of PostgreSQL (`halt('immediate')`): `synchronous_commit` stays on.
   * Off by default for speed, and then a crash loses the last commits it had acknowledged.
   */
  readonly crashSafe?: boolean;
  /**
   * An empty folder for the data (e.g. a small filesystem mounted there), instead of one in the
   * cluster's temporary folder; left in place on stop, emptied or not.
   */
  readonly dataDir?: string;
  /** An empty or absent folder for the write-ahead log, on another disk than `dataDir` (initdb's `--waldir`). */
  readonly walDir?: string;
}

export async function startPgCluster(opts: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-pg-'));
  const asRoot = process.getuid?.() === 0;
  const command = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args];
  const failed = (cmd: string, status: string, out: string) =>
    new Error(`${cmd} failed (${status}): ${out.trim().slice(0, 2000)}`);
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(...command(cmd, args), { encoding: 'utf8' });
    if (r.status !== 0) throw failed(cmd, String(r.status ?? r.signal), r.stderr || r.stdout || String(r.error ?? ''));
  };
  // Without blocking this thread: a test's simulated clients go on while the server restarts.
  const runAsync = (cmd: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      execFile(...command(cmd, args), { encoding: 'utf8' }, (e, stdout, stderr) =>
        e ? reject(failed(cmd, String(e.code ?? e.signal), stderr || stdout || e.message)) : resolve(),
      );
    });
  try {
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      for (const d of [dir, opts.dataDir, opts.walDir]) if (d && existsSync(d)) chownSync(d, uid, gid);
    }
    const data = opts.dataDir ?? path.join(dir, 'data');
    run('initdb', [
      '-D',
      data,
      ...(opts.walDir ? ['--waldir', opts.walDir] : []),
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
      '--no-instructions',
    ]);
    const port = await freePort();
    const start = [
      '-D',
      data,
      '-l',
      path.join(dir, 'log'),
      '-w',
      '-t',
      '30',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c full_page_writes=off${opts.crashSafe ? '' : ' -c synchronous_commit=off'}`,
      'start',
    ];
    run('pg_ctl', start);
    let running = true;
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      async halt(mode) {
        await runAsync('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
        running = false;
      },
      async killPostmaster() {
        const pid = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        process.kill(pid, 'SIGKILL');
        running = false;
        // Gone once signal 0 finds no such process (its parent, pg_ctl, has long exited, so it is not left a zombie).
        await new Promise<void>((resolve) => {
          const gone = () => {
            try {
              process.kill(pid, 0);
              setTimeout(gone, 20);
            } catch {
              resolve();
            }
          };
          gone();
        });
      },
      async resume() {
        // After a killed postmaster, its last backends may still hold the shared memory for a moment:
        // PostgreSQL then refuses to start ("pre-existing shared memory block is still in use").
        for (let attempt = 0; ; attempt++) {
          try {
            await runAsync('pg_ctl', start);
            break;
          } catch (e) {
            if (attempt >= 50) throw e;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        running = true;
      },
      stop() {
        try {
          if (running) run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
