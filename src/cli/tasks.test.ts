import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTaskPaths } from './tasks';
import { runCli, spawnCli } from './testing';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TRAINING = '../shared/data/arc-agi-1/training';
const EVALUATION = '../shared/data/arc-agi-1/evaluation';
const BROKEN = 'e2e/fixtures/broken-tasks';
const SAMPLES = 'data/tasks/samples';

/** The command in this process (`runCli`); the real binary has one test of its own below. */
async function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await runCli(args);
  return { code: r.code, stdout: r.out, stderr: r.err };
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
    const root = path.join(tmp, 'nested');
    await mkdir(path.join(root, 'a', 'b'), { recursive: true });
    const sample = (name: string) => path.join(ROOT, SAMPLES, `${name}.json`);
    await copyFile(sample('fill-closed-boxes'), path.join(root, 'top.json'));
    await copyFile(sample('mirror-across-wall'), path.join(root, 'a', 'one.json'));
    await copyFile(path.join(ROOT, BROKEN, 'value-11.json'), path.join(root, 'a', 'b', 'two.json'));
    expect(await checkTaskPaths([root])).toEqual({
      valid: 2,
      invalid: [{ file: path.join(root, 'a', 'b', 'two.json'), reason: 'train[1].output[2][4] is 11, must be 0-9' }],
    });
  });
});

describe('arc-studio tasks check', () => {
  it('checks the ARC-AGI-1 folder (its subfolders too) as the real binary: "800 valid, 0 invalid", exit 0', () => {
    const r = spawnCli(['tasks', 'check', '../shared/data/arc-agi-1']);
    expect(r.err).toBe('');
    expect(lines(r.out)).toEqual(['800 valid, 0 invalid']);
    expect(r.code).toBe(0);
  });

  it('prints one line per broken file, then the totals, and exits non-zero', async () => {
    const files = (await readdir(path.join(ROOT, BROKEN))).filter((f) => f.endsWith('.json')).sort();
    const r = await cli('tasks', 'check', BROKEN);
    const out = lines(r.stdout);
    expect(out).toHaveLength(files.length + 1);
    expect(out[out.length - 1]).toBe(`0 valid, ${files.length} invalid`);
    files.forEach((f, i) => expect(out[i].startsWith(`${path.join(BROKEN, f)}: `)).toBe(true));
    expect(out).toContain(`${path.join(BROKEN, 'ragged-row.json')}: test[0].input row 3 has 7 cells, row 0 has 8`);
    expect(r.code).not.toBe(0);
  });

  it('says so when a path does not exist', async () => {
    const r = await cli('tasks', 'check', 'no/such/folder');
    expect(lines(r.stdout)).toEqual([
      'no/such/folder: no such file or folder; check the path, or name a task .json file or a folder that holds them',
      '0 valid, 1 invalid',
    ]);
    expect(r.code).toBe(1);
  });

  it('asks for a path when none is given', async () => {
    const r = await cli('tasks', 'check');
    expect(r.stderr.trim().split('\n')).toEqual([
      'arc-studio tasks: name at least one task file or folder.',
      'Usage: arc-studio tasks check <file|dir>...',
      '"arc-studio tasks check --help" describes every option.',
    ]);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
  });

  it('asks for a subcommand when none is given, and names an unknown one', async () => {
    const usage = '\nUsage: arc-studio tasks check <file|dir>...\n"arc-studio tasks --help" describes every option.';
    const noSub = await cli('tasks');
    expect(noSub.stderr.trim()).toBe(`arc-studio tasks: name a subcommand: check.${usage}`);
    expect(noSub.code).toBe(2);
    const unknownSub = await cli('tasks', 'lint', SAMPLES);
    expect(unknownSub.stderr.trim()).toBe(`arc-studio tasks: unknown subcommand "lint"; subcommands: check.${usage}`);
    expect(unknownSub.code).toBe(2);
  });
});
