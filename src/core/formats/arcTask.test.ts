import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_TASK_CHARS, formatProblem, gridProblems, parseTaskText, validateTask, withoutAnswers } from './arcTask';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BROKEN = path.join(ROOT, 'e2e/fixtures/broken-tasks');
const SAMPLES = path.join(ROOT, 'data/tasks/samples');
const ARC1 = path.resolve(ROOT, '../shared/data/arc-agi-1');

/** What each broken fixture must be rejected for: the exact problem lines, in order. */
const EXPECTED: Record<string, string[]> = {
  'bad-test-output': ['test[0].output[0][0] is 10, must be 0-9'],
  'empty-file': ['is empty: a task file holds JSON like {"train": [{"input": ..., "output": ...}], "test": [...]}'],
  'whitespace-only': [
    'is empty: a task file holds JSON like {"train": [{"input": ..., "output": ...}], "test": [...]}',
  ],
  'empty-row': ['train[1].output row 0 is empty; a grid is 1x1 to 30x30'],
  'empty-test': ['test is empty: a task needs at least one test input'],
  'empty-train': ['train is empty: a task needs at least one demonstration pair'],
  'fraction-value': ['train[0].output[1][2] is 1.5, must be 0-9'],
  'grid-31-rows': ['train[1].input has 31 rows; at most 30 are allowed'],
  'missing-test': ['test is missing'],
  'missing-train': ['train is missing'],
  'negative-value': ['train[0].input[0][1] is -1, must be 0-9'],
  'no-rows': ['train[0].output has no rows; a grid is 1x1 to 30x30'],
  'null-cell': ['test[0].input[2][5] is null, must be 0-9'],
  'null-grid': ['train[0].input is null, must be a list of rows'],
  'pair-not-object': ['train[0] is a list, must be an object with "input" and "output"'],
  'ragged-row': ['test[0].input row 3 has 7 cells, row 0 has 8'],
  'row-31-cells': ['test[0].input row 0 has 31 cells; at most 30 are allowed'],
  'row-not-list': ['train[0].input[1] is the number 3, must be a list of cells'],
  'string-cell': ['train[1].input[0][3] is the text "3", must be 0-9'],
  'test-missing-input': ['test[0].input is missing'],
  'too-many-pairs': ['train has 101 pairs; at most 100 are allowed'],
  'top-level-list': ['is a list; a task must be an object with "train" and "test" lists'],
  'top-level-null': ['is null; a task must be an object with "train" and "test" lists'],
  'train-missing-output': ['train[1].output is missing'],
  'train-not-list': ['train is an object, must be a list of pairs'],
  'value-11': ['train[1].output[2][4] is 11, must be 0-9'],
};

function problemsOf(text: string): string[] {
  const parsed = parseTaskText(text);
  return parsed.ok ? [] : parsed.problems.map(formatProblem);
}

function jsonFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

