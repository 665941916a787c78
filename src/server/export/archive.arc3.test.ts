/**
 * A study with runs of the official ls20 archived (the export format `archive`, written on an
 * export thread) and restored with `arc-studio restore` on fresh servers, PGlite and PostgreSQL:
 * the restored study's results equal the original's field for field, every run plays again on
 * the engine as stored, a second restore is refused and a merge adds nothing, and a damaged
 * archive is refused naming its part, with nothing written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { backends, freshPostgresDatabase, seedDataDir } from '../store/testing';
import { openStore } from '../store/open';
import type { Store } from '../store/types';
import { apiCaller } from '../testing/api';
import { LS20, arc3Api, playArc3, type Arc3Api } from '../testing/arc3';
import { runCli, spawnCli } from '../../cli/testing';
import { exportsOnThreads } from './thread';
import { readZip, zipStream } from './zip';
import { ARCHIVE_MANIFEST, type ArchiveManifest } from './archive';

const ADMIN = 'researcher-token-for-archive-tests';
const STUDY = {
  title: 'ls20, archived',
  consent: 'Yes.',
  completion: { code: 'DONE' },
  items: [{ kind: 'game', id: 'keys', game: LS20 }],
};
const MOVES = ['ACTION3', 'ACTION3', 'ACTION1', 'ACTION4', 'ACTION2', 'ACTION1', 'ACTION3', 'ACTION4'];

const pglite = backends.find((b) => b.name === 'pglite')!;

/** A server's API on `store`, with the vendored games run by the official engine. */
const server = (store: Store): Promise<Arc3Api> => arc3Api(store, { admin: ADMIN, exportThreads: true });

const call = (app: Hono, method: string, url: string, token: string | null, body?: unknown) =>
  apiCaller(() => app)(method, url, token, body);

/**
 * A participant plays `moves` of ls20 through the participant routes, logs them, and finishes or
 * not; `tamper` changes the level a logged step says (a log that is not what the server answered).
 */
async function participant(api: Arc3Api, moves: readonly string[], finish: boolean, tamper = false): Promise<string> {
  const played = await playArc3(api, {
    study: 'ls20',
    item: 'keys',
    game: LS20,
    actions: moves,
    params: { PROLIFIC_PID: `p-${moves.length}` },
    until: finish ? 'finished' : 'open',
    ...(tamper ? { tamperStep: 3 } : {}),
  });
  return played.sessionId;
}

/** Every run of a session played again on the engine by the server (the replay page's "Verify"). */
async function verified(app: Hono, sessionId: string): Promise<{ ok: boolean; runs: number }> {
  const started = await call(app, 'POST', `/admin/sessions/${sessionId}/runs/verify`, ADMIN, {});
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const url = `/admin/sessions/${sessionId}/runs/verify/${(started.body as { job: string }).job}`;
  await expect
    .poll(async () => ((await call(app, 'GET', url, ADMIN)).body as { state: string }).state, { timeout: 170_000 })
    .toBe('done');
  const { check } = (await call(app, 'GET', url, ADMIN)).body as { check: { ok: boolean; runs: unknown[] } };
  return { ok: check.ok, runs: check.runs.length };
}

/** The replay page's reads of each session (its events, its runs with every frame) and the game's baselines, signatures aside. */
async function replayOf(app: Hono, sessions: readonly string[]): Promise<unknown> {
  const out: unknown[] = [(await call(app, 'GET', `/admin/games/${LS20}/baselines`, ADMIN)).body];
  for (const id of sessions)
    for (const part of ['events', 'runs']) {
      const r = await call(app, 'GET', `/admin/sessions/${id}/${part}`, ADMIN);
      expect(r.status, `${part} of ${id}`).toBe(200);
      out.push(r.body);
    }
  // The logged steps' signatures are each database's own (signed again on restore: formats/archive.md).
  return JSON.parse(JSON.stringify(out).replace(/"sig":"[0-9a-f]+"/g, '"sig":"(signed)"'));
}

/** How many rows of each of the study's tables a store holds. */
async function rowCounts(store: Store, sessions: readonly string[]): Promise<Record<string, number>> {
  let events = 0;
  let steps = 0;
  let runs = 0;
  for (const id of sessions) {
    events += (await store.readEvents(id)).length;
    const list = await store.listGameRuns(id);
    runs += list.length;
    for (const r of list) steps += (await store.readGameSteps(r.runId)).length;
  }
  return { sessions: (await store.listSessions('ls20')).length, events, runs, steps };
}

