/**
 * Flux: walk the agent to the exit. The exit opens only while every receiver is lit by a beam;
 * click mirrors to turn them and steer the beams. Beams are deadly: an agent touched by one loses
 * a life and starts over from the level's start (the lives are the red pips at the top); with no
 * life left, the game is over. Purple mirrors are heavy: they turn only while the agent stands
 * next to them.
 */
import {
  Colour,
  board,
  boardCellAt,
  defineGame,
  drawPips,
  fillRect,
  parseMap,
  strokeRect,
  type ActionId,
  type Board,
  type Frame,
} from '../../core/game';
import { levels, type FluxLevel } from './levels';

export type { FluxLevel } from './levels';

const FLOOR = 0,
  WALL = 1,
  EMITTER = 2,
  RECEIVER = 3,
  EXIT = 4;
/** Up, down, left, right: ACTION1-ACTION4, and beam directions. */
const DX = [0, 0, -1, 1],
  DY = [-1, 1, 0, 0];
/** Where a beam goes after a `/` or a `\` mirror, by the way it came. */
const SLASH = [3, 2, 1, 0],
  BACKSLASH = [2, 3, 0, 1];
const NO_MIRROR = 0,
  MIRROR_SLASH = 1,
  MIRROR_BACK = 2;

interface Layout {
  readonly w: number;
  readonly h: number;
  readonly tiles: Uint8Array;
  /** Each emitter: its cell and the direction it shoots (0-3 as up, down, left, right). */
  readonly emitters: readonly (readonly [number, number])[];
  readonly receivers: readonly number[];
  /** 1 where a mirror is heavy. */
  readonly heavy: Uint8Array;
  readonly start: number;
  readonly board: Board;
}

export interface FluxState {
  readonly layout: Layout;
  /** Per cell: 0 no mirror, 1 `/`, 2 `\`. */
  readonly mirrors: Uint8Array;
  readonly agent: number;
  readonly lives: number;
  readonly maxLives: number;
  /** Cells a beam crosses: bit 1 vertical, bit 2 horizontal, bit 4 a lit receiver (derived from the mirrors). */
  readonly beam: Uint8Array;
  /** Whether every receiver is lit, so the exit is open. */
  readonly open: boolean;
  /** Whether the agent stands in the open exit. */
  readonly escaped: boolean;
}

/** Traces every beam; returns the cells crossed and whether every receiver is lit. */
function trace(layout: Layout, mirrors: Uint8Array): { beam: Uint8Array; open: boolean } {
  const { w, h, tiles } = layout;
  const beam = new Uint8Array(w * h);
  const lit = new Set<number>();
  for (const [at, dir] of layout.emitters) {
    let d = dir,
      x = at % w,
      y = (at - x) / w;
    // A beam path is reversible and starts at an emitter, so it cannot loop; the cap is a guard.
    for (let n = 0; n < 4 * w * h; n++) {
      x += DX[d];
      y += DY[d];
      if (x < 0 || y < 0 || x >= w || y >= h) break;
      const i = y * w + x,
        t = tiles[i];
      if (t === RECEIVER) {
        lit.add(i);
        beam[i] |= 4;
        break;
      }
      if (t !== FLOOR) break;
      const m = mirrors[i];
      if (m === NO_MIRROR) beam[i] |= d < 2 ? 1 : 2;
      else {
        beam[i] |= 3;
        d = m === MIRROR_SLASH ? SLASH[d] : BACKSLASH[d];
      }
    }
  }
  return { beam, open: lit.size === layout.receivers.length };
}

function loadLevel(level: FluxLevel): FluxState {
  const m = parseMap(level.map);
  const { width: w, height: h } = m;
  const tiles = new Uint8Array(w * h),
    mirrors = new Uint8Array(w * h),
    heavy = new Uint8Array(w * h);
  const emitters: [number, number][] = [],
    receivers: number[] = [];
  let start = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x,
        ch = m.at(x, y);
      const e = '^v<>'.indexOf(ch);
      if (e >= 0) {
        tiles[i] = EMITTER;
        emitters.push([i, e]);
        continue;
      }
      switch (ch) {
        case '#':
        case ' ':
          tiles[i] = WALL;
          break;
        case 'R':
          tiles[i] = RECEIVER;
          receivers.push(i);
          break;
        case 'E':
          tiles[i] = EXIT;
          break;
        case '@':
          start = i;
          break;
        case '/':
        case '%':
          mirrors[i] = MIRROR_SLASH;
          heavy[i] = ch === '%' ? 1 : 0;
          break;
        case '\\':
        case '&':
          mirrors[i] = MIRROR_BACK;
          heavy[i] = ch === '&' ? 1 : 0;
          break;
        case '.':
          break;
        default:
          throw new Error(`flux map has "${ch}" at column ${x + 1}, row ${y + 1}: use # . @ E > < ^ v R / \\ % &.`);
      }
    }
  }
  if (start < 0) throw new Error('flux map has no agent "@".');
  const cell = Math.min(7, Math.floor(64 / w), Math.floor(57 / h));
  const layout: Layout = { w, h, tiles, emitters, receivers, heavy, start, board: board(w, h, cell, 7) };
  return {
    layout,
    mirrors,
    agent: start,
    lives: level.lives,
    maxLives: level.lives,
    ...trace(layout, mirrors),
    escaped: false,
  };
}

