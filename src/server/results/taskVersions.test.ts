/**
 * A task revised mid-study: a real ARC-AGI-1 task is a study's item; two participants solve it;
 * the researcher edits the task file's answer while the server runs; of two more participants,
 * one submits the old answer (now wrong) and one the new. Each submission records the content
 * hash of the task it was judged on, so the results show the task's two versions apart, each
 * with its own solve rate, after the row of all versions, and the attempts export names the
 * version of each attempt.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from '../study/studies';
import { openStore } from '../store/open';
import type { Store } from '../store/types';
import { seedDataDir } from '../store/testing';
import { apiCaller } from '../testing/api';
import type { StudyResults } from '../../core/analysis/results';
import { taskContentHash } from '../../core/analysis/versions';
import { parseTaskText, type ArcTask } from '../../core/formats/arcTask';
import { parseCsvObjects } from '../../core/formats/csv';

const ROOT = path.resolve(__dirname, '../../..');
const TASK_FILE = path.resolve(ROOT, '../shared/data/arc-agi-1/training/007bbfb7.json');
const ADMIN = 'researcher-token-for-task-versions';
const STUDY = {
  title: 'A revised task',
  consent: 'ok',
  completion: { code: 'T-1' },
  items: [{ kind: 'task', id: 'fractal', collection: 'tasks', task: '007bbfb7' }],
};

function readTask(file: string): ArcTask {
  const parsed = parseTaskText(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(`${file} does not parse`);
  return parsed.task;
}

describe('a task revised mid-study', () => {
  let root: string;
  let store: Store;
  let app: Hono;
  const call = apiCaller(() => app);
  let clock = Date.UTC(2026, 6, 1, 9);

  const logged: string[] = [];
  const startServer = async () => {
    const library = new TaskLibrary({ log: (line) => logged.push(line) });
    await library.mount(path.join(root, 'tasks'));
    app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => clock },
    });
  };

  /** One participant: the item opened, one grid submitted; the verdict. */
  const attempt = async (pid: string, grid: readonly (readonly number[])[]) => {
    clock += 60_000;
    const s = (await call('POST', '/studies/rev/sessions', null, { params: { PROLIFIC_PID: pid } })).body as {
      sessionId: string;
      token: string;
    };
    const events = [{ seq: 0, t: 0, kind: 'item.start', data: { item: 'fractal', kind: 'task' } }];
    expect((await call('POST', `/sessions/${s.sessionId}/events`, s.token, { events })).status).toBe(200);
    const r = await call('POST', `/sessions/${s.sessionId}/submissions`, s.token, {
      key: 'k1',
      item: 'fractal',
      testIndex: 0,
      grid,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body as { verdict: string }).verdict;
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'task-versions-'));
    mkdirSync(path.join(root, 'tasks'));
    copyFileSync(TASK_FILE, path.join(root, 'tasks/007bbfb7.json'));
    seedDataDir(path.join(root, 'data'));
    store = await openStore({ dataDir: path.join(root, 'data') });
    await startServer();
    expect((await call('POST', '/admin/studies/rev', ADMIN, { definition: STUDY })).status).toBe(201);
  });
  afterAll(async () => {
    await store?.close().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  });

  it('shows each version of the task with its own solve rate, after the row of all versions', async () => {
    const file = path.join(root, 'tasks/007bbfb7.json');
    const first = readTask(file);
    const oldAnswer = first.test[0].output!;
    expect(await attempt('a1', oldAnswer)).toBe('correct');
    expect(await attempt('a2', oldAnswer)).toBe('correct');

    // The researcher changes one cell of the answer, with the server running (no restart).
    const newAnswer = oldAnswer.map((row, y) => row.map((c, x) => (y === 0 && x === 0 ? (c + 1) % 10 : c)));
    const json = JSON.parse(readFileSync(file, 'utf8')) as { test: { output: number[][] }[] };
    json.test[0].output = newAnswer;
    writeFileSync(file, JSON.stringify(json, null, 1));
    expect(await attempt('b1', oldAnswer)).toBe('wrong');
    expect(await attempt('b2', newAnswer)).toBe('correct');

    const v1 = taskContentHash(first);
    const v2 = taskContentHash(readTask(file));
    expect(v2).not.toBe(v1);
    expect(logged).toEqual([
      `Task tasks/007bbfb7 changed (version ${v1} -> ${v2}): submissions are judged against the new file from now on.`,
    ]);
    const hashes = async (pid: string) => {
      const s = (await store.listSessions('rev')).find((x) => x.params.PROLIFIC_PID === pid)!;
      return (await store.listSubmissions(s.id)).map((x) => x.taskHash);
    };
    expect(await hashes('a2')).toEqual([v1]);
    expect(await hashes('b1')).toEqual([v2]);
    const r = (await call('GET', '/admin/studies/rev/results', ADMIN)).body as StudyResults;
    expect(r.tasks.map((t) => [t.version, t.allVersions, t.attempted, t.solvedWithin[0], t.solveRate[0]])).toEqual([
      [null, true, 4, 3, 0.75],
      [v1, false, 2, 2, 1],
      [v2, false, 2, 1, 0.5],
    ]);

    const made = await call('POST', '/admin/studies/rev/exports', ADMIN, { format: 'csv' });
    expect(made.status).toBe(201);
    const res = await app.request((made.body as { url: string }).url.replace(/^\/api/, ''));
    const rows = parseCsvObjects(await res.text());
    expect(rows.map((row) => [row.participant_id, row.version])).toEqual([
      ['a1', v1],
      ['a2', v1],
      ['b1', v2],
      ['b2', v2],
    ]);
  });
});