describe('parseTaskText on the broken fixtures', () => {
  const files = jsonFiles(BROKEN);

  it('has an expectation for every fixture file and a file for every expectation', () => {
    const ids = files.map((f) => f.replace(/\.json$/, ''));
    expect(ids.filter((id) => id !== 'not-json').sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('rejects %s with its path and reason', (id, lines) => {
    expect(problemsOf(readFileSync(path.join(BROKEN, `${id}.json`), 'utf8'))).toEqual(lines);
  });

  it('rejects text that is not JSON and quotes the parser', () => {
    const lines = problemsOf(readFileSync(path.join(BROKEN, 'not-json.json'), 'utf8'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^is not valid JSON \(.+\)$/);
  });
});

describe('parseTaskText', () => {
  const valid = readFileSync(path.join(SAMPLES, 'fill-closed-boxes.json'), 'utf8');

  it('accepts a file that starts with a UTF-8 byte order mark', () => {
    const plain = parseTaskText(valid);
    const withBom = parseTaskText('\uFEFF' + valid);
    expect(withBom.ok).toBe(true);
    expect(withBom).toEqual(plain);
  });

  it('rejects a byte order mark followed by nothing as empty', () => {
    expect(problemsOf('\uFEFF')).toEqual(EXPECTED['empty-file']);
  });

  it('rejects text longer than MAX_TASK_CHARS before parsing it', () => {
    const text = valid + ' '.repeat(MAX_TASK_CHARS - valid.length + 1);
    expect(text.length).toBe(MAX_TASK_CHARS + 1);
    expect(problemsOf(text)).toEqual([
      `is ${MAX_TASK_CHARS + 1} characters long; a task file may have at most ${MAX_TASK_CHARS}`,
    ]);
  });

  it('accepts text of exactly MAX_TASK_CHARS', () => {
    const text = valid + ' '.repeat(MAX_TASK_CHARS - valid.length);
    expect(parseTaskText(text).ok).toBe(true);
  });

  it('names the first row of a known length when an earlier row is not a list', () => {
    const task = { train: [{ input: [3, [1, 2], [1]], output: [[1]] }], test: [{ input: [[1]] }] };
    expect(problemsOf(JSON.stringify(task))).toEqual([
      'train[0].input[0] is the number 3, must be a list of cells',
      'train[0].input row 2 has 1 cells, row 1 has 2',
    ]);
  });

  it('reports every problem in one pass, with paths into train and test', () => {
    const task = { train: [{ input: [[1, 12]], output: [[1], [2, 3]] }], test: [{ output: [[1]] }] };
    expect(problemsOf(JSON.stringify(task))).toEqual([
      'train[0].input[0][1] is 12, must be 0-9',
      'train[0].output row 1 has 2 cells, row 0 has 1',
      'test[0].input is missing',
    ]);
  });

  it('caps the report at 20 problems', () => {
    const task = {
      train: [{ input: [Array.from({ length: 30 }, () => -1)], output: [[1]] }],
      test: [{ input: [[1]] }],
    };
    expect(problemsOf(JSON.stringify(task))).toHaveLength(20);
  });

  it('keeps a test without an output as a test without an answer', () => {
    const parsed = validateTask({ train: [{ input: [[1]], output: [[2]] }], test: [{ input: [[3]] }] });
    expect(parsed).toEqual({ ok: true, task: { train: [{ input: [[1]], output: [[2]] }], test: [{ input: [[3]] }] } });
    if (parsed.ok) expect('output' in parsed.task.test[0]).toBe(false);
  });

  it('drops keys other than input and output', () => {
    const parsed = validateTask({
      name: 'x',
      train: [{ input: [[1]], output: [[2]], note: 'n' }],
      test: [{ input: [[3]], output: [[4]] }],
    });
    expect(parsed).toEqual({
      ok: true,
      task: { train: [{ input: [[1]], output: [[2]] }], test: [{ input: [[3]], output: [[4]] }] },
    });
  });
});

describe('withoutAnswers', () => {
  it('removes every test output and keeps the demonstrations and test inputs', () => {
    const parsed = parseTaskText(readFileSync(path.join(SAMPLES, 'most-common-color.json'), 'utf8'));
    if (!parsed.ok) throw new Error(parsed.problems.map(formatProblem).join('; '));
    const stripped = withoutAnswers(parsed.task);
    expect(parsed.task.test).toHaveLength(2);
    expect(stripped.train).toEqual(parsed.task.train);
    expect(stripped.test).toEqual(parsed.task.test.map((t) => ({ input: t.input })));
    expect(stripped.test.every((t) => !('output' in t))).toBe(true);
    // The original is left alone: the server still needs the answers to judge.
    expect(parsed.task.test.every((t) => t.output !== undefined)).toBe(true);
  });
});

describe('gridProblems', () => {
  it('accepts 1x1 and 30x30 grids', () => {
    expect(gridProblems([[0]])).toEqual([]);
    expect(gridProblems(Array.from({ length: 30 }, () => new Array(30).fill(9)))).toEqual([]);
  });

  it('names a submitted grid under the path given', () => {
    expect(gridProblems([[1, 2], [3]], 'answer').map(formatProblem)).toEqual(['answer row 1 has 1 cells, row 0 has 2']);
    expect(gridProblems('[[1]]').map(formatProblem)).toEqual(['grid is the text "[[1]]", must be a list of rows']);
  });
});

describe('real ARC-AGI-1 tasks', () => {
  it.each(['training', 'evaluation'])('parses all 400 %s tasks with their test outputs', (folder) => {
    const dir = path.join(ARC1, folder);
    const files = jsonFiles(dir);
    expect(files).toHaveLength(400);
    const failures: string[] = [];
    for (const f of files) {
      const parsed = parseTaskText(readFileSync(path.join(dir, f), 'utf8'));
      if (!parsed.ok) failures.push(`${f}: ${parsed.problems.map(formatProblem).join('; ')}`);
      else if (parsed.task.test.some((t) => t.output === undefined)) failures.push(`${f}: a test output is missing`);
    }
    expect(failures).toEqual([]);
  });
});

describe('sample tasks', () => {
  it.each(jsonFiles(SAMPLES))('%s parses with answers for every test', (f) => {
    const parsed = parseTaskText(readFileSync(path.join(SAMPLES, f), 'utf8'));
    if (!parsed.ok) throw new Error(parsed.problems.map(formatProblem).join('; '));
    expect(parsed.task.train.length).toBeGreaterThanOrEqual(3);
    expect(parsed.task.test.every((t) => t.output !== undefined)).toBe(true);
  });
});
