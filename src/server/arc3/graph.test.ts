/**
 * The state graph of arcengine games through the Python worker (`exploreArc3Level`), against
 * counts worked out by hand on the fixture tg01 (e2e/fixtures/arc3-games/tg01: an 8x8 board) and
 * on the official vc33, whose shortest solution found by the graph is played again on a fresh
 * run and must win.
 *
 * tg01 level 1: 25 floor cells the walker can stand on, 2 traps (GAME_OVER) and the exit, so 27
 * states; the shortest way round the traps is 10 moves (4 down, 1 right, 1 down, 4 right).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { actionCodeText, analyzeGraph, WIN_NODE, type LevelGraph } from '../../core/game/graph';
import { parseActions } from '../../core/game';
import { graphReport } from '../../cli/validate';
import { exploreArc3Level } from './graph';
import { Arc3Pool } from './pool';

const VENDOR = path.resolve('../shared/vendor/arc-agi-3');
const PYTHONPATH = path.join(VENDOR, 'python');
const OFFICIAL = path.join(VENDOR, 'environment_files');
const FIXTURES = path.resolve('e2e/fixtures/arc3-games');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);
const ENV = { ...process.env, ARC_STUDIO_PYTHONPATH: PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' };

const pool = new Arc3Pool({ gameDirs: [FIXTURES, OFFICIAL], size: 1, env: ENV, timeoutMs: 60_000 });
afterAll(() => pool.stop());

/** The action texts of every edge leaving an expanded state. */
function edgeActions(g: LevelGraph): Set<string> {
  const out = new Set<string>();
  for (let e = 0; e < g.offsets[g.expanded]; e++) out.add(actionCodeText(g.action[e]));
  return out;
}

describe('the state graph of an arcengine game', () => {
  it('stops on its signal: no expansion goes to the worker after it, and the run is closed there', async () => {
    const stop = new AbortController();
    let expansions = 0;
    let afterStop = 0;
    const counting = {
      exploreStart: pool.exploreStart.bind(pool),
      exploreExpand: async (...args: Parameters<typeof pool.exploreExpand>) => {
        if (stop.signal.aborted) afterStop++;
        const r = await pool.exploreExpand(...args);
        // Stop during the third expansion: the explorer must not ask for a fourth.
        if (++expansions === 3) stop.abort();
        return r;
      },
      close: pool.close.bind(pool),
    };
    const g = await exploreArc3Level(counting, 'ls20', 0, { maxStates: 5_000, maxSeconds: 60, signal: stop.signal });
    expect(expansions).toBe(3);
    expect(afterStop).toBe(0);
    expect(g.expanded).toBe(3);
    expect(g.complete).toBe(false);
    expect(pool.workers.map((w) => w.runCount)).toEqual([0]);
  });

  it('explores tg01 level 1 fully: the hand-counted states, the start, key-labelled edges and the 10-move solution', async () => {
    const g = await exploreArc3Level(pool, 'tg01', 0, { maxStates: 1_000, maxSeconds: 120 });
    const a = analyzeGraph(g);
    expect(g.complete).toBe(true);
    expect(a.states).toBe(27);
    expect(a.gameOverStates).toBe(2);
    // State 0 is the start: depth 0, no parent; every other state has a parent one move nearer.
    expect([g.depth[0], g.parent[0]]).toEqual([0, -1]);
    for (let s = 1; s < g.states; s++) expect(g.depth[s]).toBe(g.depth[g.parent[s]] + 1);
    // tg01 offers clicks on level 1 too, but no sprite there reacts: they are loops, not edges.
    expect(edgeActions(g)).toEqual(new Set(['ACTION1', 'ACTION2', 'ACTION3', 'ACTION4', 'RESET']));
    expect(g.clicks).toBe('targets');
    expect(a.shortest).toEqual({
      length: 10,
      actions: 'ACTION2,ACTION2,ACTION2,ACTION2,ACTION4,ACTION2,ACTION4,ACTION4,ACTION4,ACTION4',
    });
    expect(a.winningMoves).toBe(2);
  });

  it('clicks at the sprites of tg01 level 2: the switch opens the gate on the way to the exit', async () => {
    const g = await exploreArc3Level(pool, 'tg01', 1, { maxStates: 1_000, maxSeconds: 120 });
    const a = analyzeGraph(g);
    expect(g.complete).toBe(true);
    expect(g.clicks).toBe('targets');
    // The switch sits at cell (1, 6), drawn 8 pixels per cell: its centre is pixel (12, 52).
    expect(a.shortest?.length).toBe(10);
    expect(a.shortest?.actions.split(',').filter((x) => x.startsWith('ACTION6'))).toEqual(['ACTION6:12:52']);
  });

  it('finds a level-up of the official vc33 within the budget, and its shortest solution wins on a fresh run', async () => {
    const g = await exploreArc3Level(pool, 'vc33', 0, { maxStates: 3_000, maxSeconds: 240 });
    const a = analyzeGraph(g);
    expect(a.shortest).not.toBeNull();
    expect([...edgeActions(g)].every((t) => /^ACTION6:\d+:\d+$/.test(t) || t === 'RESET')).toBe(true);
    let won = false;
    for (let e = 0; e < g.offsets[g.expanded]; e++) if (g.to[e] === WIN_NODE) won = true;
    expect(won).toBe(true);
    const { frame } = await pool.open('graph-check', 'vc33');
    expect(frame.levels_completed).toBe(0);
    let last = frame;
    for (const input of parseActions(a.shortest!.actions))
      last = await pool.act(
        'graph-check',
        input.action === 'ACTION6' ? { action: 'ACTION6', x: input.x, y: input.y } : { action: input.action },
      );
    await pool.close('graph-check');
    expect(last.levels_completed).toBe(1);
  }, 300_000);

  it('stops at the budget of states or seconds and says so as for built-in games', async () => {
    const byStates = await exploreArc3Level(pool, 'ls20', 0, { maxStates: 20, maxSeconds: 120 });
    expect(byStates.complete).toBe(false);
    expect(byStates.states).toBeGreaterThanOrEqual(20);
    expect(byStates.expanded).toBeLessThan(byStates.states);
    expect(edgeActions(byStates)).toEqual(new Set(['ACTION1', 'ACTION2', 'ACTION3', 'ACTION4']));
    const report = graphReport(byStates, {
      version: 'ls20-9607627b',
      engine: 'arcengine',
      recorded: null,
      maxStates: 20,
      maxSeconds: 120,
      seconds: 1,
      targets: '',
    });
    expect(report.lines[0]).toContain(
      `NOT fully explored: stopped at ${byStates.states} states (${byStates.expanded} expanded) by the budget (--max-states 20, --max-seconds 120)`,
    );
    expect(report.lines.at(-1)).toBe(
      'P(a random policy wins within K actions): unknown, the graph was not fully explored; raise --max-states or --max-seconds.',
    );
    // No time at all: the budget is looked at after every state, so one state is expanded.
    const bySeconds = await exploreArc3Level(pool, 'ls20', 0, { maxStates: 1_000, maxSeconds: 0 });
    expect(bySeconds.complete).toBe(false);
    expect(bySeconds.expanded).toBe(1);
  });
});
