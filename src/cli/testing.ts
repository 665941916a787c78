/**
 * Test helpers: `arc-studio` run in the test's own process through `main(argv)`, with what it
 * prints captured, and the real binary for each command's one smoke test (a child process costs
 * Node, tsx and every import again: seconds on a busy machine).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { main } from './main';
import { arcStudioArgs } from '../server/testing/command';

export interface CliResult {
  /** The exit code. */
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** Environment changes for one run: a value sets the variable, `undefined` removes it. */
export type EnvChanges = Readonly<Record<string, string | undefined>>;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs `arc-studio <argv>` in this process and returns its exit code and what it printed. Runs
 * one at a time (the console and the environment are the process's), in the project folder as
 * the binary would be run.
 * WARNING: a command that starts something long-lived (`serve`) is not for this; spawn it.
 */
export function runCli(argv: readonly string[], env: EnvChanges = {}): Promise<CliResult> {
  const run = queue.then(() => inProcess(argv, env));
  queue = run.catch(() => {});
  return run;
}

async function inProcess(argv: readonly string[], env: EnvChanges): Promise<CliResult> {
  let out = '';
  let err = '';
  const saved = {
    log: console.log,
    info: console.info,
    warn: console.warn,
    error: console.error,
    stdout: process.stdout.write,
    stderr: process.stderr.write,
  };
  const savedEnv = Object.entries(env).map(([k]) => [k, process.env[k]] as const);
  const setEnv = (entries: readonly (readonly [string, string | undefined])[]) => {
    for (const [k, v] of entries) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  setEnv(Object.entries(env));
  console.log = console.info = (...a: unknown[]) => {
    out += `${format(...a)}\n`;
  };
  console.warn = console.error = (...a: unknown[]) => {
    err += `${format(...a)}\n`;
  };
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    err += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await main([...argv]);
    return { code, out, err };
  } finally {
    Object.assign(console, { log: saved.log, info: saved.info, warn: saved.warn, error: saved.error });
    process.stdout.write = saved.stdout;
    process.stderr.write = saved.stderr;
    setEnv(savedEnv);
  }
}

/** Runs the real `bin/arc-studio.mjs <argv>` in a child process, from the project folder. */
export function spawnCli(argv: readonly string[], env: EnvChanges = {}): CliResult {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete childEnv[k];
    else childEnv[k] = v;
  }
  const r = spawnSync(process.execPath, arcStudioArgs(argv), {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 180_000,
    env: childEnv,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
