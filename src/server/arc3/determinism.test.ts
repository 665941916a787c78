/**
 * A playtest's actions played twice on the official engine (`playTwice`): the public ls20 gives
 * the same frames, from level 1 and from a later level; a copy that paints one cell from numpy's
 * unseeded global generator is caught at the step it first differs, with both frames.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PLAYTEST_DETERMINISM_MAX_ACTIONS, playTwice } from './determinism';
import { Arc3Pool, type Arc3Action } from './worker';

const VENDOR = path.resolve('../shared/vendor/arc-agi-3');
const PYTHONPATH = path.join(VENDOR, 'python');
const OFFICIAL = path.join(VENDOR, 'environment_files');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);
const ENV = { ...process.env, ARC_STUDIO_PYTHONPATH: PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' };

const copy = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-unseeded-'));
cpSync(path.join(OFFICIAL, 'ls20'), path.join(copy, 'ls20'), { recursive: true });
const file = path.join(copy, 'ls20/9607627b/ls20.py');
const hook = '    def render_interface(self, frame: np.ndarray) -> np.ndarray:\n';
const source = readFileSync(file, 'utf8');
if (!source.includes(hook)) throw new Error('ls20 no longer has the render_interface this test patches');
writeFileSync(file, source.replace(hook, `${hook}        frame[63, 63] = int(np.random.randint(0, 16))\n`));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** Level 1 of ls20: left x3, up x4, right x3, up x3 (ACTION3 left, ACTION1 up, ACTION4 right). */
const LEVEL1: Arc3Action[] = [
  'ACTION3',
  'ACTION3',
  'ACTION3',
  'ACTION1',
  'ACTION1',
  'ACTION1',
  'ACTION1',
  'ACTION4',
  'ACTION4',
  'ACTION4',
  'ACTION1',
  'ACTION1',
  'ACTION1',
].map((a) => ({ action: a as Arc3Action['action'] }));

describe('playTwice on the official engine', () => {
  it('finds the public ls20 deterministic, from level 1 and from level 3, with a RESET among the actions', async () => {
    const pool = new Arc3Pool({ gameDirs: [OFFICIAL], size: 1, env: ENV, timeoutMs: 60_000 });
    try {
      expect(await playTwice(pool, 'ls20', { seed: 0, level: 0, actions: LEVEL1, runKey: 'det-1' })).toEqual({
        deterministic: true,
        steps: 13,
      });
      const later = [...LEVEL1.slice(0, 4), { action: 'RESET' } as Arc3Action, ...LEVEL1.slice(0, 2)];
      expect(await playTwice(pool, 'ls20', { seed: 3, level: 2, actions: later, runKey: 'det-2' })).toEqual({
        deterministic: true,
        steps: 7,
      });
    } finally {
      await pool.stop();
    }
  });

  it('names the first step whose frames differ in a copy with an unseeded random call, and answers both frames', async () => {
    const pool = new Arc3Pool({ gameDirs: [copy], size: 1, env: ENV, timeoutMs: 60_000 });
    try {
      const r = await playTwice(pool, 'ls20', { seed: 0, level: 0, actions: LEVEL1, runKey: 'det-3' });
      if (r.deterministic) throw new Error('the unseeded copy was found deterministic');
      // Colours drawn at random agree by chance 1 time in 16 a frame: 14 steps all agreeing would be 16^-14.
      expect(r.divergence).toMatchObject({ cells: 1, first: { x: 63, y: 63 } });
      expect(r.divergence.action).toBe(
        r.divergence.step === 0 ? 'RESET (opening)' : LEVEL1[r.divergence.step - 1].action,
      );
      expect(r.grids.first?.[63][63]).toBe(r.divergence.first!.was);
      expect(r.grids.second?.[63][63]).toBe(r.divergence.first!.now);
      // Everywhere else the two frames agree.
      const others = (g: number[][] | null) => g!.flatMap((row, y) => row.filter((_, x) => x !== 63 || y !== 63));
      expect(others(r.grids.second)).toEqual(others(r.grids.first));
    } finally {
      await pool.stop();
    }
  });

  it('refuses more actions than it plays twice, saying what to do', async () => {
    const many = Array.from({ length: PLAYTEST_DETERMINISM_MAX_ACTIONS + 1 }, (): Arc3Action => ({
      action: 'ACTION1',
    }));
    const unused = {
      open: () => Promise.reject(new Error('not opened')),
      act: () => Promise.reject(new Error('not played')),
      close: () => Promise.resolve(),
    };
    await expect(playTwice(unused, 'ls20', { seed: 0, level: 0, actions: many, runKey: 'det-4' })).rejects.toThrow(
      `the playtest has ${PLAYTEST_DETERMINISM_MAX_ACTIONS + 1} actions; at most ${PLAYTEST_DETERMINISM_MAX_ACTIONS} are played twice. Restart the level and play fewer actions`,
    );
  });
});
