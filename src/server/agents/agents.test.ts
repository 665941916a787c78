/**
 * The ARC-AGI-3 protocol served by the real `serve`: the official toolkit in ONLINE mode lists
 * the games, plays a built-in game and an arcengine game (RESET, moves, a click, a level win, a
 * full reset) and closes a scorecard whose figures are ARC Studio's scorer's on the toolkit's own
 * recordings; keys, short ids, bad coordinates and garbage bodies are refused with a message.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { versionedGameId } from '../../core/game';
import { readRecording, recordingAgentRuns } from '../../core/formats/recording';
import { parseBaselines, scoreRuns } from '../../core/scoring';
import { games, solutions } from '../../games';
import { startServer } from '../serve';
import { seedDataDir } from '../store/testing';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-agents-'));
const ADMIN = 'researcher-token-for-agent-tests-0123456789';
const dist = path.join(dir, 'dist');
mkdirSync(dist, { recursive: true });
writeFileSync(path.join(dist, 'index.html'), '<!doctype html><html><body></body></html>');
const PUSH = versionedGameId(games.push);
const VC33 = 'vc33-5430563c';

let server: { url: string; close: () => Promise<void> };
const previous = {
  dist: process.env.ARC_STUDIO_DIST,
  token: process.env.ARC_STUDIO_ADMIN_TOKEN,
  py: process.env.ARC_STUDIO_PYTHONPATH,
};

beforeAll(async () => {
  process.env.ARC_STUDIO_DIST = dist;
  process.env.ARC_STUDIO_ADMIN_TOKEN = ADMIN;
  process.env.ARC_STUDIO_PYTHONPATH = path.join(VENDOR, 'python');
  seedDataDir(path.join(dir, 'data'));
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    dataDir: path.join(dir, 'data'),
    tasks: [],
    databaseUrl: '',
    arc3Games: [path.join(VENDOR, 'environment_files')],
    log: () => {},
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

const admin = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' };
const post = (url: string, body: unknown, key: string | null = ADMIN) =>
  fetch(`${server.url}${url}`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...(key ? { 'X-API-Key': key } : {}) },
  });

async function issueKey(name: string): Promise<{ id: string; key: string }> {
  const r = await fetch(`${server.url}/api/admin/agent-keys`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name }),
  });
  expect(r.status).toBe(201);
  return (await r.json()) as { id: string; key: string };
}

interface ToolkitStep {
  game: string;
  label: string;
  state: string;
  levels_completed: number;
  win_levels: number;
  full_reset: boolean;
  available_actions: number[];
  frames: number;
  shape: number[] | null;
  guid: string;
}
interface EnvScore {
  id: string;
  score: number;
  actions: number;
  levels_completed: number;
  runs: { score: number; level_scores: number[]; level_actions: number[]; message?: string }[];
}

describe('the official toolkit in ONLINE mode', () => {
  it('lists the games, plays a built-in and an arcengine game, and closes a scorecard scored by ARC Studio', async () => {
    const { key } = await issueKey('toolkit test agent');
    const recordings = path.join(dir, 'recordings');
    const { stdout } = await promisify(execFile)(
      'python3',
      [path.join(__dirname, 'toolkit_client.py'), server.url, key, PUSH, solutions.push[0], VC33, recordings],
      { env: { ...process.env, PYTHONPATH: path.join(VENDOR, 'python') }, timeout: 180_000 },
    );
    const out = JSON.parse(stdout.trim().split('\n').pop()!) as {
      games: string[];
      steps: ToolkitStep[];
      card_id: string;
      live_score: number;
      scorecard: { score: number; environments: EnvScore[]; total_actions: number };
    };
    expect(out.games).toEqual(
      expect.arrayContaining([PUSH, versionedGameId(games.glow), 'ls20-9607627b', 'ft09-0d8bbf25', VC33]),
    );

    const push = out.steps.filter((s) => s.game === PUSH);
    const moves = solutions.push[0].split(',').length;
    expect(push).toHaveLength(moves + 2);
    expect(push[0]).toMatchObject({ state: 'NOT_FINISHED', levels_completed: 0, full_reset: true, shape: [64, 64] });
    expect(push[0].win_levels).toBe(games.push.levels.length);
    expect(push[moves]).toMatchObject({ state: 'NOT_FINISHED', levels_completed: 1, full_reset: false });
    // RESET with nothing done in level 2 starts a new run: a full reset, as the toolkit splits runs by.
    expect(push[moves + 1]).toMatchObject({ levels_completed: 0, full_reset: true });
    expect(new Set(push.map((s) => s.guid)).size).toBe(1);

    const vc = out.steps.filter((s) => s.game === VC33);
    expect(vc.map((s) => [s.label, s.levels_completed, s.full_reset])).toEqual([
      ['RESET', 0, true],
      ['ACTION6', 0, false],
      ['ACTION6', 0, false],
      ['ACTION6', 1, false],
      ['RESET', 0, true],
    ]);
    expect(vc[0].available_actions).toEqual([6]);
    expect(vc[3].shape).toEqual([64, 64]);

    // The figures are ARC Studio's scorer's on the toolkit's own recordings of the same plays.
    const card = out.scorecard;
    const files = readdirSync(path.join(recordings, out.card_id));
    const vcFile = files.find((f) => f.startsWith(VC33))!;
    const read = readRecording(readFileSync(path.join(recordings, out.card_id, vcFile), 'utf8'));
    const baselines = parseBaselines(
      readFileSync(path.join(VENDOR, 'environment_files/vc33/5430563c/metadata.json'), 'utf8'),
    );
    const expected = scoreRuns(recordingAgentRuns(read, vcFile), baselines, 'toolkit-2026-04');
    const vcCard = card.environments.find((e) => e.id === VC33)!;
    expect(vcCard.runs).toHaveLength(2);
    expect(vcCard.runs[0].level_actions.slice(0, 1)).toEqual([3]);
    expect(vcCard.score).toBeCloseTo(expected.games[0].score * 100, 10);
    expect(vcCard.runs[0].level_scores[0]).toBeCloseTo(115, 10);
    expect(vcCard.score).toBeCloseTo(Math.min((115 * 1) / 28, 100 / 28), 10);
    const pushCard = card.environments.find((e) => e.id === PUSH)!;
    expect(pushCard.levels_completed).toBe(1);
    expect(pushCard.actions).toBe(moves);
    expect(pushCard.runs[0].message).toMatch(/baseline/);
    expect(card.score).toBeCloseTo((vcCard.score + pushCard.score) / 2, 10);
    expect(card.total_actions).toBe(moves + 3);
    expect(out.live_score).toBeCloseTo(card.score, 10);

    // Kept: the scorecard reads back after closing, and a closed card takes no new game.
    const again = await fetch(`${server.url}/api/scorecard/${out.card_id}`, { headers: { 'X-API-Key': key } });
    expect(((await again.json()) as { score: number }).score).toBeCloseTo(card.score, 10);
    const late = await post('/api/cmd/RESET', { game_id: PUSH, card_id: out.card_id }, key);
    expect(late.status).toBe(409);
  });
});

describe('refusals', () => {
  it('a short id is a 404 naming the version to use, never a new game', async () => {
    const card = (await (await post('/api/scorecard/open', {})).json()) as { card_id: string };
    const r = await post('/api/cmd/RESET', { game_id: 'push', card_id: card.card_id });
    expect(r.status).toBe(404);
    const body = (await r.json()) as { error: string; message: string };
    expect(body.error).toBe('GAME_NOT_AVAILABLE_ERROR');
    expect(body.message).toContain(PUSH);
    const ls = await post('/api/cmd/RESET', { game_id: 'ls20', card_id: card.card_id });
    expect(((await ls.json()) as { message: string }).message).toContain('ls20-9607627b');
  });

  it('a missing, unknown or revoked key is a 401', async () => {
    expect((await fetch(`${server.url}/api/games`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/games`, { headers: { 'X-API-Key': 'not-a-key' } })).status).toBe(401);
    const { id, key } = await issueKey('revoked agent');
    expect((await fetch(`${server.url}/api/games`, { headers: { 'X-API-Key': key } })).status).toBe(200);
    const del = await fetch(`${server.url}/api/admin/agent-keys/${id}`, { method: 'DELETE', headers: admin });
    expect(del.status).toBe(200);
    expect((await fetch(`${server.url}/api/games`, { headers: { 'X-API-Key': key } })).status).toBe(401);
    const list = (await (await fetch(`${server.url}/api/admin/agent-keys`, { headers: admin })).json()) as {
      keys: { id: string; revokedAt: number | null; key?: string }[];
    };
    expect(list.keys.find((k) => k.id === id)?.revokedAt).toBeTypeOf('number');
    expect(JSON.stringify(list)).not.toContain(key);
    // Agent keys do not open the researcher routes.
    expect(
      (await fetch(`${server.url}/api/admin/agent-keys`, { headers: { Authorization: `Bearer ${key}` } })).status,
    ).toBe(403);
  });

  it('a key is named: a blank or over-long name is refused with what to change', async () => {
    const issue = (name: unknown) =>
      fetch(`${server.url}/api/admin/agent-keys`, { method: 'POST', headers: admin, body: JSON.stringify({ name }) });
    const blank = await issue('   ');
    expect(blank.status).toBe(400);
    expect(((await blank.json()) as { message: string }).message).toContain('name must not be empty');
    const long = await issue('x'.repeat(101));
    expect(((await long.json()) as { message: string }).message).toContain('longer than 100 characters');
    const named = await issue('  trimmed agent  ');
    expect(((await named.json()) as { name: string }).name).toBe('trimmed agent');
  });

  it('x and y out of range get a message, and actions follow the official rules', async () => {
    const card = (await (await post('/api/scorecard/open', { tags: ['rules'] })).json()) as { card_id: string };
    const reset = (await (await post('/api/cmd/RESET', { game_id: VC33, card_id: card.card_id })).json()) as {
      guid: string;
      full_reset: boolean;
      frame: number[][][];
    };
    expect(reset.full_reset).toBe(true);
    expect(reset.frame[0]).toHaveLength(64);
    for (const [x, y, what] of [
      [64, 0, 'x must be from 0 to 63'],
      [3, -1, 'y must be from 0 to 63'],
      [1.5, 2, 'x must be a whole number'],
      ['a', 2, 'x must be a number'],
    ] as const) {
      const r = await post('/api/cmd/ACTION6', { game_id: VC33, guid: reset.guid, x, y });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { message: string }).message).toContain(what);
    }
    const noXY = await post('/api/cmd/ACTION6', { game_id: VC33, guid: reset.guid });
    expect(((await noXY.json()) as { message: string }).message).toContain('needs "x" and "y"');

    // Built-in game: an action outside available_actions is counted and changes nothing (official rule).
    const p = (await (await post('/api/cmd/RESET', { game_id: PUSH, card_id: card.card_id })).json()) as {
      guid: string;
      available_actions: number[];
      frame: number[][][];
    };
    expect(p.available_actions).not.toContain(6);
    const click = await post('/api/cmd/ACTION6', { game_id: PUSH, guid: p.guid, x: 1, y: 1 });
    expect(click.status).toBe(200);
    const clicked = (await click.json()) as {
      frame: number[][][];
      full_reset: boolean;
      action_input: { id: number; data: { x: number } };
    };
    expect(clicked.frame).toEqual(p.frame);
    expect(clicked.action_input).toMatchObject({ id: 6, data: { x: 1 } });
    const raw = (await (
      await fetch(`${server.url}/api/scorecard/${card.card_id}/${PUSH}`, { headers: { 'X-API-Key': ADMIN } })
    ).json()) as { cards: Record<string, { actions: number[] }> };
    expect(raw.cards[PUSH].actions).toEqual([1]);
    // An action without a guid, or with an unknown one.
    expect((await post('/api/cmd/ACTION1', { game_id: PUSH })).status).toBe(400);
    expect((await post('/api/cmd/ACTION1', { game_id: PUSH, guid: 'nope' })).status).toBe(404);
  });

  it('garbage bodies are a 400 with a message, and the server keeps serving', async () => {
    const bodies = [
      'not json',
      '[]',
      'null',
      '{"game_id": 5}',
      '{"game_id": ""}',
      JSON.stringify({ game_id: PUSH, reasoning: 'x'.repeat(20_000) }),
      '{"game_id":"a\\u0000b"}',
      '{'.repeat(5000),
    ];
    for (const b of bodies) {
      const r = await post('/api/cmd/RESET', b);
      expect(r.status, b.slice(0, 40)).toBe(400);
      const body = (await r.json()) as { message: string };
      expect(body.message.length).toBeGreaterThan(10);
    }
    const huge = await post('/api/cmd/ACTION1', JSON.stringify({ game_id: PUSH, pad: 'x'.repeat(200_000) }));
    expect(huge.status).toBe(413);
    expect((await post('/api/scorecard/close', { card_id: 'nope' })).status).toBe(404);
    expect((await post('/api/scorecard/open', { tags: 'x' })).status).toBe(400);
    // Tags the service refuses are answered with their reason, never a server error.
    for (const [tags, status, words] of [
      [['study:nope'], 404, 'no study "nope"'],
      [['study:a', 'study:b'], 400, 'one study'],
      [['preset:nope'], 400, 'unknown preset'],
    ] as const) {
      const r = await post('/api/scorecard/open', { tags });
      expect(r.status, tags.join(' ')).toBe(status);
      expect(((await r.json()) as { message: string }).message).toContain(words);
    }
    expect((await fetch(`${server.url}/api/games`, { headers: { 'X-API-Key': ADMIN } })).status).toBe(200);
  });

  it('commands answered directly and through the framework (a query string) answer alike, security headers included', async () => {
    const card = (await (await post('/api/scorecard/open', {})).json()) as { card_id: string };
    const bodies = [
      'not json',
      '{"game_id": 5}',
      JSON.stringify({ game_id: 'push', card_id: card.card_id }),
      JSON.stringify({ game_id: PUSH, pad: 'x'.repeat(200_000) }),
    ];
    for (const b of bodies) {
      const [direct, framework] = await Promise.all([
        post('/api/cmd/RESET', b),
        post('/api/cmd/RESET?via=framework', b),
      ]);
      expect(direct.status, b.slice(0, 40)).toBe(framework.status);
      expect(await direct.json()).toEqual(await framework.json());
      for (const h of ['content-security-policy', 'x-frame-options', 'x-content-type-options', 'referrer-policy'])
        expect(direct.headers.get(h), h).toBe(framework.headers.get(h));
    }
    // Without a key, or with a body sent in chunks past the limit (no Content-Length to refuse it by).
    expect((await post('/api/cmd/RESET', {}, null)).status).toBe(401);
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode('x'.repeat(8_192)));
        c.close();
      },
    });
    const r = await fetch(`${server.url}/api/cmd/ACTION1`, {
      method: 'POST',
      body: chunked,
      duplex: 'half',
      headers: { 'X-API-Key': ADMIN },
    } as RequestInit);
    expect(r.status).toBe(413);
    const played = await post('/api/cmd/RESET', { game_id: PUSH, card_id: card.card_id });
    expect(played.status).toBe(200);
    expect(played.headers.get('content-type')).toBe('application/json');
  });
});
