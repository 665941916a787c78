import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTaskPaths } from './tasks';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TRAINING = '../shared/data/arc-agi-1/training';
const EVALUATION = '../shared/data/arc-agi-1/evaluation';
const BROKEN = 'e2e/fixtures/broken-tasks';
const SAMPLES = 'data/tasks/samples';

/** Runs the real command, as a user would from the project folder. */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/arc-studio.mjs', ...args], { cwd: ROOT }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'arc-studio-tasks-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('checkTaskPaths', () => {
  it('finds all 800 ARC-AGI-1 tasks valid', async () => {
    const r = await checkTaskPaths([path.join(ROOT, TRAINING), path.join(ROOT, EVALUATION)]);
    expect(r).toEqual({ valid: 800, invalid: [] });
  });

  it('finds every broken fixture invalid, each with its reason', async () => {
    const dir = path.join(ROOT, BROKEN);
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
    const r = await checkTaskPaths([dir]);
    expect(r.valid).toBe(0);
    expect(r.invalid.map((x) => path.basename(x.file))).toEqual(files);
    const reason = (name: string) => r.invalid.find((x) => path.basename(x.file) === name)!.reason;
    expect(reason('ragged-row.json')).toBe('test[0].input row 3 has 7 cells, row 0 has 8');
    expect(reason('value-11.json')).toBe('train[1].output[2][4] is 11, must be 0-9');
    expect(reason('missing-test.json')).toBe('test is missing');
    expect(reason('not-json.json')).toMatch(/^is not valid JSON \(/);
    for (const x of r.invalid) expect(x.reason.length).toBeGreaterThan(0);
  });

  it('names the file inside the folder it came from', async () => {
    const r = await checkTaskPaths([path.join(ROOT, BROKEN)]);
    for (const x of r.invalid) expect(path.dirname(x.file)).toBe(path.join(ROOT, BROKEN));
  });

  it('checks single files and mixes them with folders', async () => {
    const r = await checkTaskPaths([
      path.join(ROOT, SAMPLES, 'fill-closed-boxes.json'),
      path.join(ROOT, BROKEN, 'value-11.json'),
      path.join(ROOT, SAMPLES),
    ]);
    expect(r.valid).toBe(15);
    expect(r.invalid).toEqual([
      { file: path.join(ROOT, BROKEN, 'value-11.json'), reason: 'train[1].output[2][4] is 11, must be 0-9' },
    ]);
  });

  it('accepts a task file saved with a byte order mark', async () => {
    const file = path.join(tmp, 'bom.json');
    await writeFile(file, '\uFEFF' + (await readFile(path.join(ROOT, SAMPLES, 'mirror-across-wall.json'), 'utf8')));
    expect(await checkTaskPaths([file])).toEqual({ valid: 1, invalid: [] });
  });

  it('reports a missing path and a folder without task files', async () => {
    const empty = await mkdtemp(path.join(tmp, 'empty-'));
    await writeFile(path.join(empty, 'notes.txt'), 'not a task');
    const missing = path.join(tmp, 'no-such-folder');
    const r = await checkTaskPaths([missing, empty]);
    expect(r).toEqual({
      valid: 0,
      invalid: [
        {
          file: missing,
          reason: 'no such file or folder; check the path, or name a task .json file or a folder that holds them',
        },
        { file: empty, reason: 'folder holds no .json task files' },
      ],
    });
  });

  it('finds task files in subfolders', async () => {
    const r = await checkTaskPaths([path.resolve(ROOT, '../shared/data/arc-agi-1')]);
    expect(r).toEqual({ valid: 800, invalid: [] });
  });
});

describe('arc-studio tasks check', () => {
  type Run = Awaited<ReturnType<typeof cli>>;
  let runs: Record<'arc' | 'broken' | 'missing' | 'noPath' | 'noSub' | 'unknownSub', Run>;
  // Each run starts Node and the TypeScript loader; starting them together keeps the suite quick.
  beforeAll(async () => {
    const [arc, broken, missing, noPath, noSub, unknownSub] = await Promise.all([
      cli('tasks', 'check', TRAINING, EVALUATION),
      cli('tasks', 'check', BROKEN),
      cli('tasks', 'check', 'no/such/folder'),
      cli('tasks', 'check'),
      cli('tasks'),
      cli('tasks', 'lint', SAMPLES),
    ]);
    runs = { arc, broken, missing, noPath, noSub, unknownSub };
  });

  it('prints "800 valid, 0 invalid" for ARC-AGI-1 and exits 0', () => {
    const r = runs.arc;
    expect(r.stderr).toBe('');
    expect(lines(r.stdout)).toEqual(['800 valid, 0 invalid']);
    expect(r.code).toBe(0);
  });

  it('prints one line per broken file, then the totals, and exits non-zero', async () => {
    const files = (await readdir(path.join(ROOT, BROKEN))).filter((f) => f.endsWith('.json')).sort();
    const r = runs.broken;
    const out = lines(r.stdout);
    expect(out).toHaveLength(files.length + 1);
    expect(out[out.length - 1]).toBe(`0 valid, ${files.length} invalid`);
    files.forEach((f, i) => expect(out[i].startsWith(`${path.join(BROKEN, f)}: `)).toBe(true));
    expect(out).toContain(`${path.join(BROKEN, 'ragged-row.json')}: test[0].input row 3 has 7 cells, row 0 has 8`);
    expect(r.code).not.toBe(0);
  });

  it('says so when a path does not exist', () => {
    expect(lines(runs.missing.stdout)).toEqual([
      'no/such/folder: no such file or folder; check the path, or name a task .json file or a folder that holds them',
      '0 valid, 1 invalid',
    ]);
    expect(runs.missing.code).toBe(1);
  });

  it('asks for a path when none is given', () => {
    const r = runs.noPath;
    expect(r.stderr.trim().split('\n')).toEqual([
      'arc-studio tasks: name at least one task file or folder.',
      'Usage: arc-studio tasks check <file|dir>...',
      '"arc-studio tasks check --help" describes every option.',
    ]);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
  });

  it('asks for a subcommand when none is given, and names an unknown one', () => {
    const usage = '\nUsage: arc-studio tasks check <file|dir>...\n"arc-studio tasks --help" describes every option.';
    expect(runs.noSub.stderr.trim()).toBe(`arc-studio tasks: name a subcommand: check.${usage}`);
    expect(runs.noSub.code).toBe(2);
    expect(runs.unknownSub.stderr.trim()).toBe(
      `arc-studio tasks: unknown subcommand "lint"; subcommands: check.${usage}`,
    );
    expect(runs.unknownSub.code).toBe(2);
  });
});
