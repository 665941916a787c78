/**
 * Exports against what a database may hold and what can go wrong while one streams: formula
 * text from a study link, logs that disagree with the server's judgements, hostile or damaged
 * events stored by older versions, and a store that fails in the middle of a download (over
 * real HTTP, on a real store wrapped so that its page reads fail).
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { EventInput, Store, SubmissionRecord } from '../store/types';
import { parseCsv, parseCsvObjects, unguardCsvText } from '../../core/formats/csv';
import { exportContext } from './context';
import { EXPORT_FORMATS, FORMAT_NAMES, type ExportFormat } from './formats';
import { UNJUDGED } from './gridActions';
import { nestedDeeperThan } from './safeJson';
import { readZip } from './zip';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-robust-export-tests-0123';
const PID = '=HYPERLINK("http://x","y")';
const STUDY = {
  title: 'Robust exports',
  consent: 'You agree.',
  items: [
    { kind: 'task', id: 'downscale', collection: 'samples', task: 'downscale-blocks', tests: [0] },
    { kind: 'game', id: 'push', game: 'push', seed: 1 },
  ],
  completion: { code: 'DONE' },
};
const A: number[][] = [
  [1, 0],
  [0, 2],
];
const B: number[][] = [[3]];
const C: number[][] = [[4, 4]];
/** Deep enough to overflow a recursive walk in a streaming export (the store still takes it). */
const DEPTH = 2500;

function deep(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** Events with seq and t filled in. */
function log(...events: [string, Record<string, unknown>][]): EventInput[] {
  return events.map(([kind, data], seq) => ({ seq, t: 100 + seq * 10, kind, data }));
}

async function bytesOf(store: Store, library: TaskLibrary, format: ExportFormat, pageSize?: number): Promise<Buffer> {
  const ctx = await exportContext({
    store,
    studyId: 'robust',
    library,
    replay: replayWithEngine,
    now: Date.UTC(2026, 0, 2),
    pageSize,
  });
  const chunks: Buffer[] = [];
  for await (const c of EXPORT_FORMATS[format].write(ctx))
    chunks.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c));
  return Buffer.concat(chunks);
}

/** Every field of a CSV text that a spreadsheet would run as a formula. */
function formulaCells(text: string): string[] {
  return parseCsv(text)
    .flat()
    .filter((f) => /^[=+\-@\t\r]/.test(f) && !/^-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$/.test(f));
}

