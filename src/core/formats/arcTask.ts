/**
 * ARC task JSON: `{"train": [{"input", "output"}...], "test": [{"input", "output"?}...]}`.
 *
 * Validation reports every problem it finds with its path inside the JSON, e.g.
 * `test[0].input row 3 has 7 cells, row 0 has 8` or `train[1].output[2][4] is 11, must be 0-9`.
 */
import { MAX_SIZE, type Grid } from '../grid/grid';

export interface TaskPair {
  readonly input: Grid;
  readonly output: Grid;
}

export interface TestPair {
  readonly input: Grid;
  /** Absent when the task's answers are withheld (study mode, or an unlabelled task file). */
  readonly output?: Grid;
}

export interface ArcTask {
  readonly train: readonly TaskPair[];
  readonly test: readonly TestPair[];
}

export interface TaskProblem {
  /** Where inside the JSON, e.g. `train[1].output[2][4]`; empty for the whole document. */
  readonly path: string;
  readonly reason: string;
}

export type TaskParse = { ok: true; task: ArcTask } | { ok: false; problems: TaskProblem[] };

/** Largest task file accepted, in characters: 30x30 grids leave ample room below this. */
export const MAX_TASK_CHARS = 2_000_000;
const MAX_PAIRS = 100;
const MAX_REPORTED = 20;

/** Formats a problem as one line: `path reason`, or just the reason at the top level. */
export function formatProblem(p: TaskProblem): string {
  return p.path ? `${p.path} ${p.reason}` : p.reason;
}

/** Parses and validates task JSON text; a leading UTF-8 byte order mark is ignored. Never throws. */
export function parseTaskText(text: string): TaskParse {
  if (text.length > MAX_TASK_CHARS) {
    return fail('', `is ${text.length} characters long; a task file may have at most ${MAX_TASK_CHARS}`);
  }
  // Editors on Windows often save UTF-8 with a byte order mark, which JSON.parse rejects.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '')
    return fail('', 'is empty: a task file holds JSON like {"train": [{"input": ..., "output": ...}], "test": [...]}');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (e) {
    return fail('', `is not valid JSON (${(e as Error).message})`);
  }
  return validateTask(json);
}

/** Validates an already-parsed JSON value as an ARC task. Never throws. */
export function validateTask(json: unknown): TaskParse {
  const problems: TaskProblem[] = [];
  const report = (path: string, reason: string) => {
    if (problems.length < MAX_REPORTED) problems.push({ path, reason });
  };
  if (!isObject(json)) {
    return fail('', `is ${describe(json)}; a task must be an object with "train" and "test" lists`);
  }
  const checkPairs = (key: 'train' | 'test', outputRequired: boolean) => {
    const list = json[key];
    if (list === undefined) return report(key, 'is missing');
    if (!Array.isArray(list)) return report(key, `is ${describe(list)}, must be a list of pairs`);
    if (list.length === 0)
      return report(
        key,
        key === 'train'
          ? 'is empty: a task needs at least one demonstration pair'
          : 'is empty: a task needs at least one test input',
      );
    if (list.length > MAX_PAIRS) return report(key, `has ${list.length} pairs; at most ${MAX_PAIRS} are allowed`);
    list.forEach((pair: unknown, i: number) => {
      const at = `${key}[${i}]`;
      if (!isObject(pair))
        return report(
          at,
          `is ${describe(pair)}, must be an object with "input"${outputRequired ? ' and "output"' : ''}`,
        );
      checkGrid(pair.input, `${at}.input`, report);
      if (pair.output !== undefined || outputRequired) checkGrid(pair.output, `${at}.output`, report);
    });
  };
  checkPairs('train', true);
  checkPairs('test', false);
  if (problems.length > 0) return { ok: false, problems };
  const train = (json.train as { input: Grid; output: Grid }[]).map((p) => ({ input: p.input, output: p.output }));
  const test = (json.test as { input: Grid; output?: Grid }[]).map((p) =>
    p.output === undefined ? { input: p.input } : { input: p.input, output: p.output },
  );
  return { ok: true, task: { train, test } };
}

/** Checks one grid; reports under `path`. Exported for validating submitted grids. */
export function checkGrid(value: unknown, path: string, report: (path: string, reason: string) => void): value is Grid {
  if (value === undefined) {
    report(path, 'is missing');
    return false;
  }
  if (!Array.isArray(value)) {
    report(path, `is ${describe(value)}, must be a list of rows`);
    return false;
  }
  if (value.length === 0) {
    report(path, 'has no rows; a grid is 1x1 to 30x30');
    return false;
  }
  if (value.length > MAX_SIZE) {
    report(path, `has ${value.length} rows; at most ${MAX_SIZE} are allowed`);
    return false;
  }
  let ok = true;
  let firstLen = -1;
  let firstRow = -1;
  for (let r = 0; r < value.length; r++) {
    const row: unknown = value[r];
    if (!Array.isArray(row)) {
      report(`${path}[${r}]`, `is ${describe(row)}, must be a list of cells`);
      ok = false;
      continue;
    }
    if (row.length === 0) {
      report(path, `row ${r} is empty; a grid is 1x1 to 30x30`);
      ok = false;
      continue;
    }
    if (row.length > MAX_SIZE) {
      report(path, `row ${r} has ${row.length} cells; at most ${MAX_SIZE} are allowed`);
      ok = false;
      continue;
    }
    if (firstLen < 0) {
      firstLen = row.length;
      firstRow = r;
    } else if (row.length !== firstLen) {
      report(path, `row ${r} has ${row.length} cells, row ${firstRow} has ${firstLen}`);
      ok = false;
    }
    for (let c = 0; c < row.length; c++) {
      const v: unknown = row[c];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 9) {
        report(`${path}[${r}][${c}]`, `is ${typeof v === 'number' ? String(v) : describe(v)}, must be 0-9`);
        ok = false;
      }
    }
  }
  return ok;
}

/** Validates a grid on its own (e.g. a submitted answer); returns the problems found. */
export function gridProblems(value: unknown, path = 'grid'): TaskProblem[] {
  const problems: TaskProblem[] = [];
  checkGrid(value, path, (p, reason) => {
    if (problems.length < MAX_REPORTED) problems.push({ path: p, reason });
  });
  return problems;
}

/** The task without its test outputs: what a participant's browser may see in study mode. */
export function withoutAnswers(task: ArcTask): ArcTask {
  return { train: task.train, test: task.test.map((t) => ({ input: t.input })) };
}

function fail(path: string, reason: string): TaskParse {
  return { ok: false, problems: [{ path, reason }] };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `the text ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + '…' : v)}`;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number') return `the number ${v}`;
  return `${typeof v === 'boolean' ? 'the value ' + String(v) : typeof v}`;
}
