/**
 * `arc-studio recordings import` on a serve data folder, with recordings the official toolkit
 * writes now: a file with a malformed line is refused with its line named and nothing stored;
 * the good files become a group the store holds, with the figures the studio shows. The real
 * binary imports too.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../server/store/open';
import { seedDataDir } from '../server/store/testing';
import { runCli, spawnCli } from './testing';

const ROOT = path.resolve(__dirname, '../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const PYTHONPATH = path.join(VENDOR, 'python');
const OFFICIAL = path.join(VENDOR, 'environment_files');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);
const CHANGES = {
  ARC_STUDIO_PYTHONPATH: PYTHONPATH,
  ARC_STUDIO_ARC3_GAMES: '',
  PYTHONDONTWRITEBYTECODE: '1',
  DATABASE_URL: '',
};
const VC33 = 'vc33-5430563c';
const SOLVE_1 = Array<string>(3).fill('ACTION6:60:32');

const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-recordings-'));
const dataDir = path.join(dir, 'data');
let files: string[] = [];

beforeAll(() => {
  seedDataDir(dataDir);
  const jobs = [
    ['RESET', ...SOLVE_1, 'ACTION6:10:60'],
    ['RESET', 'ACTION6:10:60', ...SOLVE_1],
  ].map((actions) => ({
    dir: OFFICIAL,
    game: VC33,
    out: path.join(dir, 'recordings'),
    actions,
  }));
  const r = spawnSync('python3', [path.join(ROOT, 'src/core/scoring/fixtures/toolkit_recordings.py'), VENDOR], {
    input: JSON.stringify(jobs),
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, ...CHANGES },
  });
  if (r.status !== 0) throw new Error(`the official toolkit failed: ${r.stderr}`);
  files = JSON.parse(r.stdout) as string[];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const importArgs = (group: string, paths: readonly string[]) => [
  'recordings',
  'import',
  '--data-dir',
  dataDir,
  '--arc3-games',
  OFFICIAL,
  '--game',
  VC33,
  '--group',
  group,
  ...paths,
];

describe('arc-studio recordings import', () => {
  it('refuses a file with a malformed line, naming it, and stores nothing', async () => {
    const bad = path.join(dir, 'bad.recording.jsonl');
    const lines = readFileSync(files[0], 'utf8').split('\n');
    writeFileSync(bad, [lines[0], '{"data": {"game_id": "vc33-5430563c"}}', ...lines.slice(1)].join('\n'));
    const r = await runCli(importArgs('cli', [files[1], bad]), CHANGES);
    expect(r.code).toBe(1);
    expect(r.err).toContain('bad.recording.jsonl:2: data.action_input is missing');
    const store = await openStore({ dataDir });
    try {
      expect(await store.references.listReferenceGroups(null)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('imports the good files as a group, with the figures the studio shows', async () => {
    const r = await runCli(importArgs('cli', files), CHANGES);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Imported reference group "cli" of ${VC33}`);
    // Level 1 took 3 and 4 actions: median 3.5.
    expect(r.out).toContain('level 1: 2 of 2 completed it, median 3.5 actions');
    const store = await openStore({ dataDir });
    try {
      const [group] = await store.references.listReferenceGroups(VC33);
      expect(group).toMatchObject({ name: 'cli', recordings: 2, createdBy: 'cli' });
      expect(group.version).toMatch(/^vc33-5430563c@\w+$/);
    } finally {
      await store.close();
    }
  });

  it("scores an agent's recording against the group with score --baselines reference:NAME", async () => {
    const r = await runCli(
      ['score', files[0], '--baselines', 'reference:cli', '--data-dir', dataDir, '--json'],
      CHANGES,
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as {
      result: {
        games: { game: string; participants: number; runs: { levels: { human: { value: number | null } }[] }[] }[];
      };
    };
    // The group's two recordings took 3 and 4 actions on level 1: upper median 4.
    expect(report.result.games[0]).toMatchObject({ game: VC33, participants: 2 });
    expect(report.result.games[0].runs[0].levels[0].human.value).toBe(4);
    const none = await runCli(['score', files[0], '--baselines', 'reference:nobody', '--data-dir', dataDir], CHANGES);
    expect(none.code).toBe(1);
    expect(none.err).toContain('has no reference group "nobody"');
  });

  it('runs as the real binary', () => {
    const r = spawnCli(importArgs('binary', files), CHANGES);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Imported reference group "binary"');
  });
});
