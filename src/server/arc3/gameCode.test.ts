/**
 * An arcengine game's code pinned per run, on the official engine in real Python workers: a copy
 * of the vendored ls20 in a temporary folder is played, then edited (its background colour) and
 * hot reloaded. The run opened before the edit keeps the code it started with through a worker
 * killed and a server restarted; a run opened after it plays the new code; both versions are
 * listed; `games verify-session` checks each run on its recorded version, and says which code it
 * needs when that version is not kept.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import type { ServerRunReply, ServerStep } from '../../core/game/serverGame';
import { runCli } from '../../cli/testing';
import { openStore } from '../store/open';
import { seedDataDir } from '../store/testing';
import type { Store } from '../store/types';
import { GameCodeStore, hashCodeFiles, readGameFolder } from './gameCode';
import { ARC3_ENV as ENV, LS20, OFFICIAL_GAMES as VENDORED, PYTHONPATH, arc3Api, editableGame } from '../testing/arc3';
import type { Arc3Started } from './mount';
import type { MountedSource } from './runs';
import { Arc3Worker, type Arc3Action } from './worker';
import { Arc3Pool } from './pool';
import { hashGrid } from '../../core/game/serverGame';

const ADMIN = 'researcher-token-for-pinned-code';
const STUDY = {
  title: 'Pinned code',
  consent: 'Consent.',
  instructions: 'Play.',
  completion: { code: 'DONE' },
  items: [{ kind: 'game', id: 'keys', game: LS20 }],
};
/** ls20's moves: every one renders a frame, so every step's hash says which code drew it. */
const MOVES: Arc3Action['action'][] = [
  'ACTION1',
  'ACTION3',
  'ACTION2',
  'ACTION4',
  'ACTION1',
  'ACTION4',
  'ACTION3',
  'ACTION2',
];

describe('hashCodeFiles', () => {
  it("changes with a file's bytes, its path and its presence, and not with the order files were read in", () => {
    const a = new Map([
      ['ls20.py', Buffer.from('x = 1\n')],
      ['metadata.json', Buffer.from('{}')],
    ]);
    const h = hashCodeFiles(a);
    expect(h).toMatch(/^[0-9a-f]{12}$/);
    expect(hashCodeFiles(new Map([...a].reverse()))).toBe(h);
    expect(
      hashCodeFiles(
        new Map([
          ['ls20.py', Buffer.from('x = 2\n')],
          ['metadata.json', Buffer.from('{}')],
        ]),
      ),
    ).not.toBe(h);
    expect(
      hashCodeFiles(
        new Map([
          ['ls21.py', Buffer.from('x = 1\n')],
          ['metadata.json', Buffer.from('{}')],
        ]),
      ),
    ).not.toBe(h);
    expect(hashCodeFiles(new Map([['ls20.py', Buffer.from('x = 1\n')]]))).not.toBe(h);
    // A path and the bytes after it cannot be shifted into one another.
    expect(hashCodeFiles(new Map([['a', Buffer.from('b\n1\nc')]]))).not.toBe(
      hashCodeFiles(new Map([['a\n1\nb', Buffer.from('c')]])),
    );
  });
});

