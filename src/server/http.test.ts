/**
 * HTTP basics of the real `serve`: security headers on every response, the API's JSON 404, bad
 * query and path values answered 400 (never 500), and a process that survives an unhandled
 * promise rejection.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from './serve';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS, storableText } from './http';
import { bundledTaskDirs } from '../cli/serve';
import { seedDataDir } from './store/testing';
import { arcStudioArgs } from './testing/command';
import { precompressFolder } from '../../scripts/precompress';

const ROOT = path.resolve(__dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-http-'));
const ADMIN = 'researcher-token-for-http-tests-0123456789';
const INDEX =
  '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/app.js"></script></body></html>';

// A stand-in build of the app: the server serves whatever index.html and assets it is given.
const dist = path.join(dir, 'dist');
mkdirSync(path.join(dist, 'assets'), { recursive: true });
writeFileSync(path.join(dist, 'index.html'), INDEX);
// Big enough for the build's compressed copies (scripts/precompress.ts), made in beforeAll.
const APP_JS = `export const text = '${'ARC '.repeat(2000)}';\n`;
writeFileSync(path.join(dist, 'assets', 'app.js'), APP_JS);
writeFileSync(
  path.join(dist, 'favicon.svg'),
  `<svg xmlns="http://www.w3.org/2000/svg"><!-- ${'.'.repeat(2000)} --></svg>`,
);

let server: { url: string; close: () => Promise<void> };
const previous = { dist: process.env.ARC_STUDIO_DIST, token: process.env.ARC_STUDIO_ADMIN_TOKEN };

beforeAll(async () => {
  process.env.ARC_STUDIO_DIST = dist;
  process.env.ARC_STUDIO_ADMIN_TOKEN = ADMIN;
  seedDataDir(path.join(dir, 'data'));
  await precompressFolder(dist);
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    dataDir: path.join(dir, 'data'),
    tasks: bundledTaskDirs('tasks'),
    practiceTasks: bundledTaskDirs('practice'),
    databaseUrl: '',
    log: () => {},
  });
});

afterAll(async () => {
  await server?.close();
  process.env.ARC_STUDIO_DIST = previous.dist;
  process.env.ARC_STUDIO_ADMIN_TOKEN = previous.token;
  if (previous.dist === undefined) delete process.env.ARC_STUDIO_DIST;
  if (previous.token === undefined) delete process.env.ARC_STUDIO_ADMIN_TOKEN;
  rmSync(dir, { recursive: true, force: true });
});

const admin = { Authorization: `Bearer ${ADMIN}` };
const get = (url: string, headers: Record<string, string> = {}) => fetch(`${server.url}${url}`, { headers });

describe('security headers', () => {
  it('go with every response: the app, its files, the API, its errors and 404s', async () => {
    const responses = await Promise.all([
      get('/'),
      get('/s/sample'),
      get('/assets/app.js'),
      get('/assets/missing.js'),
      get('/api/health'),
      get('/api/nothing-here'),
      get('/api/admin/studies'),
      get('/api/admin/studies', admin),
      fetch(`${server.url}/api/studies/sample/sessions`, {
        method: 'POST',
        body: 'not json',
        headers: { 'Content-Type': 'application/json' },
      }),
    ]);
    for (const r of responses) {
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        expect(r.headers.get(name), `${name} of ${r.url} (${r.status})`).toBe(value);
    }
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 404, 200, 404, 401, 200, 400]);
  });

  it('keep scripts, styles and framing to this origin', () => {
    const directives = Object.fromEntries(
      CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
    );
    expect(directives).toMatchObject({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'object-src': "'none'",
      'frame-ancestors': "'none'",
      'base-uri': "'self'",
    });
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/);
  });
});

describe('routing', () => {
  it('answers an unknown /api path with a JSON 404, for any method, not with the app page', async () => {
    for (const [method, url] of [
      ['GET', '/api/nothing-here'],
      ['GET', '/api'],
      ['GET', '/api/'],
      ['POST', '/api/studies/x/y/z'],
      ['DELETE', '/api/health/x'],
    ]) {
      const r = await fetch(`${server.url}${url}`, { method });
      expect(r.status, `${method} ${url}`).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await r.json()) as { error: string; message: string };
      expect(body.error).toBe('not_found');
      expect(body.message).toMatch(new RegExp(`^No API route ${method} /api`));
    }
  });

  it('serves the app for client routes and a 404 for a file missing from the build', async () => {
    const page = await get('/studies/sample/sessions/abc');
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(INDEX);
    const missing = await get('/assets/index-old.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await missing.text()).toBe('No file /assets/index-old.js in this build of the app. Reload the page.');
  });
});

describe('caching and compression', () => {
  it('sends a build file as the brotli or gzip copy the browser accepts, and as it is otherwise', async () => {
    for (const [accept, encoding] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip, deflate', 'gzip'],
      ['identity', null],
    ] as const) {
      const r = await get('/assets/app.js', { 'Accept-Encoding': accept });
      expect(r.status, accept).toBe(200);
      expect(r.headers.get('content-encoding'), accept).toBe(encoding);
      expect(r.headers.get('content-type'), accept).toMatch(/^text\/javascript/);
      if (encoding) expect(r.headers.get('vary'), accept).toMatch(/Accept-Encoding/);
      // fetch decodes what it was sent: the copy holds the file itself.
      expect(await r.text(), accept).toBe(APP_JS);
    }
    const compressed = await get('/assets/app.js', { 'Accept-Encoding': 'br' });
    expect(Number(compressed.headers.get('content-length'))).toBeLessThan(APP_JS.length / 10);
  });

  it('caches content-hashed files for good, and never keeps the page or the API stale', async () => {
    const asset = await get('/assets/app.js', { 'Accept-Encoding': 'br' });
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    for (const page of ['/', '/s/sample', '/studies/sample', '/favicon.svg'])
      expect((await get(page)).headers.get('cache-control'), page).toBe('no-cache');
    for (const [url, headers] of [
      ['/api/health', {}],
      ['/api/admin/studies', admin],
      ['/api/admin/studies', {}],
      ['/api/nothing-here', {}],
      ['/assets/missing.js', {}],
    ] as const)
      expect((await get(url, headers)).headers.get('cache-control'), url).toBe('no-store');
  });
});

describe('bad query and path values', () => {
  const badVersions = ['abc', '0', '-1', '1.5', '1e2', '0x1', ' 1', 'Infinity', '99999999999', '1%00', '%FF'];

  it.each(badVersions)('?version=%s answers 400 on the study and results routes', async (v) => {
    for (const route of ['/api/admin/studies/sample', '/api/admin/studies/sample/results']) {
      const r = await get(`${route}?version=${v}`, admin);
      const body = (await r.json()) as { error: string; message: string };
      expect(r.status, `${route}?version=${v}: ${body.message}`).toBe(400);
      expect(body.error).toBe('malformed');
      expect(body.message).toMatch(/version|NUL/);
    }
  });

  it('a version past the last answers 404 naming the versions there are', async () => {
    const r = await get('/api/admin/studies/sample/results?version=7', admin);
    expect(r.status).toBe(404);
    expect(((await r.json()) as { message: string }).message).toBe(
      'Study "sample" has no version 7; its versions are 1 to 1.',
    );
  });

  it.each([['"abc"'], ['0'], ['1.5'], ['-3'], ['"1"'], ['true'], ['[1]'], ['1e400']])(
    'an export asked for version %s answers 4xx, never 500',
    async (v) => {
      const r = await fetch(`${server.url}/api/admin/studies/sample/exports`, {
        method: 'POST',
        headers: { ...admin, 'Content-Type': 'application/json' },
        body: `{"format": "csv", "version": ${v}}`,
      });
      // 1e400 is JSON for Infinity, which JSON.parse reads as a number that is not whole.
      expect(r.status, v).toBeGreaterThanOrEqual(400);
      expect(r.status, v).toBeLessThan(500);
      expect(((await r.json()) as { error: string }).error).toBe('malformed');
    },
  );

  it.each([
    ['/api/admin/studies/%00', 'its path'],
    ['/api/admin/studies/a%00b/results', 'its path'],
    ['/api/admin/sessions/%00/events', 'its path'],
    ['/api/admin/studies/%ED%A0%80', 'its path'],
    ['/api/collections/%E0%A4', 'its path'],
    ['/api/admin/sessions?study=%00', 'the query parameter "study"'],
    ['/api/admin/studies/sample?x%00=1', 'the query parameter "x?"'],
    ['/api/admin/sessions?study=%ff', 'the query parameter "study"'],
    ['/api/admin/sessions?limit=1&study=%E2%82', 'the query parameter "study"'],
    ['/api/admin/sessions?%ff=1', 'the query parameter "%ff"'],
  ])('%s (NUL or not UTF-8) answers 400 naming where', async (url, where) => {
    const r = await get(url, admin);
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({
      error: 'malformed',
      message: `The URL is malformed: ${where} holds a NUL character or bytes that are not UTF-8. Send ids and parameters as plain UTF-8 text.`,
    });
  });

  it('tells storable text from text a database refuses', () => {
    expect(storableText('sample ✓ 𝄞')).toBe(true);
    expect(storableText('a\u0000b')).toBe(false);
    expect(storableText('\uD834')).toBe(false);
    expect(storableText('x\uDD1Ey')).toBe(false);
  });
});

describe('the serve process', () => {
  it('logs an unhandled promise rejection and keeps serving', async () => {
    // A preload that makes the real server's process reject a promise nobody handles, on a signal.
    const preload = path.join(dir, 'reject-on-signal.mjs');
    writeFileSync(
      preload,
      "process.on('SIGUSR2', () => { Promise.reject(new Error('a rejection nobody handled')); });\n",
    );
    const env: NodeJS.ProcessEnv = { ...process.env, ARC_STUDIO_DIST: dist, ARC_STUDIO_ADMIN_TOKEN: ADMIN };
    delete env.DATABASE_URL;
    seedDataDir(path.join(dir, 'data-rejection'));
    const proc = spawn(
      process.execPath,
      [
        '--import',
        preload,
        ...arcStudioArgs(['serve']),
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--data-dir',
        path.join(dir, 'data-rejection'),
        '--no-samples',
      ],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    try {
      // Polled until it holds or the server exits; a start takes minutes on a heavily loaded machine.
      const until = (check: () => boolean, what: string) =>
        expect
          .poll(
            () => {
              if (proc.exitCode !== null) throw new Error(`the server exited; stdout: ${out}; stderr: ${err}`);
              return check();
            },
            { timeout: 180_000, message: `no ${what} from the server` },
          )
          .toBe(true);
      await until(() => /running at (http:\/\/\S+)/.test(out), 'start');
      const url = /running at (http:\/\/\S+)/.exec(out)![1];
      expect((await fetch(`${url}/api/health`)).status).toBe(200);
      proc.kill('SIGUSR2');
      await until(() => err.includes('a rejection nobody handled'), 'log of the rejection');
      expect(err).toContain(
        'Unhandled promise rejection (the server keeps running; please report it): Error: a rejection nobody handled',
      );
      expect(proc.exitCode).toBeNull();
      expect((await fetch(`${url}/api/health`)).status).toBe(200);
    } finally {
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 240_000);
});