/** After a move or a turn: a beam on the agent costs a life and sends it back to the start. */
function settle(s: FluxState, animate: (s: FluxState) => void): FluxState {
  if (!s.beam[s.agent]) return s;
  animate(s);
  // A start inside a beam would kill again at once: it takes every life left.
  const start = s.layout.start;
  return { ...s, agent: start, lives: s.beam[start] ? 0 : s.lives - 1 };
}

const ACTIONS: readonly ActionId[] = [1, 2, 3, 4, 6];

export const flux = defineGame<FluxState, FluxLevel>({
  id: 'flux',
  title: 'Flux',
  summary: 'Steer beams with mirrors to open the exit, and walk there without crossing a beam. Keys and clicks.',
  levels,
  actions: ACTIONS,
  fps: 8,
  init: loadLevel,
  step(s, input, ctx) {
    const { w, h, tiles, heavy, board: b } = s.layout;
    const ax = s.agent % w,
      ay = (s.agent - ax) / w;
    if (input.action === 'ACTION6') {
      const i = boardCellAt(b, input.x!, input.y!);
      if (i < 0 || s.mirrors[i] === NO_MIRROR) return s;
      if (heavy[i]) {
        const mx = i % w,
          my = (i - mx) / w;
        if (Math.abs(mx - ax) + Math.abs(my - ay) !== 1) return s;
      }
      const mirrors = s.mirrors.slice();
      mirrors[i] = mirrors[i] === MIRROR_SLASH ? MIRROR_BACK : MIRROR_SLASH;
      return settle({ ...s, mirrors, ...trace(s.layout, mirrors) }, ctx.animate.bind(ctx));
    }
    const d = input.action === 'ACTION1' ? 0 : input.action === 'ACTION2' ? 1 : input.action === 'ACTION3' ? 2 : 3;
    const nx = ax + DX[d],
      ny = ay + DY[d];
    if (nx < 0 || ny < 0 || nx >= w || ny >= h) return s;
    const i = ny * w + nx,
      t = tiles[i];
    if (t === EXIT) return s.open ? { ...s, agent: i, escaped: true } : s;
    if (t !== FLOOR || s.mirrors[i] !== NO_MIRROR) return s;
    return settle({ ...s, agent: i }, ctx.animate.bind(ctx));
  },
  outcome: (s) => (s.escaped ? 'won' : s.lives <= 0 ? 'lost' : 'playing'),
  clickTargets(s) {
    const { w, board: b } = s.layout;
    const out: [number, number][] = [];
    for (let i = 0; i < s.mirrors.length; i++) {
      if (s.mirrors[i])
        out.push([b.x0 + (i % w) * b.cell + (b.cell >> 1), b.y0 + Math.floor(i / w) * b.cell + (b.cell >> 1)]);
    }
    return out;
  },
  key: (s) => [s.mirrors, s.agent, s.lives],
  render(s, frame: Frame) {
    frame.fill(Colour.charcoal);
    drawPips(frame, 2, 2, s.lives, s.maxLives, 3, Colour.red, Colour.darkGrey);
    const { w, h, tiles, heavy, board: b } = s.layout;
    const c = b.cell,
      mid = (c - 1) >> 1;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x,
          px = b.x0 + x * c,
          py = b.y0 + y * c,
          t = tiles[i];
        if (t === WALL) {
          fillRect(frame, px, py, c, c, Colour.grey);
          continue;
        }
        fillRect(frame, px, py, c, c, Colour.black);
        if (t === EMITTER) {
          fillRect(frame, px + 1, py + 1, c - 2, c - 2, Colour.magenta);
        } else if (t === RECEIVER) {
          // A lit receiver is solid green, a dark one a maroon ring.
          if (s.beam[i] & 4) fillRect(frame, px + 1, py + 1, c - 2, c - 2, Colour.green);
          else strokeRect(frame, px + 1, py + 1, c - 2, c - 2, Colour.maroon);
        } else if (t === EXIT) {
          if (s.open) strokeRect(frame, px, py, c, c, Colour.green);
          else for (let k = 1; k < c; k += 2) fillRect(frame, px + k, py, 1, c, Colour.orange);
        }
        const beam = t === FLOOR ? s.beam[i] : 0;
        if (beam & 1) fillRect(frame, px + mid, py, 2, c, Colour.red);
        if (beam & 2) fillRect(frame, px, py + mid, c, 2, Colour.red);
        const m = s.mirrors[i];
        if (m !== NO_MIRROR) {
          const colour = heavy[i] ? Colour.purple : Colour.white;
          for (let k = 0; k < c; k++) {
            const yy = m === MIRROR_SLASH ? py + c - 1 - k : py + k;
            fillRect(frame, px + k, yy, 1, 1, colour);
            if (k + 1 < c) fillRect(frame, px + k + 1, yy, 1, 1, colour);
          }
        }
      }
    }
    // Emitters show where they shoot with a nub on that side.
    for (const [at, d] of s.layout.emitters) {
      const px = b.x0 + (at % w) * c,
        py = b.y0 + Math.floor(at / w) * c;
      fillRect(frame, px + mid + DX[d] * mid, py + mid + DY[d] * mid, 2, 2, Colour.pink);
    }
    const ax = s.agent % w,
      ay = Math.floor(s.agent / w);
    fillRect(frame, b.x0 + ax * c + 1, b.y0 + ay * c + 1, c - 2, c - 2, Colour.blue);
  },
});
