/**
 * The compiled server (`npm run build` -> `dist-server/`) is what runs unless the sources are
 * asked for: `serve` answers, an export streams from its export thread, and `games validate`
 * runs on validation threads, with tsx out of reach (a loader hook refuses any import of tsx or
 * of a TypeScript source in the process and its threads). A build that is missing, or older than
 * a source by its content, is refused with the command that makes it; `--sources` runs the
 * sources, and says what to install when tsx is missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../server/host/root';
import { freePort } from '../server/store/pgCluster';
import { seedDataDir } from '../server/store/testing';
import { kill9, serveFolders, startServe } from '../server/testing/serve';

const ADMIN = 'compiled-researcher-token-0123456789';
const PYTHONPATH = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
let tmp: string;
let compiled: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-compiled-'));
  // Inside the package (.tmp/), as dist-server/ is: the compiled code finds data/ from there.
  compiled = path.join(ROOT, '.tmp', `dist-server-test-${process.pid}`);
  const built = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const p = spawn(process.execPath, ['scripts/build-server.mjs', '--outdir', compiled], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('exit', (code) => resolve({ code, out }));
  });
  expect(built.out).toContain('server compiled into');
  expect(built.code).toBe(0);
  const noTsx = path.join(tmp, 'no-tsx.mjs');
  writeFileSync(
    noTsx,
    `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(specifier, context, next) {
  if (specifier === 'tsx' || specifier.startsWith('tsx/') || specifier.endsWith('.ts')) throw new Error('tsx and TypeScript sources are not available here: ' + specifier);
  return next(specifier, context);
}\`));
`,
  );
  env = { ARC_STUDIO_SERVER_DIST: compiled, ARC_STUDIO_SOURCES: '', NODE_OPTIONS: `--import=${noTsx}` };
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  rmSync(compiled, { recursive: true, force: true });
});

describe('the compiled server', () => {
  it('serves the API and streams an export from its export thread, without tsx', async () => {
    const { dist, dataDir, remove } = serveFolders('arc-compiled-serve-');
    seedDataDir(dataDir);
    const server = await startServe({ dataDir, dist, port: await freePort(), adminToken: ADMIN, env });
    try {
      const health = await fetch(`${server.url}/api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true });
      const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
      const made = await fetch(`${server.url}/api/admin/studies/sample/exports`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ format: 'baselines-json' }),
      });
      expect(made.status).toBe(201);
      const { url } = (await made.json()) as { url: string };
      const file = await fetch(server.url + url);
      expect(file.status).toBe(200);
      expect(JSON.parse(await file.text())).toMatchObject({
        format: 'arc-studio.baselines',
        games: { push: { participants: 0 } },
      });
      expect(server.output()).not.toMatch(/not available here/);
    } finally {
      await kill9(server);
      remove();
    }
  });

  it('runs a command on its validation threads, without tsx', () => {
    const r = spawnSync(
      process.execPath,
      [
        'bin/arc-studio.mjs',
        'games',
        'validate',
        'glow',
        '--level',
        '3',
        '--steps',
        '2000',
        '--threads',
        '2',
        '--json',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, ...env, ARC_STUDIO_PYTHONPATH: PYTHONPATH, ARC_STUDIO_ARC3_GAMES: '' },
        encoding: 'utf8',
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ game: 'glow', ok: true, total_steps: 6_000 });
  });

  /** A copy of the build that says it was made from another content of `file`. */
  const staleCopy = (name: string, file: string): string => {
    const stale = path.join(tmp, name);
    cpSync(compiled, stale, { recursive: true });
    const build = JSON.parse(readFileSync(path.join(stale, 'build.json'), 'utf8')) as {
      hashes: Record<string, string>;
    };
    expect(build.hashes[file]).toMatch(/^[0-9a-f]{16}$/);
    writeFileSync(
      path.join(stale, 'build.json'),
      JSON.stringify({ hashes: { ...build.hashes, [file]: '0'.repeat(16) } }),
    );
    return stale;
  };

  it('runs in worker threads started from their entries in the sources, and is refused there once stale', () => {
    // A validation thread started from its entry in the sources, asked to validate a game that
    // does not exist: a thread running its code answers with an error message; one that cannot
    // load fails. TypeScript is out of reach, so an answer means the compiled thread ran.
    const script = `
      import { Worker } from 'node:worker_threads';
      const thread = new Worker(${JSON.stringify(path.join(ROOT, 'src/cli/validateWorker.mjs'))});
      thread.on('error', (e) => { console.log(JSON.stringify({ failed: e.message })); process.exit(0); });
      thread.on('message', (m) => { console.log(JSON.stringify({ answered: m.type })); process.exit(0); });
      thread.postMessage({ id: 1, gameId: 'no-such-game', task: {} });
    `;
    const file = path.join(tmp, 'thread.mjs');
    writeFileSync(file, script);
    const run = (dist: string) => {
      const r = spawnSync(process.execPath, [file], {
        cwd: ROOT,
        env: { ...process.env, ...env, ARC_STUDIO_SERVER_DIST: dist },
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      return JSON.parse(r.stdout.trim()) as { answered?: string; failed?: string };
    };
    expect(run(compiled)).toEqual({ answered: 'error' });
    const failed = run(staleCopy('stale-thread', 'src/cli/validateWorker.ts')).failed;
    expect(failed).toContain('src/cli/validateWorker.ts changed after the server in');
    expect(failed).toContain('Run `npm run build`');
  });

  it('is refused, with what to do, when it is missing', () => {
    const r = spawnSync(process.execPath, ['bin/arc-studio.mjs', 'help'], {
      cwd: ROOT,
      env: { ...process.env, ...env, ARC_STUDIO_SERVER_DIST: path.join(tmp, 'nothing') },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('there is no compiled server in');
    expect(r.stderr).toContain('Run `npm run build`');
    expect(r.stderr).toContain('arc-studio --sources');
  });

  it('is refused, with what to do, when a source it was made from changed since, whatever the file times', () => {
    const r = spawnSync(process.execPath, ['bin/arc-studio.mjs', 'help'], {
      cwd: ROOT,
      env: { ...process.env, ...env, ARC_STUDIO_SERVER_DIST: staleCopy('stale-bin', 'src/cli/main.ts') },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('src/cli/main.ts changed after the server in');
    expect(r.stderr).toContain('Run `npm run build`');
  });

  it('gives way to the sources on --sources, which say what to install when tsx is missing', () => {
    const r = spawnSync(process.execPath, ['bin/arc-studio.mjs', '--sources', 'help'], {
      cwd: ROOT,
      env: { ...process.env, ...env, ARC_STUDIO_SERVER_DIST: path.join(tmp, 'nothing') },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('needs tsx, a development dependency that is not installed');
    expect(r.stderr).toContain('Run `npm install`');
  });
});

describe('the sources, on --sources', () => {
  it('run without any compiled server, the threads they start too', () => {
    const r = spawnSync(
      process.execPath,
      [
        'bin/arc-studio.mjs',
        '--sources',
        'games',
        'validate',
        'glow',
        '--level',
        '3',
        '--steps',
        '200',
        '--threads',
        '1',
        '--json',
      ],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          ARC_STUDIO_SERVER_DIST: path.join(tmp, 'nothing'),
          ARC_STUDIO_PYTHONPATH: PYTHONPATH,
          ARC_STUDIO_ARC3_GAMES: '',
        },
        encoding: 'utf8',
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ game: 'glow', ok: true });
  });
});
