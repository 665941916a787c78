import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type EnvChanges, runCli, spawnCli } from './testing';
import {
  FIXTURE_GAMES as FIXTURES,
  OFFICIAL_GAMES as OFFICIAL,
  PYTHONPATH,
  TG01_SOLUTION as TG01_WIN,
} from '../server/testing/arc3Vendor';

/** The tg01 fixture's recorded solution (its README): 10 actions per level. */
const TG01_SOLUTION = ['RESET', ...TG01_WIN].join(',');

const ENV = { ARC_STUDIO_PYTHONPATH: PYTHONPATH, ARC_STUDIO_ARC3_GAMES: '', PYTHONDONTWRITEBYTECODE: '1' };
/** In this process; the first listing below runs the real binary. */
const cli = (env: EnvChanges, ...args: string[]) => runCli(args, { ...ENV, ...env });

describe('arc-studio games with arcengine games', () => {
  it('lists the built-in games, then each arcengine game: short id, title, levels, actions, id with version, tags (the real binary)', () => {
    const r = spawnCli(['games', 'list', '--arc3-games', OFFICIAL, '--arc3-games', FIXTURES], ENV);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines.map((l) => l.split('\t')[0])).toEqual(['push', 'glow', 'flux', 'ft09', 'ls20', 'tg01', 'vc33']);
    expect(lines).toContain('ls20\tLS20\t7 levels\tACTION1,ACTION2,ACTION3,ACTION4\tls20-9607627b\tkeyboard');
    expect(lines).toContain(
      'tg01\tTG01 Gatekeeper\t2 levels\tACTION1,ACTION2,ACTION3,ACTION4,ACTION6\ttg01-5e1f0a27\tkeyboard,click',
    );
  });

  it('takes the folders from ARC_STUDIO_ARC3_GAMES, separated by the path delimiter', async () => {
    const r = await cli({ ARC_STUDIO_ARC3_GAMES: [OFFICIAL, FIXTURES].join(path.delimiter) }, 'games', 'list');
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(7);
  });

  it('plays the fixture game by its solution to a WIN with the official per-level counts', async () => {
    const r = await cli(
      { ARC_STUDIO_ARC3_GAMES: FIXTURES },
      'games',
      'play',
      'tg01-5e1f0a27',
      '--actions',
      TG01_SOLUTION,
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(out).toMatchObject({
      game: 'tg01',
      version: 'tg01-5e1f0a27',
      state: 'WIN',
      levels_completed: 2,
      win_levels: 2,
      actions: 20,
      level_actions: [10, 10],
      runs: 1,
      engine: 'arcengine 0.9.3',
      available_actions: [1, 2, 3, 4, 6],
    });
    expect(out.frame_hash).toMatch(/^[0-9a-f]{8}$/);
  });

  it('resolves a short id to its one version; a level RESET counts in its level, two RESETs start a new run', async () => {
    const r = await cli(
      {},
      'games',
      'play',
      'ls20',
      '--arc3-games',
      OFFICIAL,
      '--actions',
      'RESET,ACTION1,ACTION1,RESET,ACTION1,RESET,RESET,ACTION3',
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      game: 'ls20',
      version: 'ls20-9607627b',
      state: 'NOT_FINISHED',
      runs: 2,
      actions: 1,
      level_actions: [1],
    });
  });

  it('refuses a short id with several versions, listing them', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arc3-versions-'));
    try {
      cpSync(path.join(FIXTURES, 'tg01/5e1f0a27'), path.join(dir, 'tg01/5e1f0a27'), { recursive: true });
      cpSync(path.join(FIXTURES, 'tg01/5e1f0a27'), path.join(dir, 'tg01/00000001'), { recursive: true });
      const meta = path.join(dir, 'tg01/00000001/metadata.json');
      writeFileSync(meta, readFileSync(meta, 'utf8').replace('tg01-5e1f0a27', 'tg01-00000001'));
      const r = await cli({}, 'games', 'play', 'tg01', '--arc3-games', dir, '--actions', 'RESET');
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toContain('tg01 has several versions (tg01-00000001, tg01-5e1f0a27); name one of them in full');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown game, naming the games there are', async () => {
    const r = await cli({}, 'games', 'play', 'zz01', '--arc3-games', FIXTURES, '--actions', 'RESET');
    expect(r.code).toBe(1);
    expect(r.err).toContain('no game zz01; games: tg01-5e1f0a27');
  });

  it('without Python says what is missing and how to install it, exits 1, and still lists the built-in games', async () => {
    const r = await cli(
      { ARC_STUDIO_PYTHON: path.resolve('no-such-python3') },
      'games',
      'list',
      '--arc3-games',
      FIXTURES,
    );
    expect(r.code).toBe(1);
    expect(
      r.out
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(['push', 'glow', 'flux']);
    expect(r.err).toMatch(/Python was not found at .*no-such-python3.*pip install arc-agi/);
  });

  it('without arcengine names ARC_STUDIO_PYTHONPATH', async () => {
    const r = await cli(
      { ARC_STUDIO_PYTHONPATH: path.resolve('src'), PYTHONPATH: '' },
      'games',
      'play',
      'tg01',
      '--arc3-games',
      FIXTURES,
      '--actions',
      'RESET',
    );
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('ARC_STUDIO_PYTHONPATH');
  });

  it('still refuses an unknown option', async () => {
    const r = await cli({}, 'games', 'list', '--arc3-game', FIXTURES);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown option "--arc3-game"');
  });
});
