/**
 * The determinism check of `games validate` on the official engine: the same actions played twice
 * give the same frames on the public games, and a copy of one that draws from numpy's unseeded
 * global generator is found, with the step and the cells named.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Arc3Pool } from '../server/arc3/pool';
import { formatDeterminism } from '../core/game/determinism';
import { checkDeterminism } from '../server/arc3/determinism';
import { validateArc3 } from './validateArc3';

const VENDOR = path.resolve('../shared/vendor/arc-agi-3');
const PYTHONPATH = path.join(VENDOR, 'python');
const OFFICIAL = path.join(VENDOR, 'environment_files');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);
const ENV = { ...process.env, ARC_STUDIO_PYTHONPATH: PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' };

// A copy of ls20 whose interface drawing paints one cell from numpy's unseeded global generator.
const copy = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-unseeded-'));
cpSync(path.join(OFFICIAL, 'ls20'), path.join(copy, 'ls20'), { recursive: true });
const file = path.join(copy, 'ls20/9607627b/ls20.py');
const source = readFileSync(file, 'utf8');
const hook = '    def render_interface(self, frame: np.ndarray) -> np.ndarray:\n';
if (!source.includes(hook)) throw new Error('ls20 no longer has the render_interface this test patches');
writeFileSync(file, source.replace(hook, `${hook}        frame[63, 63] = int(np.random.randint(0, 16))\n`));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('the determinism check on the official engine', () => {
  it('finds none of the public games nondeterministic', async () => {
    const pool = new Arc3Pool({ gameDirs: [OFFICIAL], size: 2, env: ENV, timeoutMs: 60_000 });
    try {
      for (const game of ['ls20', 'ft09', 'vc33']) {
        const r = await checkDeterminism(pool, game, { seed: 0, steps: 120 });
        expect(r, game).toEqual({ deterministic: true, steps: 120, processes: 2 });
      }
    } finally {
      await pool.stop();
    }
  });

  it('names the step, the frame and the cell where a game with an unseeded random call differs', async () => {
    const pool = new Arc3Pool({ gameDirs: [copy], size: 2, env: ENV, timeoutMs: 60_000 });
    try {
      const r = await checkDeterminism(pool, 'ls20', { seed: 0, steps: 120 });
      if (r.deterministic) throw new Error('the unseeded copy was found deterministic');
      // Colours drawn at random agree by chance 1 time in 16: the first difference is early.
      expect(r.divergence.step).toBeLessThan(60);
      expect(r.divergence.first).toMatchObject({ x: 63, y: 63 });
      expect(r.divergence.cells).toBe(1);
      const lines = formatDeterminism(r);
      expect(lines[0]).toContain(
        `NOT DETERMINISTIC: the same actions played again on the same seed gave different frames at step ${r.divergence.step} (${r.divergence.action}) in the same engine process:`,
      );
      expect(lines[0]).toContain('x=63, y=63');
      expect(lines[1]).toContain('cannot be exact');
    } finally {
      await pool.stop();
    }
  });

  it('makes games validate fail for a game whose frames change with the process, naming the step', async () => {
    const prior = process.env.ARC_STUDIO_PYTHONPATH;
    process.env.ARC_STUDIO_PYTHONPATH = PYTHONPATH;
    try {
      const fixtures = path.resolve('src/server/arc3/fixtures');
      const out = await validateArc3([fixtures], 'arcengine 0.9.3', 'hs01', {
        seed: 0,
        steps: 20,
        level: 1,
        threads: 1,
      });
      expect(out.ok).toBe(false);
      expect(out.json).toMatchObject({ deterministic: false, divergence: { step: 3, process: 'fresh' } });
      expect(out.lines.find((l) => l.startsWith('NOT DETERMINISTIC'))).toMatch(
        /at step 3 \(ACTION\d\) in a fresh engine process \(PYTHONHASHSEED=[12]\)/,
      );
    } finally {
      if (prior === undefined) delete process.env.ARC_STUDIO_PYTHONPATH;
      else process.env.ARC_STUDIO_PYTHONPATH = prior;
    }
  });

  it('makes games validate fail for the unseeded copy and say why', async () => {
    const prior = process.env.ARC_STUDIO_PYTHONPATH;
    process.env.ARC_STUDIO_PYTHONPATH = PYTHONPATH;
    try {
      const out = await validateArc3([copy], 'arcengine 0.9.3', 'ls20', { seed: 0, steps: 20, level: 1, threads: 1 });
      expect(out.ok).toBe(false);
      expect(out.json).toMatchObject({ deterministic: false, ok: false });
      expect(out.lines.some((l) => l.startsWith('NOT DETERMINISTIC'))).toBe(true);
    } finally {
      if (prior === undefined) delete process.env.ARC_STUDIO_PYTHONPATH;
      else process.env.ARC_STUDIO_PYTHONPATH = prior;
    }
  });
});
