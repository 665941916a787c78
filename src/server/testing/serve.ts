/**
 * Test helper: the real `arc-studio serve` as a child process, for tests about the process
 * itself (killed, or its database restarted under it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

export interface ServeProcess {
  readonly proc: ChildProcess;
  readonly url: string;
  /** Everything it printed so far, standard output and error together. */
  output(): string;
}

export interface ServeOptions {
  readonly dataDir: string;
  /** A folder holding the app's `index.html` (`ARC_STUDIO_DIST`). */
  readonly dist: string;
  readonly port: number;
  readonly adminToken: string;
  /** PostgreSQL; PGlite in `dataDir` when absent. */
  readonly databaseUrl?: string;
  /** More variables for the process. */
  readonly env?: NodeJS.ProcessEnv;
  /** More arguments for `serve`, e.g. `['--arc3-games', dir]`. */
  readonly args?: readonly string[];
}

/** Starts `serve` and resolves once it says it is running (rejects with its output if it exits first). */
export async function startServe(o: ServeOptions): Promise<ServeProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...o.env, ARC_STUDIO_DIST: o.dist, ARC_STUDIO_ADMIN_TOKEN: o.adminToken };
  delete env.DATABASE_URL;
  if (o.databaseUrl) env.DATABASE_URL = o.databaseUrl;
  const proc = spawn(process.execPath, ['bin/arc-studio.mjs', 'serve', '--port', String(o.port), '--host', '127.0.0.1', '--data-dir', o.dataDir, ...(o.args ?? [])], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let ready: () => void = () => {};
  const started = new Promise<void>((resolve) => { ready = resolve; });
  const onData = (d: Buffer) => {
    out += d;
    if (out.includes('ARC Studio is running')) ready();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<never>((_, reject) => proc.once('exit', (code, signal) => reject(new Error(`serve exited (${code ?? signal}) before it was ready:\n${out}`))));
  exited.catch(() => {});
  await Promise.race([started, exited]);
  return { proc, url: `http://127.0.0.1:${o.port}`, output: () => out };
}

/** Ends the process with SIGKILL and resolves when it has exited. */
export function kill9(s: ServeProcess): Promise<void> {
  return new Promise((resolve) => {
    if (s.proc.exitCode !== null || s.proc.signalCode !== null) return resolve();
    s.proc.once('exit', () => resolve());
    s.proc.kill('SIGKILL');
  });
}