describe('an arcengine game edited while a participant plays it', () => {
  let root: string;
  let dataDir: string;
  let gameDir: string;
  let store: Store;
  let arc3: Arc3Started;
  let app: Hono;
  let sessionId: string;
  let token: string;
  const logged: string[] = [];

  const call = async (method: string, url: string, auth: string | null, body?: unknown) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (auth) headers.Authorization = `Bearer ${auth}`;
    const res = await app.request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const start = async () => {
    const games = [path.join(root, 'games')];
    const codeDir = path.join(dataDir, 'arc3-code');
    ({ app, arc3 } = await arc3Api(store, { admin: ADMIN, dirs: games, codeDir, log: (line) => logged.push(line) }));
  };
  const act = async (run: string, step: number, action: Arc3Action['action']) => {
    const r = await call('POST', `/sessions/${sessionId}/runs/${run}/actions`, token, { step, action });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    // Answered before stored: the tests read the stored steps.
    await arc3.service.stepsStored();
    return r.json as unknown as ServerStep;
  };
  /** The frame hash of every step of `moves` on the vendored, unedited ls20. */
  const original = async (moves: readonly Arc3Action['action'][]) => {
    const worker = new Arc3Worker({ gameDirs: [VENDORED], env: ENV });
    try {
      const out = [hashGrid((await worker.open('ref', LS20, 0)).frame.at(-1)!)];
      for (const action of moves) out.push(hashGrid((await worker.act('ref', { action })).frame.at(-1)!));
      return out;
    } finally {
      await worker.stop();
    }
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'arc3-pinned-'));
    gameDir = editableGame(root, 'ls20/9607627b');
    dataDir = path.join(root, 'data');
    seedDataDir(dataDir);
    store = await openStore({ dataDir });
    await store.saveStudy('pinned', STUDY, 'file', Date.now());
    await start();
    const s = await call('POST', '/studies/pinned/sessions', null, { params: {} });
    ({ sessionId, token } = s.json as { sessionId: string; token: string });
  });
  afterAll(async () => {
    await arc3?.service.stop();
    await store?.close().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps an open run on the code it started with; new runs get the edited code; verify-session checks each on its own', async () => {
    const before = (await readGameFolder(gameDir)).hash;
    expect(arc3.service.info(LS20)).toMatchObject({ version: `${LS20}@${before}`, codeHash: before });

    // Run A, before the edit: four moves.
    const a = (await call('POST', `/sessions/${sessionId}/runs`, token, { item: 'keys' }))
      .json as unknown as ServerRunReply;
    expect(a.game.version).toBe(`${LS20}@${before}`);
    const hashesA = [a.steps[0].frameHash];
    for (let i = 0; i < 4; i++) hashesA.push((await act(a.run, i + 1, MOVES[i])).frameHash);

    // The designer changes the background colour; the watcher (or this call) reloads the game.
    const file = path.join(gameDir, 'ls20.py');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('BACKGROUND_COLOR = 3\n');
    writeFileSync(file, text.replace('BACKGROUND_COLOR = 3\n', 'BACKGROUND_COLOR = 5\n'));
    await arc3.service.reload(LS20);
    const after = (await readGameFolder(gameDir)).hash;
    expect(after).not.toBe(before);
    expect(arc3.service.info(LS20)).toMatchObject({ id: LS20, version: `${LS20}@${after}` });

    // The worker dies: run A is rebuilt on its own code, and goes on with it.
    const pool = (arc3.service as unknown as { sources: MountedSource[] }).sources[0].source as Arc3Pool;
    const pid = pool.workers[0].pid!;
    const died = new Promise((r) => pool.workers[0]['proc']!.once('exit', r));
    process.kill(pid, 'SIGKILL');
    await died;
    for (let i = 4; i < 6; i++) hashesA.push((await act(a.run, i + 1, MOVES[i])).frameHash);
    expect(pool.workers[0].pid).not.toBe(pid);

    // Run B, opened after the edit.
    const opened = await call('POST', `/sessions/${sessionId}/runs`, token, { item: 'keys' });
    expect(opened.status, JSON.stringify(opened.json)).toBe(200);
    const b = opened.json as unknown as ServerRunReply;
    expect(b.game.version).toBe(`${LS20}@${after}`);
    const hashesB = [b.steps[0].frameHash];
    for (let i = 0; i < 2; i++) hashesB.push((await act(b.run, i + 1, MOVES[i])).frameHash);

    // The studio's list shows both: the version new runs get, and the one run A keeps.
    const listed = (await call('GET', '/admin/arc3/games', ADMIN)).json.games as {
      id: string;
      version: string;
      olderVersions: unknown[];
    }[];
    expect(listed.find((g) => g.id === LS20)).toMatchObject({
      version: `${LS20}@${after}`,
      olderVersions: [{ version: `${LS20}@${before}`, codeHash: before, runs: 1 }],
    });

    // The server restarts: run A is rebuilt from its stored steps on its own code.
    await arc3.service.stop();
    await start();
    hashesA.push((await act(a.run, 7, MOVES[6])).frameHash);
    const resumed = (
      await call('POST', `/sessions/${sessionId}/runs`, token, { item: 'keys', resume: { run: a.run, after: 6 } })
    ).json as unknown as ServerRunReply;
    expect(resumed.game.version).toBe(`${LS20}@${before}`);
    expect(resumed.steps.map((s) => s.step)).toEqual([7]);
    expect(logged.filter((l) => /rebuilt to a frame other/.test(l))).toEqual([]);

    // Run A drew every frame as the unedited game does; run B drew other frames from its first.
    const unedited = await original(MOVES.slice(0, 7));
    expect(hashesA).toEqual(unedited);
    // Run B's first three frames against the same frames of the unedited game (one worker for both).
    const reference = unedited.slice(0, 3);
    hashesB.forEach((h, i) => expect(h, `run B step ${i}`).not.toBe(reference[i]));

    // Both versions are recorded: on the runs, and for the study.
    expect((await store.listGameRuns(sessionId)).map((r) => [r.runId, r.codeHash])).toEqual([
      [a.run, before],
      [b.run, after],
    ]);
    expect((await store.studyGameVersions('pinned')).map((v) => [v.gameId, v.codeHash, v.runs])).toEqual([
      [LS20, before, 1],
      [LS20, after, 1],
    ]);
    // The study started with the unedited code (pinned by its first session, before any run) and
    // the studio says the game changed since.
    expect((await call('GET', '/admin/studies/pinned/usage', ADMIN)).json.startedWith).toEqual([
      {
        gameId: LS20,
        version: `${LS20}@${before}`,
        codeHash: before,
        pinnedAt: expect.any(Number),
        current: `${LS20}@${after}`,
        changed: true,
      },
    ]);

    // A third run recorded with a version no server kept (its steps are A's).
    const lost = 'abcdef012345';
    const runA = (await store.getGameRun(a.run))!;
    await store.addGameRun({
      ...runA,
      runId: `${a.run.slice(0, -4)}ffff`,
      codeHash: lost,
      // Opened after run B (verify-session lists runs in the order they were opened), however
      // soon after run A this machine opened run B.
      openedAt: (await store.getGameRun(b.run))!.openedAt + 1,
    });
    for (const s of await store.readGameSteps(a.run))
      await store.addGameStep({ ...s, runId: `${a.run.slice(0, -4)}ffff` });
    const missing = await new GameCodeStore(store, path.join(dataDir, 'arc3-code')).locate(LS20, lost, gameDir);
    expect(missing).toEqual({
      error: expect.stringContaining(
        `recorded with ${LS20}@${lost}; mounted now: ${LS20}@${after}; exact verification needs the recorded code: `,
      ),
    });

    await arc3.service.stop();
    await store.close();
    // The folders of kept versions are written again from the database when missing.
    rmSync(path.join(dataDir, 'arc3-code'), { recursive: true, force: true });
    const r = await runCli(
      ['games', 'verify-session', sessionId, '--data-dir', dataDir, '--arc3-games', path.join(root, 'games')],
      { ARC_STUDIO_PYTHONPATH: PYTHONPATH, DATABASE_URL: undefined },
    );
    expect(r.err).toBe('');
    const lines = r.out.trimEnd().split('\n');
    const line = (run: string) => lines.find((l) => l.includes(` run ${run} `));
    expect(lines).toHaveLength(3);
    // Run A played its kept code, though the mounted folder now holds the edited one.
    expect(line(a.run)).toBe(
      `keys ${LS20}@${before} run ${a.run} (seed 0, 8 steps, mounted now ${LS20}@${after}): every step matches`,
    );
    // Run B played the edited code: the check says the study started with the other version.
    expect(line(b.run)).toBe(
      `keys ${LS20}@${after} run ${b.run} (seed 0, 3 steps, the study started with ${LS20}@${before}): every step matches`,
    );
    expect(line(`${a.run.slice(0, -4)}ffff`)).toMatch(
      new RegExp(
        `^keys ${LS20}@${lost} run .*: not checked: recorded with ${LS20}@${lost}; mounted now: ${LS20}@${after}; exact verification needs the recorded code: .*${lost}`,
      ),
    );
    expect(r.code).toBe(1);
    store = await openStore({ dataDir });
  }, 240_000);
});
