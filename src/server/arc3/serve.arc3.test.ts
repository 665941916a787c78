/**
 * `serve` with ARC-AGI-3 games: a study file's `gameSources` mounts its folder (relative to the
 * file) at start, the start message names the Python and arcengine found, a short id in a study
 * is refused with the versions to choose from, and a participant of the study file plays.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../serve';
import { seedDataDir } from '../store/testing';

const ROOT = path.resolve(__dirname, '../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-arc3-serve-'));
const ADMIN = 'researcher-token-for-arc3-serve-tests-0123';
const dist = path.join(dir, 'dist');
mkdirSync(dist, { recursive: true });
writeFileSync(path.join(dist, 'index.html'), '<!doctype html><html><body></body></html>');
// A study folder with its own games folder beside the study file.
const studies = path.join(dir, 'studies');
mkdirSync(studies);
cpSync(path.join(ROOT, 'e2e/fixtures/arc3-games'), path.join(studies, 'games'), { recursive: true });
writeFileSync(
  path.join(studies, 'gatekeeper.json'),
  JSON.stringify({
    title: 'Gatekeeper',
    consent: 'Consent.',
    instructions: 'Play.',
    completion: { code: 'GATE' },
    gameSources: { arcengine: ['games'] },
    items: [{ kind: 'game', id: 'gate', game: 'tg01-5e1f0a27' }],
  }),
);

const lines: string[] = [];
let server: { url: string; close: () => Promise<void> };
const previous = {
  dist: process.env.ARC_STUDIO_DIST,
  token: process.env.ARC_STUDIO_ADMIN_TOKEN,
  py: process.env.ARC_STUDIO_PYTHONPATH,
};

beforeAll(async () => {
  process.env.ARC_STUDIO_DIST = dist;
  process.env.ARC_STUDIO_ADMIN_TOKEN = ADMIN;
  process.env.ARC_STUDIO_PYTHONPATH = path.resolve(ROOT, '../shared/vendor/arc-agi-3/python');
  seedDataDir(path.join(dir, 'data'));
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    dataDir: path.join(dir, 'data'),
    tasks: [],
    studiesDir: studies,
    databaseUrl: '',
    log: (l) => lines.push(l),
  });
});

afterAll(async () => {
  await server?.close();
  for (const [k, v] of [
    ['ARC_STUDIO_DIST', previous.dist],
    ['ARC_STUDIO_ADMIN_TOKEN', previous.token],
    ['ARC_STUDIO_PYTHONPATH', previous.py],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(dir, { recursive: true, force: true });
});

const call = async (method: string, url: string, token: string | null, body?: unknown) => {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

describe("serve with a study file's gameSources", () => {
  it('mounts the folder beside the study file and says which Python and arcengine run it', async () => {
    expect(lines.join('\n')).toMatch(
      new RegExp(
        `ARC-AGI-3 games: ${path.join(studies, 'games').replace(/[/\\]/g, '.')} with arcengine 0\\.9\\.3 on Python 3\\.`,
      ),
    );
    expect(lines.join('\n')).toMatch(/1 ARC-AGI-3 game: tg01-5e1f0a27/);
    const list = await call('GET', '/api/admin/arc3/games', ADMIN);
    expect(list.json.games).toEqual([
      expect.objectContaining({
        id: 'tg01-5e1f0a27',
        title: 'TG01 Gatekeeper',
        levels: 2,
        source: 'arcengine',
        baselineActions: [10, 10],
      }),
    ]);
  });

  it('lets a participant of the study play the game, and shows the game in the session view', async () => {
    const s = await call('POST', '/api/studies/gatekeeper/sessions', null, { params: {} });
    expect(s.status).toBe(201);
    const { sessionId, token } = s.json as { sessionId: string; token: string };
    const view = await call('GET', `/api/sessions/${sessionId}`, token);
    expect((view.json.items as unknown[])[0]).toMatchObject({
      kind: 'game',
      game: 'tg01-5e1f0a27',
      server: { title: 'TG01 Gatekeeper', levels: 2, fps: expect.any(Number) },
    });
    const run = await call('POST', `/api/sessions/${sessionId}/runs`, token, { item: 'gate' });
    expect(run.status).toBe(200);
    const step = await call('POST', `/api/sessions/${sessionId}/runs/${run.json.run as string}/actions`, token, {
      step: 1,
      action: 'ACTION2',
    });
    expect(step.json).toMatchObject({ step: 1, action: 'ACTION2', state: 'NOT_FINISHED' });
  });

  it('refuses a study that names a game by its short id, with the versions to choose from', async () => {
    const r = await call('POST', '/api/admin/studies/short', ADMIN, {
      definition: {
        title: 'Short',
        consent: 'c',
        completion: { code: 'X' },
        items: [{ kind: 'game', id: 'g', game: 'tg01' }],
      },
    });
    expect(r.status).toBe(422);
    expect(String(r.json.message)).toContain('"tg01" names no version of the game; name one in full: tg01-5e1f0a27');
  });
});
