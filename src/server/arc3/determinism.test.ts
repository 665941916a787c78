/**
 * A playtest's actions played again on the official engine (`playTwice`, `checkDeterminism`): the
 * public ls20 gives the same frames, from level 1 and from a later level, in the same process and
 * in two fresh ones; a copy that paints one cell from numpy's unseeded global generator is caught
 * at the step it first differs, with both frames; a game whose frames depend on the process's
 * hash seed (the `hs01` fixture, as lf52 depends on `id()`) is caught in a fresh process only.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDeterminism } from '../../core/game/determinism';
import { PLAYTEST_DETERMINISM_MAX_ACTIONS, checkDeterminism, playTwice } from './determinism';
import { type Arc3Action } from './worker';
import { Arc3Pool } from './pool';

const VENDOR = path.resolve('../shared/vendor/arc-agi-3');
const PYTHONPATH = path.join(VENDOR, 'python');
const OFFICIAL = path.join(VENDOR, 'environment_files');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);
const ENV = { ...process.env, ARC_STUDIO_PYTHONPATH: PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' };
const FIXTURES = path.join(__dirname, 'fixtures');

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
        processes: 2,
      });
      const later = [...LEVEL1.slice(0, 4), { action: 'RESET' } as Arc3Action, ...LEVEL1.slice(0, 2)];
      expect(await playTwice(pool, 'ls20', { seed: 3, level: 2, actions: later, runKey: 'det-2' })).toEqual({
        deterministic: true,
        steps: 7,
        processes: 2,
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
      expect(r.divergence).toMatchObject({ cells: 1, first: { x: 63, y: 63 }, process: 'same' });
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

  it('finds a game whose frames depend on the hash seed nondeterministic in a fresh process, naming the step and the seed', async () => {
    // The pool's process has hash seed 0 (the lamp violet); the first fresh one 1 (red).
    const pool = new Arc3Pool({
      gameDirs: [FIXTURES],
      size: 1,
      env: { ...ENV, PYTHONHASHSEED: '0' },
      timeoutMs: 60_000,
    });
    try {
      const moves: Arc3Action[] = ['ACTION1', 'ACTION4', 'ACTION2', 'ACTION3'].map((a) => ({
        action: a as Arc3Action['action'],
      }));
      const r = await playTwice(pool, 'hs01', { seed: 0, level: 0, actions: moves, runKey: 'det-hash' });
      if (r.deterministic) throw new Error('the hash-ordered game was found deterministic');
      expect(r.divergence).toMatchObject({
        step: 3,
        action: 'ACTION2',
        process: 'fresh',
        hashSeed: '1',
        cells: 64,
        first: { x: 56, y: 56, was: 6, now: 2 },
      });
      const lines = formatDeterminism(r);
      expect(lines[0]).toBe(
        'NOT DETERMINISTIC: the same actions played again on the same seed gave different frames at step 3 (ACTION2) in a fresh engine process (PYTHONHASHSEED=1), while a second play in the same process agreed: animation frame 1 of 1 differs in 64 cells, the first at x=56, y=56 (colour 6, then 2).',
      );
      expect(lines[1]).toMatch(
        /changes from one Python process to the next \(the id\(\) of objects, the hash of strings/,
      );

      // games validate's random play finds it too, whatever the first process's seed: seeds 1 and 2 differ.
      const unseeded = new Arc3Pool({
        gameDirs: [FIXTURES],
        size: 1,
        env: { ...ENV, PYTHONHASHSEED: 'random' },
        timeoutMs: 60_000,
      });
      try {
        const random = await checkDeterminism(unseeded, 'hs01', { seed: 0, steps: 8 });
        expect(random).toMatchObject({ deterministic: false, divergence: { step: 3, process: 'fresh' } });
      } finally {
        await unseeded.stop();
      }
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