describe('a study archived and restored on fresh servers', () => {
  let dir: string;
  let file: string;
  let sessions: string[];
  let original: unknown;
  let counts: Record<string, number>;
  /** What the replay page and the baselines read: each session's events and runs with their frames, the game's baselines. */
  let replays: unknown;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-archive-'));
    const store = await pglite.open();
    await store.saveStudy('ls20', STUDY, 'file', Date.now());
    const api = await server(store);
    const { app, arc3 } = api;
    try {
      sessions = [
        await participant(api, MOVES, true),
        await participant(api, MOVES.slice(0, 5), false),
        await participant(api, MOVES.slice(0, 6), true, true),
      ];
      const results = await call(app, 'GET', '/admin/studies/ls20/results', ADMIN);
      expect(results.status).toBe(200);
      original = results.body;
      // The tampered log is not verified, the others are: the restored study must say the same.
      const flagged = (original as { participants: { flags: string[] }[] }).participants.map((p) =>
        p.flags.includes('game_log_unverified:keys'),
      );
      expect(flagged).toEqual([false, false, true]);
      counts = await rowCounts(store, sessions);
      replays = await replayOf(app, sessions);

      const before = exportsOnThreads();
      const made = await call(app, 'POST', '/admin/studies/ls20/exports', ADMIN, { format: 'archive' });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect((made.body as { fileName: string }).fileName).toBe('ls20-archive.zip');
      const res = await app.request((made.body as { url: string }).url.replace(/^\/api/, ''));
      expect(res.status).toBe(200);
      file = path.join(dir, 'ls20-archive.zip');
      writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      expect(exportsOnThreads() - before).toBe(1);
      // A version of a study is not an archive of it.
      const versioned = await call(app, 'POST', '/admin/studies/ls20/exports', ADMIN, {
        format: 'archive',
        version: 1,
      });
      expect(versioned.status).toBe(400);
    } finally {
      await arc3.service.stop();
      await store.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists every part with its rows and SHA-256, and holds no derived data', async () => {
    const files = new Map(readZip(readFileSync(file)).map((e) => [e.name, e.data]));
    const manifest = JSON.parse(files.get(ARCHIVE_MANIFEST)!.toString('utf8')) as ArchiveManifest;
    expect(manifest.study).toBe('ls20');
    expect(manifest.sessions).toBe(3);
    const rows = Object.fromEntries(manifest.parts.map((p) => [p.table, p.rows]));
    expect(rows).toMatchObject({
      studies: 1,
      sessions: 3,
      events: counts.events,
      game_runs: 3,
      game_steps: counts.steps,
    });
    // The code of ls20's version the runs were played on travels with them.
    expect(rows.game_code).toBe(1);
    expect([...files.keys()].some((n) => /digest/.test(n))).toBe(false);
  });

  const targets = [
    {
      name: 'PGlite (--data-dir)',
      async open() {
        const dataDir = path.join(dir, `pglite-${Math.random().toString(36).slice(2)}`);
        seedDataDir(dataDir);
        return {
          argv: ['--data-dir', dataDir],
          env: { DATABASE_URL: undefined },
          store: () => openStore({ dataDir }),
          drop: async () => {},
        };
      },
    },
    {
      name: 'PostgreSQL (DATABASE_URL)',
      async open() {
        const db = await freshPostgresDatabase('restore');
        return {
          argv: [],
          env: { DATABASE_URL: db.url },
          store: () => openStore({ databaseUrl: db.url }),
          drop: db.drop,
        };
      },
    },
  ];

  for (const target of targets) {
    it(`restores on ${target.name} with equal results and every run verified; twice is refused, a merge adds nothing`, async () => {
      const t = await target.open();
      try {
        const first = await runCli(['restore', file, ...t.argv], t.env);
        expect(first.err).toBe('');
        expect(first.code).toBe(0);
        expect(first.out).toContain('Restored study "ls20"');

        const again = await runCli(['restore', file, ...t.argv], t.env);
        expect(again.code).toBe(1);
        expect(again.err).toContain('study "ls20" is on this server already');
        expect(again.err).toContain('--merge');
        const merged = await runCli(['restore', file, '--merge', ...t.argv], t.env);
        expect(merged.err).toBe('');
        expect(merged.code).toBe(0);
        expect(merged.out).not.toMatch(/[1-9]\d* added/);

        const store = await t.store();
        const { app, arc3 } = await server(store);
        try {
          expect(await rowCounts(store, sessions)).toEqual(counts);
          const results = await call(app, 'GET', '/admin/studies/ls20/results', ADMIN);
          expect(results.status).toBe(200);
          expect(results.body).toEqual(original);
          expect(await replayOf(app, sessions)).toEqual(replays);
          for (const id of sessions) expect(await verified(app, id)).toEqual({ ok: true, runs: 1 });
        } finally {
          await arc3.service.stop();
          await store.close();
        }
      } finally {
        await t.drop();
      }
    });
  }

  it('refuses a damaged archive naming its part, and writes nothing', async () => {
    const entries = readZip(readFileSync(file));
    // One event's time changed and the ZIP written again whole: only the manifest's SHA-256 tells.
    const tampered = entries.map((e) =>
      e.name === 'parts/events.jsonl'
        ? { name: e.name, data: [e.data.toString('utf8').replace(/"t": ?150\.25/, '"t": 151')] }
        : { name: e.name, data: [e.data] },
    );
    const chunks: Buffer[] = [];
    for await (const c of zipStream(tampered)) chunks.push(c);
    const bad = path.join(dir, 'tampered.zip');
    writeFileSync(bad, Buffer.concat(chunks));
    const dataDir = path.join(dir, 'damaged');
    seedDataDir(dataDir);
    // The real binary, once.
    const r = spawnCli(['restore', bad, '--data-dir', dataDir], { DATABASE_URL: undefined });
    expect(r.code).toBe(1);
    expect(r.err).toContain('parts/events.jsonl fails its SHA-256 check');

    // A byte of the file itself flipped: the ZIP's own check names the part.
    const raw = readFileSync(file);
    const at = raw.indexOf(Buffer.from('parts/sessions.jsonl')) + 'parts/sessions.jsonl'.length + 8;
    raw[at] ^= 0xff;
    writeFileSync(bad, raw);
    const flipped = await runCli(['restore', bad, '--data-dir', dataDir], { DATABASE_URL: undefined });
    expect(flipped.code).toBe(1);
    expect(flipped.err).toContain('parts/sessions.jsonl');

    const store = await openStore({ dataDir });
    try {
      expect(await store.getStudy('ls20')).toBeNull();
    } finally {
      await store.close();
    }
  });
});
