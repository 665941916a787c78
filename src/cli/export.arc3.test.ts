/**
 * `arc-studio export` of a study with an arcengine game: with the folders the server mounts
 * (`--arc3-games`), the game's logs are verified by the official engine and its levels and
 * version are in the baselines file; without them the file names only the built-in games.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBaselines } from '../core/scoring/baselines';
import { runCli } from './testing';
import { readZip } from '../server/export/zip';
import { readGameFolder } from '../server/arc3/gameCode';
import {
  ENGINE_CHANGES as CHANGES,
  FIXTURES,
  GATE_STUDY,
  TG01,
  TG01_LEVEL_1,
  logRun,
  playRun,
  withPlayingApi,
} from './arc3Testing';

const ENV = { ...process.env, ...CHANGES };
const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-export-arc3-'));
const dataDir = path.join(dir, 'data');

/** `arc-studio export` in this process (export.test.ts runs the real binary). */
const cli = (...args: string[]) => runCli(['export', ...args], CHANGES);

beforeAll(async () => {
  // One participant plays the fixture's first level on the official engine, through the routes.
  const games = { dirs: [FIXTURES], servers: [], env: ENV, workers: 1 };
  await withPlayingApi(dataDir, games, { id: 'gate', definition: GATE_STUDY }, async ({ post, arc3 }) => {
    const played = await playRun(post, 'gate', 'gate', { PROLIFIC_PID: 'p1' }, TG01_LEVEL_1);
    expect(played.steps[played.steps.length - 1].levels_completed).toBe(1);
    // Answered before stored: the steps land before the item's end.
    await arc3.service.stepsStored();
    await logRun(post, played, 'gate', TG01);
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('arc-studio export with arcengine games', () => {
  it('verifies their logs and puts their levels and version in the baselines when given the folders', async () => {
    const with3 = path.join(dir, 'with.json');
    const r = await cli(
      '--study',
      'gate',
      '--format',
      'baselines',
      '--out',
      with3,
      '--data-dir',
      dataDir,
      '--arc3-games',
      FIXTURES,
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const game = parseBaselines(readFileSync(with3, 'utf8')).games[TG01];
    // Under the game's id (its runs' code is the one mounted), the version naming that code.
    expect(game).toMatchObject({
      version: expect.stringMatching(new RegExp(`^${TG01}@[0-9a-f]{12}$`)),
      participants: 1,
    });
    expect(game.levels).toHaveLength(2);
    expect(game.levels[0]).toMatchObject({ level: 1, completers: 1, actions: [10], baseline: { best: 10 } });

    // Without the folders the game cannot be resolved: refused, naming it and the flag, nothing written.
    const without = path.join(dir, 'without.json');
    const refused = await cli('--study', 'gate', '--format', 'baselines', '--out', without, '--data-dir', dataDir);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`study "gate" plays "${TG01}", which is not built in`);
    expect(refused.err).toContain('--arc3-games DIR');
    expect(existsSync(without)).toBe(false);
    // ARC_STUDIO_ARC3_GAMES is the default, as for serve.
    const fromEnv = path.join(dir, 'env.json');
    const r2 = await runCli(
      ['export', '--study', 'gate', '--format', 'baselines', '--out', fromEnv, '--data-dir', dataDir],
      { ...CHANGES, ARC_STUDIO_ARC3_GAMES: FIXTURES },
    );
    expect(r2.code, r2.err).toBe(0);
    expect(parseBaselines(readFileSync(fromEnv, 'utf8')).games[TG01].levels[0]).toMatchObject({
      completers: 1,
      actions: [10],
    });
  });

  it("scores a recording against the study's baselines with its arcengine games mounted, and refuses without them", async () => {
    const recordings = path.join(dir, 'recordings');
    expect(
      (
        await cli(
          '--study',
          'gate',
          '--format',
          'recordings',
          '--out',
          recordings,
          '--data-dir',
          dataDir,
          '--arc3-games',
          FIXTURES,
        )
      ).code,
    ).toBe(0);
    const file = path.join(recordings, readdirSync(recordings)[0]);
    const score = (...extra: string[]) =>
      runCli(['score', file, '--baselines', 'study:gate', '--data-dir', dataDir, '--json', ...extra], CHANGES);
    const scored = await score('--arc3-games', FIXTURES);
    expect(scored.code, scored.err).toBe(0);
    const report = JSON.parse(scored.out) as {
      result: {
        games: {
          game: string;
          hasBaselines: boolean;
          counted: number;
          runs: { levels: { score: number | null }[] }[];
        }[];
      };
    };
    // The participant's own run against a baseline of that run: level 1 at the baseline scores 1.
    const game = report.result.games.find((g) => g.game === TG01)!;
    expect(game.hasBaselines).toBe(true);
    expect(game.runs[game.counted].levels[0].score).toBe(1);
    const refusedScore = await score();
    expect(refusedScore.code).toBe(1);
    expect(refusedScore.err).toContain(`--baselines study:gate: study "gate" plays "${TG01}"`);
  });

  it("writes the bundle with the game's recorded and mounted versions, its run's version and the survey file", async () => {
    const zip = path.join(dir, 'bundle.zip');
    const r = await cli(
      '--study',
      'gate',
      '--format',
      'zip',
      '--out',
      zip,
      '--data-dir',
      dataDir,
      '--arc3-games',
      FIXTURES,
    );
    expect(r.code, r.err).toBe(0);
    const files = new Map(readZip(readFileSync(zip)).map((e) => [e.name, e.data.toString('utf8')]));
    const hash = (await readGameFolder(path.join(FIXTURES, 'tg01/5e1f0a27'))).hash;
    const versions = JSON.parse(files.get('game-versions.json')!) as {
      startedWith: Record<string, unknown>[];
      versions: Record<string, unknown>[];
    };
    // The mounted folder is the one the participant played: the study's version has not changed.
    expect(versions.startedWith).toEqual([
      expect.objectContaining({ gameId: TG01, version: `${TG01}@${hash}`, current: `${TG01}@${hash}`, changed: false }),
    ]);
    expect(versions.versions).toEqual([
      expect.objectContaining({
        version: `${TG01}@${hash}`,
        runs: 1,
        startedWith: true,
        current: true,
        codeKept: true,
      }),
    ]);
    const runs = files
      .get('game-runs.jsonl')!
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ item: 'gate', run: 1, version: `${TG01}@${hash}`, source: 'arcengine' });
    expect(files.has(`recordings/${runs[0].recording as string}`)).toBe(true);
    expect(JSON.parse(files.get('surveys.json')!)).toMatchObject({ studyId: 'gate', surveys: [] });
    // The survey summaries on their own: the bundle's file.
    const surveys = path.join(dir, 'surveys.json');
    expect((await cli('--study', 'gate', '--format', 'surveys', '--out', surveys, '--data-dir', dataDir)).code).toBe(0);
    expect(readFileSync(surveys, 'utf8')).toBe(files.get('surveys.json'));
  });
});
