import { copyFile, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTaskText, withoutAnswers } from '../core/formats/arcTask';
import { createApi } from './app';
import { TaskLibrary } from './collections/collections';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BROKEN = path.join(ROOT, 'e2e/fixtures/broken-tasks');

let api: Hono;
let library: TaskLibrary;
let tmp: string;

async function get(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await api.request(url);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'arc-studio-api-'));
  // A folder as a user might mount it: good tasks, broken ones, a file saved with a byte order mark.
  await copyFile(path.join(ROOT, 'data/tasks/samples/fill-closed-boxes.json'), path.join(tmp, 'good.json'));
  await copyFile(path.join(BROKEN, 'ragged-row.json'), path.join(tmp, 'ragged-row.json'));
  await copyFile(path.join(BROKEN, 'not-json.json'), path.join(tmp, 'not-json.json'));
  await writeFile(path.join(tmp, 'with-bom.json'), '\uFEFF' + (await readFile(path.join(tmp, 'good.json'), 'utf8')));
  await writeFile(path.join(tmp, 'deleted-later.json'), await readFile(path.join(tmp, 'good.json'), 'utf8'));

  library = new TaskLibrary();
  await library.mount('data/tasks/samples', ROOT);
  await library.mount('../shared/data/arc-agi-1', ROOT, 'practice');
  await library.mount(`My uploads=${tmp}`, ROOT, 'practice');
  api = createApi({ library, version: '9.9.9-test' });
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('the task API', () => {
  it('answers /health', async () => {
    expect(await get('/health')).toEqual({ status: 200, body: { ok: true, version: '9.9.9-test' } });
  });

  it('lists the mounted collections with their task counts', async () => {
    expect(await get('/collections')).toEqual({
      status: 200,
      body: {
        collections: [
          { id: 'samples', name: 'samples', count: 14, access: 'sealed' },
          { id: 'arc-agi-1', name: 'arc-agi-1', count: 800, access: 'practice' },
          { id: 'my-uploads', name: 'My uploads', count: 5, access: 'practice' },
        ],
      },
    });
  });

  it('lists task ids, sorted, with subfolders in the id', async () => {
    const arc = (await get('/collections/arc-agi-1/tasks')).body.tasks as string[];
    expect(arc).toEqual([...arc].sort());
    expect(arc).toContain('training/007bbfb7');
    expect(arc).toHaveLength(800);
    expect(arc.filter((id) => id.startsWith('training/'))).toHaveLength(400);
    expect(arc.filter((id) => id.startsWith('evaluation/'))).toHaveLength(400);
  });

  it('serves a practice task without its test outputs', async () => {
    const { status, body } = await get('/collections/my-uploads/tasks/good');
    expect(status).toBe(200);
    const parsed = parseTaskText(await readFile(path.join(ROOT, 'data/tasks/samples/fill-closed-boxes.json'), 'utf8'));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(body).toEqual({ task: withoutAnswers(parsed.task), access: 'practice' });
    expect((body.task as { test: object[] }).test.every((t) => !('output' in t))).toBe(true);
  });

  it('keeps a sealed collection closed without the researcher token', async () => {
    for (const url of ['/collections/samples/tasks', '/collections/samples/tasks/most-common-color']) {
      const { status, body } = await get(url);
      expect(status).toBe(401);
      expect(body.error).toBe('sealed');
      expect(body.message).toBe(
        'Collection "samples" is sealed: its tasks are for studies, and only the researcher may open them. Log in as researcher to preview it, or play a practice collection.',
      );
    }
  });

  it('serves a task whose id contains a slash', async () => {
    const { status, body } = await get('/collections/arc-agi-1/tasks/training/007bbfb7');
    expect(status).toBe(200);
    const task = body.task as { train: unknown[]; test: { input: number[][] }[] };
    expect(task.train.length).toBeGreaterThan(0);
    expect(task.test[0].input.length).toBeGreaterThan(0);
  });

  it('serves a task file saved with a byte order mark', async () => {
    const bom = await get('/collections/my-uploads/tasks/with-bom');
    const plain = await get('/collections/my-uploads/tasks/good');
    expect(bom.status).toBe(200);
    expect(bom.body).toEqual(plain.body);
  });

  it('answers 404 with a message for an unknown collection', async () => {
    expect(await get('/collections/nope/tasks')).toEqual({
      status: 404,
      body: {
        error: 'not_found',
        message: 'No collection "nope". Open the task browser to see the collections this server has.',
      },
    });
    const task = await get('/collections/nope/tasks/fill-closed-boxes');
    expect(task).toEqual({
      status: 404,
      body: {
        error: 'not_found',
        message: 'No collection "nope". Open the task browser to see the collections this server has.',
      },
    });
  });

  it('answers 404 with a message for an unknown task', async () => {
    expect(await get('/collections/my-uploads/tasks/no-such-task')).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'No task "no-such-task" in collection "My uploads".' },
    });
    // A task id is the file name without .json; the file name itself is not an id.
    expect((await get('/collections/my-uploads/tasks/good.json')).status).toBe(404);
  });

  it('answers 422 with the file name and the reason for a broken task file', async () => {
    expect(await get('/collections/my-uploads/tasks/ragged-row')).toEqual({
      status: 422,
      body: { error: 'invalid_task', message: 'ragged-row.json: test[0].input row 3 has 7 cells, row 0 has 8' },
    });
    const notJson = await get('/collections/my-uploads/tasks/not-json');
    expect(notJson.status).toBe(422);
    expect(notJson.body.error).toBe('invalid_task');
    expect(notJson.body.message).toMatch(/^not-json\.json: is not valid JSON \(/);
  });

  it('answers 404 with advice when a listed file was deleted after mounting', async () => {
    await unlink(path.join(tmp, 'deleted-later.json'));
    const { status, body } = await get('/collections/my-uploads/tasks/deleted-later');
    expect(status).toBe(404);
    expect(body.error).toBe('not_found');
    expect(body.message).toBe(
      `Task file ${path.join(tmp, 'deleted-later.json')} can no longer be read: it was moved or deleted after the server started. Restart the server to list the folder again.`,
    );
  });

  it('answers 404 in JSON for an unknown route', async () => {
    expect(await get('/nothing-here')).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'No API route GET /nothing-here. The routes are listed in docs/api.md.' },
    });
  });
});

describe('TaskLibrary.mount', () => {
  it('refuses a folder that does not exist, saying what to give instead', async () => {
    await expect(new TaskLibrary().mount('no/such/dir', ROOT)).rejects.toThrow(
      '--tasks no/such/dir: no such folder. Give a folder that holds ARC task .json files.',
    );
  });

  it('makes collection ids unique when two folders share a name', async () => {
    const lib = new TaskLibrary();
    const a = await lib.mount('data/tasks/samples', ROOT);
    const b = await lib.mount('Samples=data/tasks/samples', ROOT, 'practice');
    expect([a.id, b.id]).toEqual(['samples', 'samples-2']);
    expect([a.access, b.access]).toEqual(['sealed', 'practice']);
    expect(lib.list().map((c) => c.count)).toEqual([14, 14]);
  });
});
