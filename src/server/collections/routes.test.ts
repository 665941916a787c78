import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { parseTaskText, withoutAnswers, type ArcTask } from '../../core/formats/arcTask';
import { parseStudy, type StudyDefinition } from '../../core/study/schema';
import { hashToken } from '../people/auth';
import { TaskLibrary } from './collections';
import { collectionsRoutes } from './routes';
import { checkStudyReferences, studyReferenceProblems } from '../study/studies';
import { unsealedStudies } from '../serve';
import { backends } from '../store/testing';
import { apiCaller } from '../testing/api';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-tests-0123456789';
const SAMPLES = path.join(ROOT, 'data/tasks/samples');
const WARM_UPS = path.join(ROOT, 'data/practice/warm-ups');

const taskFile = (dir: string, id: string): ArcTask => {
  const parsed = parseTaskText(readFileSync(path.join(dir, `${id}.json`), 'utf8'));
  if (!parsed.ok) throw new Error(id);
  return parsed.task;
};

let library: TaskLibrary;
let api: Hono;
beforeAll(async () => {
  library = new TaskLibrary();
  await library.mount(SAMPLES);
  await library.mount(WARM_UPS, ROOT, 'practice');
  api = new Hono().route('/', collectionsRoutes({ library, adminTokenHash: hashToken(ADMIN) }));
});

const call = apiCaller(() => api);

const study = (items: unknown[]): StudyDefinition => {
  const parsed = parseStudy({ title: 't', consent: 'c', items, completion: { code: 'X' } });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.study;
};

describe('sealed collections', () => {
  it('are listed with their access, so the task browser can say which are sealed', async () => {
    expect((await call('GET', '/collections', null)).body.collections).toEqual([
      { id: 'samples', name: 'samples', count: 14, access: 'sealed' },
      { id: 'warm-ups', name: 'warm-ups', count: 8, access: 'practice' },
    ]);
  });

  it('open to the researcher only, answers included', async () => {
    const full = await call('GET', '/collections/samples/tasks/mirror-across-wall', ADMIN);
    expect(full).toEqual({ status: 200, body: { task: taskFile(SAMPLES, 'mirror-across-wall'), access: 'sealed' } });
    expect((await call('GET', '/collections/samples/tasks', ADMIN)).body.tasks).toHaveLength(14);

    for (const url of ['/collections/samples/tasks', '/collections/samples/tasks/mirror-across-wall']) {
      expect((await call('GET', url, null)).status).toBe(401);
      const other = await call('GET', url, 'a-participant-session-token-0123456789ab');
      expect(other.status).toBe(403);
      expect(other.body.error).toBe('sealed');
    }
  });

  it('check no answer for anyone: studies judge them within trials', async () => {
    const answer = taskFile(SAMPLES, 'mirror-across-wall').test[0].output;
    for (const token of [null, 'a-participant-session-token-0123456789ab', ADMIN]) {
      const r = await call('POST', '/collections/samples/tasks/mirror-across-wall/check', token, {
        testIndex: 0,
        grid: answer,
      });
      expect(r.status).toBe(token ? 403 : 401);
      expect(r.body).toEqual({
        error: 'sealed',
        message:
          'Collection "samples" is sealed: answers to its tasks are judged only within a study session\'s trials. Practice with a practice collection instead.',
      });
    }
  });
});

describe('practice collections', () => {
  const task = taskFile(WARM_UPS, 'swap-rows-and-columns');

  it('serve tasks to anyone without test outputs, the researcher too', async () => {
    for (const token of [null, ADMIN]) {
      expect(await call('GET', '/collections/warm-ups/tasks/swap-rows-and-columns', token)).toEqual({
        status: 200,
        body: { task: withoutAnswers(task), access: 'practice' },
      });
    }
    expect((await call('GET', '/collections/warm-ups/tasks', null)).body.tasks).toContain('swap-rows-and-columns');
  });

  it('check an answer on the server, exactly, dimensions included', async () => {
    const url = '/collections/warm-ups/tasks/swap-rows-and-columns/check';
    expect(await call('POST', url, null, { testIndex: 1, grid: task.test[1].output })).toEqual({
      status: 200,
      body: { correct: true },
    });
    expect(await call('POST', url, null, { testIndex: 0, grid: task.test[1].output })).toEqual({
      status: 200,
      body: { correct: false },
    });
    // The right cells in a grid one column wider are wrong.
    const wider = task.test[0].output!.map((row) => [...row, 0]);
    expect(await call('POST', url, null, { testIndex: 0, grid: wider })).toEqual({
      status: 200,
      body: { correct: false },
    });
  });

  it('refuse a malformed check with the reason, and an unknown task or test input', async () => {
    const url = '/collections/warm-ups/tasks/swap-rows-and-columns/check';
    const notJson = await call('POST', url, null, '{testIndex');
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toMatch(/^The request body is not valid JSON/);
    expect((await call('POST', url, null, { testIndex: -1, grid: [[1]] })).status).toBe(400);
    const ragged = await call('POST', url, null, { testIndex: 0, grid: [[1, 2], [3]] });
    expect(ragged.status).toBe(400);
    expect(ragged.body.message).toMatch(/^The grid is not valid: grid row 1 has 1 cells?, row 0 has 2/);
    expect(await call('POST', url, null, { testIndex: 2, grid: [[1]] })).toEqual({
      status: 400,
      body: {
        error: 'malformed',
        message: 'Task "swap-rows-and-columns" has 2 test inputs; there is no test input 2.',
      },
    });
    expect(
      (await call('POST', '/collections/warm-ups/tasks/nope/check', null, { testIndex: 0, grid: [[1]] })).status,
    ).toBe(404);
    expect((await call('POST', '/collections/nope/tasks/x/check', null, { testIndex: 0, grid: [[1]] })).status).toBe(
      404,
    );
    const huge = await call('POST', url, null, {
      testIndex: 0,
      grid: Array.from({ length: 300 }, () => Array.from({ length: 300 }, () => 1)),
    });
    expect(huge.status).toBe(413);
  });
});

