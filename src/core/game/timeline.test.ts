import { describe, expect, it } from 'vitest';
import { Timeline } from '../log/timeline';
import type { LogEvent } from '../log/events';
import { createRun, renderRun, step } from './engine';
import { gameActionData, gameRunReducer, replayGameEvents } from './replay';
import { hashFrame } from './hash';
import { parseActions } from './actions';
import { games, solutions } from '../../games';

function logOf(gameId: string, actions: string, level?: number): LogEvent[] {
  const game = games[gameId];
  const events: LogEvent[] = [
    {
      seq: 0,
      t: 0,
      kind: 'game.open',
      data: level === undefined ? { game: gameId, seed: 3 } : { game: gameId, seed: 3, level },
    },
  ];
  let run = createRun(game, level === undefined ? { seed: 3 } : { seed: 3, level });
  for (const input of parseActions(actions)) {
    const r = step(run, input);
    run = r.run;
    events.push({
      seq: events.length,
      t: events.length * 100,
      kind: 'game.action',
      data: gameActionData(gameId, input, r.response) as unknown as Record<string, unknown>,
    });
  }
  return events;
}

describe('seeking in a game replay', () => {
  it('gives the frame the log recorded at every position', () => {
    const events = logOf('push', `RESET,${solutions.push[0]},${solutions.push[1]},ACTION7,RESET`);
    const tl = new Timeline(null, events, gameRunReducer(games.push), 4);
    for (let n = 2; n <= events.length; n++) {
      expect(hashFrame(renderRun(tl.at(n)!))).toBe(events[n - 1].data.frameHash);
    }
    expect(tl.at(0)).toBeNull();
  });

  it('starts a playtest at the level named in game.open, and the log verifies', () => {
    const events = logOf('glow', solutions.glow[2], 2);
    const tl = new Timeline(null, events, gameRunReducer(games.glow));
    expect(tl.at(1)!.level).toBe(2);
    expect(tl.at(events.length)!.levelsCompleted).toBe(3);
    expect(replayGameEvents(games.glow, events).problems).toEqual([]);
  });
});
