/**
 * Seeking in long replays: a 2,000-action game session and a 2,000-event grid session, seeked to
 * random positions as the studio's timeline does (state from the nearest checkpoint, then the
 * frame or grid drawn from it).
 */
import type { BenchResult } from './result';
import { Timeline } from '../core/log/timeline';
import type { LogEvent } from '../core/log/events';
import { initialPlayer, reduce, currentTest } from '../core/log/gridPlayer';
import {
  availableActions,
  createRun,
  gameActionData,
  gameRunReducer,
  renderRun,
  step,
  GAME_ACTIONS,
  type ActionInput,
} from '../core/game';
import { Rng } from '../core/game/rng';
import { games } from '../games';
import { percentile } from './measure';
import { performance } from 'node:perf_hooks';

function gameLog(n: number): LogEvent[] {
  const game = games.push;
  const rng = new Rng(7);
  const events: LogEvent[] = [{ seq: 0, t: 0, kind: 'game.open', data: { game: game.id, seed: 7 } }];
  let run = createRun(game, { seed: 7 });
  let input: ActionInput = { action: 'RESET' };
  while (events.length <= n) {
    const r = step(run, input);
    run = r.run;
    events.push({
      seq: events.length,
      t: events.length * 250,
      kind: 'game.action',
      data: gameActionData(game.id, input, r.response) as unknown as Record<string, unknown>,
    });
    const avail = availableActions(run);
    input =
      run.state !== 'NOT_FINISHED' || avail.length === 0
        ? { action: 'RESET' }
        : { action: GAME_ACTIONS[avail[Math.floor(rng.next() * avail.length)]] };
  }
  return events;
}

function gridLog(n: number): LogEvent[] {
  const events: LogEvent[] = [
    { seq: 0, t: 0, kind: 'task.open', data: { taskId: 'bench', tests: 1 } },
    { seq: 1, t: 1, kind: 'resize', data: { rows: 30, cols: 30 } },
  ];
  for (let i = 2; i < n; i++) {
    const kind = i % 97 === 0 ? 'undo' : i % 41 === 0 ? 'fill' : 'paint';
    events.push({
      seq: i,
      t: i * 120,
      kind,
      data: { row: (i * 7) % 30, col: (i * 13) % 30, color: i % 10, stroke: Math.floor(i / 5) },
    });
  }
  return events;
}

function seekTimes(seek: (n: number) => void, length: number): number[] {
  const rng = new Rng(11);
  const times: number[] = [];
  for (let k = 0; k < 400; k++) {
    const n = Math.floor(rng.next() * (length + 1));
    const t0 = performance.now();
    seek(n);
    times.push(performance.now() - t0);
  }
  return times;
}

export function* run(): Iterable<BenchResult> {
  const glog = gameLog(2000);
  let t0 = performance.now();
  const gtl = new Timeline(null, glog, gameRunReducer(games.push));
  yield { name: 'replay.game_2000_actions.build', value: performance.now() - t0, unit: 'ms' };
  const g = seekTimes((n) => {
    const r = gtl.at(n);
    if (r) renderRun(r);
  }, glog.length);
  yield { name: 'replay.game_2000_actions.seek.p50', value: percentile(g, 50), unit: 'ms' };
  yield { name: 'replay.game_2000_actions.seek.p95', value: percentile(g, 95), unit: 'ms' };
  yield { name: 'replay.game_2000_actions.seek.max', value: Math.max(...g), unit: 'ms' };

  const tlog = gridLog(2000);
  t0 = performance.now();
  const ttl = new Timeline(initialPlayer(), tlog, reduce);
  yield { name: 'replay.grid_2000_events.build', value: performance.now() - t0, unit: 'ms' };
  const t = seekTimes((n) => currentTest(ttl.at(n)), tlog.length);
  yield { name: 'replay.grid_2000_events.seek.p50', value: percentile(t, 50), unit: 'ms' };
  yield { name: 'replay.grid_2000_events.seek.p95', value: percentile(t, 95), unit: 'ms' };
  yield { name: 'replay.grid_2000_events.seek.max', value: Math.max(...t), unit: 'ms' };
}