describe.each(backends)('robust exports on $name', (backend) => {
  let store: Store;
  const library = new TaskLibrary();
  const sub = (
    sessionId: string,
    key: string,
    trial: number | null,
    grid: unknown,
    verdict: SubmissionRecord['verdict'],
    at: number,
  ): SubmissionRecord => ({
    sessionId,
    key,
    item: 'downscale',
    testIndex: 0,
    trial,
    grid,
    verdict,
    practice: false,
    at,
  });

  beforeAll(async () => {
    store = await backend.open();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    await store.saveStudy('robust', STUDY, 'studio', 1);
    const session = (id: string, params: Record<string, string>, createdAt: number) =>
      store.createSession({
        id,
        studyId: 'robust',
        studyVersion: 1,
        tokenHash: `hash-${id}`,
        params,
        seed: 1,
        order: [0, 1],
        createdAt,
      });

    // s1: a link with a formula as PROLIFIC_PID; a log whose verdicts disagree with the server's.
    await session('s1', { PROLIFIC_PID: PID, note: '@SUM(A1:A9)' }, 10);
    await store.appendEvents(
      's1',
      log(
        ['session.start', { wallClock: '2026-01-01T10:00:00.000Z' }],
        ['item.start', { item: 'downscale' }],
        ['task.open', { taskId: 'downscale-blocks', tests: 1, trials: 3 }],
        ['paint', { row: 0, col: 0, color: 1, stroke: 1 }],
        // The browser logged "correct"; the server judged it wrong.
        ['submit', { index: 0, trial: 1, verdict: 'correct', grid: A }],
        // The same wrong grid again: the browser refuses it without asking the server.
        ['submit', { index: 0, trial: 1, verdict: 'duplicate', grid: A }],
        // A submission the server never judged (a log written by hand).
        ['submit', { index: 0, trial: 2, verdict: 'correct', grid: C }],
        ['paint', { row: 0, col: 1, color: 3, stroke: 2 }],
        ['submit', { index: 0, trial: 2, verdict: 'wrong', grid: B }],
      ),
      { receivedAt: 1000, pastSessionLimit: false },
    );
    expect(await store.addSubmission(sub('s1', 'k1', 1, A, 'wrong', 1001))).toBe(true);
    expect(await store.addSubmission(sub('s1', 'k2', 2, B, 'correct', 1002))).toBe(true);

    // s2: hostile and damaged events, as an older version may have stored them.
    await session('s2', { PROLIFIC_PID: '+1-555-0100', workerId: '-2' }, 20);
    await store.appendEvents(
      's2',
      log(
        ['session.start', { wallClock: '2026-01-01T10:00:00.000Z' }],
        ['item.start', { item: 'downscale' }],
        ['task.open', { taskId: 'downscale-blocks', tests: 1e7 }],
        ['task.open', { taskId: 'downscale-blocks', tests: 1 }],
        ['paste', { row: 0, col: 0 }],
        ['paste', { row: 0, col: 0, block: deep(DEPTH) }],
        ['copy', { side: 'output', rect: { r0: 0, c0: 0, r1: 0, c1: 0 }, block: deep(DEPTH) }],
        ['copy.input', { grid: 'not a grid' }],
        ['paint', { row: -1, col: -7, color: 2, stroke: 1 }],
        ['tool', { tool: { odd: true } }],
        ['resize', { rows: 1e9, cols: 'x' }],
        ['test.select', { index: '0' }],
        ['submit', { index: 0, trial: 'x', verdict: { v: 1 }, grid: deep(DEPTH) }],
        ["=cmd|' /C calc'!A0", { note: '\u2028"quoted", \\ back\tslash' }],
        ['item.start', { item: 'push' }],
        ['game.open', { game: 'push', seed: deep(DEPTH) }],
        ['game.action', { game: 'push', action: deep(DEPTH), level: deep(DEPTH) }],
        ['game.action', { game: ['push'], action: 'ACTION9', x: -4, level: 'x', state: 7 }],
        ['item.end', { item: { deep: deep(DEPTH) } }],
      ),
      { receivedAt: 2000, pastSessionLimit: false },
    );
  });
  afterAll(async () => {
    await store.close();
  });

  it('writes no cell a spreadsheet would run: text is guarded, numbers stay numbers', async () => {
    for (const format of ['csv', 'grid-actions', 'baselines-csv'] as const) {
      const text = (await bytesOf(store, library, format)).toString('utf8');
      expect(formulaCells(text), format).toEqual([]);
    }
    const attempts = parseCsvObjects((await bytesOf(store, library, 'csv')).toString('utf8'));
    const row = attempts.find((r) => r.session_id === 's1')!;
    expect(row.prolific_pid).toBe(`'${PID}`);
    expect(row.participant_id).toBe(`'${PID}`);
    expect(unguardCsvText(row.prolific_pid)).toBe(PID);
    expect(attempts.find((r) => r.session_id === 's2')).toMatchObject({
      prolific_pid: "'+1-555-0100",
      worker_id: "'-2",
    });
    // The raw file holds the guarded, quoted text.
    expect((await bytesOf(store, library, 'csv')).toString('utf8')).toContain(`"'=HYPERLINK(""http://x"",""y"")"`);
    const grid = parseCsvObjects((await bytesOf(store, library, 'grid-actions')).toString('utf8'));
    expect(grid.filter((r) => r.session_id === 's1').every((r) => r.participant_id === `'${PID}`)).toBe(true);
    // A negative coordinate (a damaged paint) is a number, written as one.
    const paint = grid.find((r) => r.session_id === 's2' && r.action === 'paint')!;
    expect([paint.action_x, paint.action_y]).toEqual(['-7', '-1']);
  });

  it("takes grid-action verdicts from the server's judged submissions, not the participant's log", async () => {
    const rows = parseCsvObjects((await bytesOf(store, library, 'grid-actions')).toString('utf8')).filter(
      (r) => r.session_id === 's1',
    );
    expect(rows.map((r) => r.action)).toEqual(['paint', 'submit', 'submit', 'submit', 'paint', 'submit']);
    const submits = rows.filter((r) => r.action === 'submit');
    expect(submits.map((r) => [r.verdict, r.attempt_number, r.solved, r.done, r.test_output_grid])).toEqual([
      ['wrong', '1', 'false', 'true', JSON.stringify(A)],
      ['duplicate', '2', 'false', 'false', JSON.stringify(A)],
      [UNJUDGED, '2', 'false', 'false', JSON.stringify(C)],
      ['correct', '2', 'true', 'true', JSON.stringify(B)],
    ]);
    // Actions between submissions belong to the trial after the server's count: one trial used.
    expect(rows[4]).toMatchObject({ action: 'paint', attempt_number: '2', test_index: '0' });
    // The attempts file agrees: solved on the second trial.
    const attempt = parseCsvObjects((await bytesOf(store, library, 'csv')).toString('utf8')).find(
      (r) => r.session_id === 's1' && r.item_id === 'downscale',
    )!;
    expect(attempt).toMatchObject({ trials_used: '2', tests_solved: '1', solved: 'true' });
  });

  it('writes every file whole around hostile and damaged stored events', async () => {
    const stored = [...(await store.readEvents('s1')), ...(await store.readEvents('s2'))];
    for (const format of FORMAT_NAMES)
      expect((await bytesOf(store, library, format)).length, format).toBeGreaterThan(0);

    // events.jsonl: every stored event, its data exactly as stored however deep.
    const jsonl = (await bytesOf(store, library, 'jsonl')).toString('utf8');
    expect(jsonl.endsWith('\n')).toBe(true);
    const lines = jsonl
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { sessionId: string; seq: number; kind: string; data: Record<string, unknown> });
    expect(lines.length).toBe(stored.length);
    const pasted = lines.find((l) => l.sessionId === 's2' && l.seq === 5)!;
    // Compared as text: a recursive deep equality of 2,500 levels can run out of stack by itself.
    expect(JSON.stringify(pasted.data.block)).toBe(JSON.stringify(deep(DEPTH)));
    expect(nestedDeeperThan(pasted.data, DEPTH)).toBe(true);
    expect(lines.find((l) => l.sessionId === 's2' && l.seq === 13)!).toMatchObject({
      kind: "=cmd|' /C calc'!A0",
      data: { note: '\u2028"quoted", \\ back\tslash' },
    });
    // The same at any page size (a deep event at a page edge included).
    expect((await bytesOf(store, library, 'jsonl', 1)).equals(Buffer.from(jsonl))).toBe(true);

    // grid-actions.csv: a row for every grid action of the damaged log, none cut off.
    const grid = parseCsvObjects((await bytesOf(store, library, 'grid-actions')).toString('utf8')).filter(
      (r) => r.session_id === 's2',
    );
    expect(grid.map((r) => r.action)).toEqual([
      'paste',
      'paste',
      'copy',
      'copy.input',
      'paint',
      'tool',
      'resize',
      'test.select',
      'submit',
    ]);
    expect(grid.find((r) => r.action === 'submit')).toMatchObject({
      verdict: UNJUDGED,
      test_output_grid: '',
      solved: 'false',
    });
    expect(grid.find((r) => r.action === 'copy')!.copy_paste_data).toBe('');

    // attempts.csv: both items of the damaged session, its game log unverified.
    const attempts = parseCsvObjects((await bytesOf(store, library, 'csv')).toString('utf8')).filter(
      (r) => r.session_id === 's2',
    );
    expect(attempts.map((r) => r.item_id)).toEqual(['downscale', 'push']);
    expect(attempts[1].verified).toBe('false');

    // The bundle opens, holds the same events file, and lists the run that does not replay.
    const entries = readZip(await bytesOf(store, library, 'zip'));
    expect(entries.find((e) => e.name === 'events.jsonl')!.data.toString('utf8')).toBe(jsonl);
    expect(entries.at(-1)!.name).toBe('SHA256SUMS');
    expect(entries.find((e) => e.name === 'README.md')!.data.toString('utf8')).toMatch(
      /`s2-push-1\.recording\.jsonl`: /,
    );
    expect(readZip(await bytesOf(store, library, 'recordings')).map((e) => e.name)).toEqual([]);
  });

  describe('a store that fails in the middle of a download', () => {
    const PAGE = 20;
    const FAIL_AFTER = 12;
    let server: ReturnType<typeof serve>;
    /** Whether a page read of s3 has failed yet. */
    let failed = false;
    /** The server's ends of its connections. */
    const sockets = new Set<Socket>();
    let base: string;

    beforeAll(async () => {
      // A long log, read by the failing store in pages of PAGE events.
      await store.createSession({
        id: 's3',
        studyId: 'robust',
        studyVersion: 1,
        tokenHash: 'hash-s3',
        params: {},
        seed: 1,
        order: [0, 1],
        createdAt: 30,
      });
      const pad = 'x'.repeat(8000);
      for (let b = 0; b < 4; b++) {
        await store.appendEvents(
          's3',
          Array.from({ length: 200 }, (_, i) => ({ seq: b * 200 + i, t: i, kind: 'note', data: { pad } })),
          { receivedAt: 3000, pastSessionLimit: false },
        );
      }
      // The real store, whose page reads of s3 throw after FAIL_AFTER pages.
      const failing = new Proxy(store, {
        get(target, key) {
          if (key === 'streamEvents') {
            return async function* (sessionId: string, opts?: { batchSize?: number; afterSeq?: number }) {
              let pages = 0;
              for await (const page of target.streamEvents(sessionId, { ...opts, batchSize: PAGE })) {
                if (sessionId === 's3' && pages++ === FAIL_AFTER) {
                  failed = true;
                  throw new Error('the database connection was lost');
                }
                yield page;
              }
            };
          }
          const v = Reflect.get(target, key) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      const app = new Hono().route(
        '/api',
        createApi({
          library,
          version: 'test',
          study: { store: failing, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds },
        }),
      );
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
      server.on('connection', (socket: Socket) => sockets.add(socket));
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    const link = async (format: ExportFormat) => {
      const made = await fetch(`${base}/api/admin/studies/robust/exports`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN}` },
        body: JSON.stringify({ format }),
      });
      expect(made.status).toBe(201);
      return base + ((await made.json()) as { url: string }).url;
    };

    it('breaks the connection: the client gets an error, never a complete-looking file', async () => {
      for (const format of ['jsonl', 'csv', 'grid-actions', 'zip'] as const) {
        const res = await fetch(await link(format));
        // The headers went out before the failure.
        expect(res.status, format).toBe(200);
        await expect(res.arrayBuffer(), format).rejects.toThrow();
      }
    });

    it('breaks it too for a slow client the server is waiting on', async () => {
      const url = await link('jsonl');
      failed = false;
      /** Resolves once the server waits for the client to take what it wrote, or has failed first. */
      const stalled = vi.waitFor(
        () => {
          if (!failed && ![...sockets].some((socket) => socket.writableNeedDrain)) throw new Error('still writing');
        },
        { timeout: 180_000, interval: 10 },
      );
      const got = await new Promise<{ status: number; bytes: Buffer; ended: boolean; error: string | null }>(
        (resolve) => {
          http.get(url, (res) => {
            const chunks: Buffer[] = [];
            let error: string | null = null;
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('error', (e) => {
              error = e.message;
            });
            res.on('close', () =>
              resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks), ended: res.complete, error }),
            );
            // Read nothing until the server's writes wait for the client (backpressure), or until the
            // read failed first (the kernel's buffers on loopback may take all it wrote before).
            res.pause();
            stalled.then(
              () => res.resume(),
              (e: Error) => res.destroy(e),
            );
          });
        },
      );
      expect(got.status).toBe(200);
      expect(got.ended).toBe(false);
      expect(got.error).toMatch(/aborted/);
      const text = got.bytes.toString('utf8');
      expect(text).not.toContain('Error');
      expect(text).not.toContain('connection was lost');
      // What arrived is the beginning of the file, cut off: fewer lines than the log has.
      expect(text.split('\n').length - 1).toBeLessThan(800);
    });
  });
});