describe('the sealing rule for studies', () => {
  it('refuses a counted item from a practice collection, and allows a practice item', async () => {
    const counted = study([{ kind: 'task', id: 'a', collection: 'warm-ups', task: 'grey-frame' }]);
    expect(await library.sealingProblems(counted)).toEqual([
      'items[0] (a): collection "warm-ups" is a practice collection, whose answers anyone can check without limit, so it cannot hold a counted item. Mount the folder with --tasks (sealed), or mark the item "practice": true',
    ]);
    expect(await checkStudyReferences(counted, library, null)).toHaveLength(1);
    // Apart from what the server does not have, for the study editor to show under its own heading.
    const both = study([...counted.items, { kind: 'task', id: 'b', collection: 'samples', task: 'no-such-task' }]);
    expect(await studyReferenceProblems(both, library, null)).toEqual({
      references: ['items[1] (b): No task "no-such-task" in collection "samples".'],
      sealing: [expect.stringMatching(/^items\[0\] \(a\): collection "warm-ups" is a practice collection/)],
    });
    const practice = study([
      { kind: 'task', id: 'a', collection: 'warm-ups', task: 'grey-frame', practice: true },
      { kind: 'task', id: 'b', collection: 'samples', task: 'mirror-across-wall' },
    ]);
    expect(await library.sealingProblems(practice)).toEqual([]);
  });

  it('refuses a counted task whose test and answer a practice collection also holds', async () => {
    const lib = new TaskLibrary();
    await lib.mount(SAMPLES);
    await lib.mount(`copies=${SAMPLES}`, ROOT, 'practice');
    const s = study([{ kind: 'task', id: 'm', collection: 'samples', task: 'most-common-color', tests: [1] }]);
    expect(await lib.sealingProblems(s)).toEqual([
      'items[0] (m): test input 1 and its answer are also in practice task "most-common-color" of "copies", which anyone can see or check without limit. Remove that task from the practice folder, or mark the item "practice": true',
    ]);
  });

  it('refuses a counted task whose test and answer a practice task shows as a demonstration', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'arc-studio-practice-'));
    try {
      const counted = taskFile(SAMPLES, 'mirror-across-wall');
      const demo = {
        train: [{ input: counted.test[0].input, output: counted.test[0].output }],
        test: [{ input: [[1]], output: [[2]] }],
      };
      await writeFile(path.join(dir, 'look-alike.json'), JSON.stringify(demo));
      const lib = new TaskLibrary();
      await lib.mount(SAMPLES);
      await lib.mount(`demos=${dir}`, ROOT, 'practice');
      expect(
        await lib.sealingProblems(
          study([{ kind: 'task', id: 'm', collection: 'samples', task: 'mirror-across-wall' }]),
        ),
      ).toEqual([
        expect.stringMatching(
          /^items\[0\] \(m\): test input 0 and its answer are also in practice task "look-alike" of "demos"/,
        ),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each(backends)('keeps the server from starting with a stored study that breaks it ($name)', async (backend) => {
    const store = await backend.open();
    try {
      await store.saveStudy(
        'leaky',
        study([{ kind: 'task', id: 'a', collection: 'warm-ups', task: 'grey-frame' }]),
        'file',
        0,
      );
      await store.saveStudy(
        'fine',
        study([{ kind: 'task', id: 'a', collection: 'samples', task: 'mirror-across-wall' }]),
        'file',
        0,
      );
      expect(await unsealedStudies(store, library)).toEqual([
        expect.stringMatching(/^study "leaky": items\[0\] \(a\): collection "warm-ups" is a practice collection/),
      ]);
    } finally {
      await store.close();
    }
  });
});
