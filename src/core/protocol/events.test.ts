import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS, eventDataProblem } from './events';
import { jsonProblem, stringProblem } from './json';

describe('jsonProblem', () => {
  it('accepts ordinary JSON and refuses each hazard with its path', () => {
    expect(
      jsonProblem({
        events: [
          {
            seq: 0,
            data: {
              grid: [
                [1, 2],
                [3, 4],
              ],
              s: 'é 😀',
            },
          },
        ],
      }),
    ).toBeNull();
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(jsonProblem(deep)).toMatchObject({ reason: 'nests deeper than 16 levels' });
    expect(jsonProblem({ a: [{ b: 'x\u0000' }] })).toEqual({
      path: 'a.0.b',
      reason: 'holds a NUL character at position 1',
    });
    expect(jsonProblem({ a: '\ud83d' })?.reason).toMatch(/unpaired UTF-16 surrogate at position 0/);
    expect(jsonProblem({ a: 'x\ude00' })?.reason).toMatch(/unpaired/);
    expect(jsonProblem(JSON.parse('{"n": 1e400}'))).toEqual({
      path: 'n',
      reason: 'is a number too large to store (it must be finite)',
    });
    expect(jsonProblem(JSON.parse('{"x": {"__proto__": {}}}'))?.path).toBe('x.__proto__');
    expect(jsonProblem({ s: 'x'.repeat(10_001) })?.reason).toMatch(/at most 10000/);
    expect(jsonProblem(Array(300_000).fill(0))?.reason).toMatch(/more than 250000 values/);
  });

  it('finds surrogate pairs valid and lone halves invalid', () => {
    expect(stringProblem('a😀b')).toBeNull();
    expect(stringProblem('😀'.slice(0, 1))).toMatch(/unpaired/);
    expect(stringProblem('😀'.slice(1))).toMatch(/unpaired/);
  });
});

describe('event schemas', () => {
  it('accepts what the players log and refuses damaged payloads, naming the field', () => {
    expect(eventDataProblem('paint', { row: 3, col: 4, color: 2, stroke: 1 })).toBeNull();
    expect(
      eventDataProblem('paste', {
        row: 0,
        col: 0,
        block: [
          [1, 2],
          [3, 4],
        ],
      }),
    ).toBeNull();
    expect(
      eventDataProblem('game.action', {
        game: 'push',
        action: 'ACTION6',
        x: 10,
        y: 63,
        level: 0,
        state: 'NOT_FINISHED',
        frameHash: 'ab12',
      }),
    ).toBeNull();
    expect(eventDataProblem('paste', { row: 0, col: 0 })).toMatch(/^data\.block /);
    expect(eventDataProblem('task.open', { taskId: 't', tests: 1e7 })).toMatch(/^data\.tests /);
    expect(eventDataProblem('select', { side: 'input', rect: { r0: 3, c0: 0, r1: 1, c1: 0 } })).toMatch(/r0 <= r1/);
    expect(eventDataProblem('copy.input', { grid: [[1, 2], [3]] })).toMatch(/same length/);
    expect(eventDataProblem('nope', {})).toMatch(/not an event kind/);
    expect(eventDataProblem('toString', {})).toMatch(/not an event kind/);
  });

  it('checks the selection and transform tools: cells inside 30x30, known directions, moves inside a grid', () => {
    expect(eventDataProblem('select', { side: 'output', rect: { r0: 0, c0: 0, r1: 1, c1: 1 }, add: true })).toBeNull();
    expect(
      eventDataProblem('select.wand', {
        side: 'input',
        row: 2,
        col: 3,
        cells: [
          [2, 3],
          [2, 4],
        ],
      }),
    ).toBeNull();
    expect(eventDataProblem('select.wand', { side: 'input', row: 2, col: 3, cells: [] })).toMatch(/^data\.cells /);
    expect(eventDataProblem('select.wand', { side: 'output', row: 0, col: 0, cells: [[0, 30]] })).toMatch(
      /^data\.cells\.0\.1 /,
    );
    expect(eventDataProblem('select.wand', { side: 'output', row: 0, col: 0, cells: Array(901).fill([0, 0]) })).toMatch(
      /^data\.cells /,
    );
    expect(eventDataProblem('select.wand', { side: 'output', row: 0, col: 0, cells: [[0]] })).toMatch(
      /^data\.cells\.0/,
    );
    expect(
      eventDataProblem('recolor', {
        rect: { r0: 0, c0: 0, r1: 1, c1: 1 },
        color: 3,
        cells: [
          [0, 0],
          [1, 1],
        ],
      }),
    ).toBeNull();
    expect(eventDataProblem('rotate', { dir: 'cw' })).toBeNull();
    expect(eventDataProblem('rotate', { dir: 'left' })).toMatch(/^data\.dir /);
    expect(eventDataProblem('flip', { axis: 'vertical' })).toBeNull();
    expect(eventDataProblem('flip', {})).toMatch(/^data\.axis /);
    expect(eventDataProblem('move', { dr: -29, dc: 29 })).toBeNull();
    expect(eventDataProblem('move', { dr: 0, dc: 30 })).toMatch(/^data\.dc /);
    expect(eventDataProblem('move', { dr: 0, dc: 0 })).toMatch(/at least one cell/);
    expect(eventDataProblem('move', { dr: 0.5, dc: 1 })).toMatch(/^data\.dr /);
    expect(eventDataProblem('crop', { rect: { r0: 1, c0: 1, r1: 2, c1: 29 } })).toBeNull();
    expect(eventDataProblem('crop', { rect: { r0: 0, c0: 0, r1: 30, c1: 1 } })).toMatch(/^data\.rect\.r1 /);
    expect(eventDataProblem('tool', { tool: 'wand' })).toBeNull();
    expect(eventDataProblem('paste', { row: 0, col: 0, block: [[1, 2]], cells: [[0, 1]] })).toBeNull();
    expect(
      eventDataProblem('copy', {
        side: 'input',
        rect: { r0: 0, c0: 0, r1: 0, c1: 1 },
        block: [[1, 2]],
        cells: [[0, -1]],
      }),
    ).toMatch(/^data\.cells\.0\.1 /);
  });

  it('every kind is documented in docs/api.md', () => {
    const docs = readFileSync(path.resolve(__dirname, '../../../docs/api.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Event kinds'), docs.indexOf('## Limits'));
    for (const kind of EVENT_KINDS) expect(section, kind).toContain(`\`${kind}\``);
  });
});
