/**
 * Test helper: the real `arc-studio serve` as a child process, for tests about the process
 * itself (killed, or its database restarted under it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshPostgresDatabase, seedDataDir } from '../store/testing';
import { arcStudioArgs } from './command';

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

/** A database for a spawned `serve`: PostgreSQL's URL, or none for PGlite in its data folder. */
export interface ServeDatabase {
  readonly url: string | undefined;
  drop(): Promise<void>;
}

/**
 * The two databases a test runs its spawned servers on, for `describe.each`: PGlite (in the
 * server's data folder), and a new database on the test PostgreSQL named from `prefix`.
 */
export function serveDatabases(
  prefix: string,
): readonly { readonly name: 'pglite' | 'postgres'; database(): Promise<ServeDatabase> }[] {
  return [
    { name: 'pglite', database: async () => ({ url: undefined, drop: async () => {} }) },
    { name: 'postgres', database: () => freshPostgresDatabase(prefix) },
  ];
}

/** A throwaway folder for servers under test: `dist` holds a stand-in app, `dataDir` is not made yet. */
export interface ServeFolders {
  readonly tmp: string;
  /** A folder with an `index.html`, for `ARC_STUDIO_DIST`: the tests need no built app. */
  readonly dist: string;
  readonly dataDir: string;
  /** Deletes the folder and everything in it. */
  remove(): void;
}

/** Makes a throwaway folder (its name starts with `prefix`) with a stand-in app in it. */
export function serveFolders(prefix: string): ServeFolders {
  const tmp = mkdtempSync(path.join(os.tmpdir(), prefix));
  const dist = path.join(tmp, 'dist');
  mkdirSync(dist);
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>test</title>');
  return { tmp, dist, dataDir: path.join(tmp, 'data'), remove: () => rmSync(tmp, { recursive: true, force: true }) };
}

/**
 * Starts `serve` and resolves once it says it is running (rejects with its output if it exits first).
 * On PGlite, a data folder without a database gets a copy of the migrated template first: a new
 * database costs its first start some 6 s of CPU, which a test of a server's behaviour need not pay.
 */
export async function startServe(o: ServeOptions): Promise<ServeProcess> {
  if (!o.databaseUrl && !existsSync(path.join(o.dataDir, 'db'))) seedDataDir(o.dataDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...o.env,
    ARC_STUDIO_DIST: o.dist,
    ARC_STUDIO_ADMIN_TOKEN: o.adminToken,
  };
  delete env.DATABASE_URL;
  if (o.databaseUrl) env.DATABASE_URL = o.databaseUrl;
  const proc = spawn(
    process.execPath,
    arcStudioArgs([
      'serve',
      '--port',
      String(o.port),
      '--host',
      '127.0.0.1',
      '--data-dir',
      o.dataDir,
      ...(o.args ?? []),
    ]),
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let ready: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const onData = (d: Buffer) => {
    out += d;
    if (out.includes('ARC Studio is running')) ready();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code, signal) =>
      reject(new Error(`serve exited (${code ?? signal}) before it was ready:\n${out}`)),
    ),
  );
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
