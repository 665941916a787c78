/**
 * Glow: click lamps to light every one of them. A plain lamp flips itself and its four
 * neighbours; a star lamp flips its whole row and column as far as the gaps; a sealed lamp
 * cannot be clicked, only flipped by its neighbours. Each click uses one charge (the pips at the
 * top); out of charges with a lamp still dark, the game is over.
 */
import {
  Colour,
  board,
  boardCellAt,
  defineGame,
  drawPips,
  fillRect,
  parseMap,
  setCell,
  type ActionId,
  type Board,
  type Frame,
} from '../../core/game';
import { levels, type GlowLevel } from './levels';

export type { GlowLevel } from './levels';

const GAP = 0,
  PLAIN = 1,
  STAR = 2,
  SEALED = 3;

interface Layout {
  readonly w: number;
  readonly h: number;
  readonly kinds: Uint8Array;
  readonly lamps: number;
  readonly board: Board;
  readonly targets: readonly (readonly [number, number])[];
}

export interface GlowState {
  readonly layout: Layout;
  /** 1 where a lamp is lit, row-major over the map. */
  readonly lit: Uint8Array;
  readonly charges: number;
  readonly maxCharges: number;
}

function loadLevel(level: GlowLevel): GlowState {
  const m = parseMap(level.map);
  const { width: w, height: h } = m;
  const kinds = new Uint8Array(w * h),
    lit = new Uint8Array(w * h);
  let lamps = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const ch = m.at(x, y),
        lower = ch.toLowerCase();
      const kind = lower === 'o' ? PLAIN : lower === 's' ? STAR : lower === 'x' ? SEALED : GAP;
      if (kind === GAP && ch !== '.' && ch !== ' ')
        throw new Error(`glow map has "${ch}" at column ${x + 1}, row ${y + 1}: use . o O s S x X.`);
      kinds[y * w + x] = kind;
      if (kind !== GAP) lamps++;
      lit[y * w + x] = kind !== GAP && ch !== lower ? 1 : 0;
    }
  }
  const cell = Math.min(8, Math.floor(60 / w), Math.floor(56 / h));
  const b = board(w, h, cell, 7);
  const targets: [number, number][] = [];
  for (let i = 0; i < w * h; i++) {
    if (kinds[i] === PLAIN || kinds[i] === STAR)
      targets.push([b.x0 + (i % w) * cell + (cell >> 1), b.y0 + Math.floor(i / w) * cell + (cell >> 1)]);
  }
  return { layout: { w, h, kinds, lamps, board: b, targets }, lit, charges: level.charges, maxCharges: level.charges };
}

function flip(lit: Uint8Array, kinds: Uint8Array, w: number, h: number, x: number, y: number): void {
  if (x >= 0 && y >= 0 && x < w && y < h && kinds[y * w + x] !== GAP) lit[y * w + x] ^= 1;
}

const ACTIONS: readonly ActionId[] = [6];

export const glow = defineGame<GlowState, GlowLevel>({
  id: 'glow',
  title: 'Glow',
  summary: 'Light every lamp: a click flips a lamp and its neighbours, star lamps flip whole lines. Clicks only.',
  levels,
  actions: ACTIONS,
  init: loadLevel,
  step(s, input) {
    const { w, h, kinds, board: b } = s.layout;
    const i = boardCellAt(b, input.x!, input.y!);
    if (i < 0 || (kinds[i] !== PLAIN && kinds[i] !== STAR)) return s;
    const x = i % w,
      y = (i - x) / w;
    const lit = s.lit.slice();
    lit[i] ^= 1;
    if (kinds[i] === PLAIN) {
      flip(lit, kinds, w, h, x - 1, y);
      flip(lit, kinds, w, h, x + 1, y);
      flip(lit, kinds, w, h, x, y - 1);
      flip(lit, kinds, w, h, x, y + 1);
    } else {
      // A star's light runs along its row and column until a gap stops it.
      for (const [dx, dy] of [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ]) {
        for (
          let cx = x + dx, cy = y + dy;
          cx >= 0 && cy >= 0 && cx < w && cy < h && kinds[cy * w + cx] !== GAP;
          cx += dx, cy += dy
        ) {
          lit[cy * w + cx] ^= 1;
        }
      }
    }
    return { ...s, lit, charges: s.charges - 1 };
  },
  outcome(s) {
    let on = 0;
    for (let i = 0; i < s.lit.length; i++) on += s.lit[i];
    return on === s.layout.lamps ? 'won' : s.charges <= 0 ? 'lost' : 'playing';
  },
  clickTargets: (s) => s.layout.targets,
  key: (s) => [s.lit, s.charges],
  render(s, frame: Frame) {
    frame.fill(Colour.black);
    drawPips(frame, 2, 2, s.charges, s.maxCharges, 3, Colour.lightBlue, Colour.darkGrey);
    const { w, h, kinds, board: b } = s.layout;
    const c = b.cell;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x,
          kind = kinds[i];
        if (kind === GAP) continue;
        const px = b.x0 + x * c,
          py = b.y0 + y * c;
        const on = s.lit[i] === 1;
        // Sealed lamps have a thick grey rim, clickable ones a thin one.
        fillRect(frame, px, py, c - 1, c - 1, kind === SEALED ? Colour.grey : on ? Colour.orange : Colour.darkGrey);
        const inset = kind === SEALED ? 2 : 1;
        fillRect(
          frame,
          px + inset,
          py + inset,
          c - 1 - 2 * inset,
          c - 1 - 2 * inset,
          on ? Colour.yellow : Colour.charcoal,
        );
        if (kind === STAR) {
          // A star's mark: a cross through the lamp, the lines its light travels.
          const mid = (c - 1) >> 1;
          const mark = on ? Colour.orange : Colour.purple;
          fillRect(frame, px + 1, py + mid, c - 3, 1, mark);
          fillRect(frame, px + mid, py + 1, 1, c - 3, mark);
          setCell(frame, px + mid, py + mid, on ? Colour.white : Colour.magenta);
        }
      }
    }
  },
});
