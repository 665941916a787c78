/**
 * Push: move the agent, push blocks onto the target squares. Blocks and the agent slide across
 * ice until something stops them; the action key pulls the block the agent faces. Every key
 * press drains the energy bar at the top; when it is empty before the level is solved, the game
 * is over.
 */
import {
  Colour,
  board,
  defineGame,
  drawBar,
  fillRect,
  parseMap,
  strokeRect,
  type ActionId,
  type Board,
  type Frame,
} from '../../core/game';
import { levels, type PushLevel } from './levels';

export type { PushLevel } from './levels';

const FLOOR = 0,
  WALL = 1,
  ICE = 2,
  VOID = 3;
/** Up, down, left, right: ACTION1-ACTION4. */
const DX = [0, 0, -1, 1],
  DY = [-1, 1, 0, 0];

/** What never changes within a level, shared by all its states. */
interface Layout {
  readonly w: number;
  readonly h: number;
  readonly tiles: Uint8Array;
  readonly targets: Uint8Array;
  readonly targetCount: number;
  readonly board: Board;
}

export interface PushState {
  readonly layout: Layout;
  /** 1 where a block stands, row-major over the level's map. */
  readonly blocks: Uint8Array;
  readonly agent: number;
  /** Direction the agent faces, 0-3 as ACTION1-ACTION4 (for pulling). */
  readonly facing: number;
  readonly energy: number;
  readonly maxEnergy: number;
}

function blockCells(blocks: Uint8Array): number[] {
  const cells: number[] = [];
  for (let i = 0; i < blocks.length; i++) if (blocks[i]) cells.push(i);
  return cells;
}

function loadLevel(level: PushLevel): PushState {
  const m = parseMap(level.map);
  const { width: w, height: h } = m;
  const tiles = new Uint8Array(w * h),
    targets = new Uint8Array(w * h),
    blocks = new Uint8Array(w * h);
  let agent = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const ch = m.at(x, y);
      tiles[i] = ch === '#' ? WALL : ch === '~' || ch === '%' ? ICE : ch === ' ' ? VOID : FLOOR;
      if (ch === 'o' || ch === '*' || ch === '+') targets[i] = 1;
      if (ch === 'b' || ch === '*' || ch === '%') blocks[i] = 1;
      if (ch === '@' || ch === '+') agent = i;
      if (!'#.~@bo*+% '.includes(ch))
        throw new Error(`push map has "${ch}" at column ${x + 1}, row ${y + 1}: use # . ~ @ b o * + % or space.`);
    }
  }
  if (agent < 0) throw new Error('push map has no agent "@".');
  const targetCount = targets.reduce((a, b) => a + b, 0);
  const cell = Math.min(7, Math.floor(64 / w), Math.floor(58 / h));
  return {
    layout: { w, h, tiles, targets, targetCount, board: board(w, h, cell, 6) },
    blocks,
    agent,
    facing: 3,
    energy: level.energy,
    maxEnergy: level.energy,
  };
}

/** A cell a block or the agent may enter: inside, not a wall, no block. */
function open(s: PushState, blocks: Uint8Array, x: number, y: number): boolean {
  const { w, h, tiles } = s.layout;
  if (x < 0 || y < 0 || x >= w || y >= h) return false;
  const t = tiles[y * w + x];
  return (t === FLOOR || t === ICE) && blocks[y * w + x] === 0;
}

function solved(s: PushState): boolean {
  const { targets, targetCount } = s.layout;
  let on = 0;
  for (let i = 0; i < targets.length; i++) if (targets[i] && s.blocks[i]) on++;
  return on === targetCount;
}

const ACTIONS: readonly ActionId[] = [1, 2, 3, 4, 5];

export const push = defineGame<PushState, PushLevel>({
  id: 'push',
  title: 'Push',
  summary: 'Push blocks onto targets; ice makes things slide, the action key pulls. Keys only.',
  levels,
  actions: ACTIONS,
  fps: 12,
  init: loadLevel,
  step(s, input, ctx) {
    const { w } = s.layout;
    const energy = s.energy - 1;
    const ax = s.agent % w,
      ay = (s.agent - ax) / w;
    if (input.action === 'ACTION5') {
      // Pull: step back from the faced block, bringing it along. Pulling never slides.
      const d = s.facing;
      const bx = ax + DX[d],
        by = ay + DY[d],
        tx = ax - DX[d],
        ty = ay - DY[d];
      const bi = by * w + bx;
      if (bx < 0 || by < 0 || bx >= w || by >= s.layout.h || !s.blocks[bi] || !open(s, s.blocks, tx, ty))
        return { ...s, energy };
      const blocks = s.blocks.slice();
      blocks[bi] = 0;
      blocks[s.agent] = 1;
      return { ...s, blocks, agent: ty * w + tx, energy };
    }
    const d = input.action === 'ACTION1' ? 0 : input.action === 'ACTION2' ? 1 : input.action === 'ACTION3' ? 2 : 3;
    const dx = DX[d],
      dy = DY[d];
    let nx = ax + dx,
      ny = ay + dy;
    let blocks = s.blocks;
    if (nx >= 0 && ny >= 0 && nx < w && ny < s.layout.h && s.blocks[ny * w + nx]) {
      // Push: the block moves one cell, then keeps sliding while it stands on ice.
      let bx = nx + dx,
        by = ny + dy;
      if (!open(s, s.blocks, bx, by)) return { ...s, facing: d, energy };
      blocks = s.blocks.slice();
      blocks[ny * w + nx] = 0;
      blocks[by * w + bx] = 1;
      while (s.layout.tiles[by * w + bx] === ICE && open(s, blocks, bx + dx, by + dy)) {
        ctx.animate({ ...s, blocks: blocks.slice(), agent: ny * w + nx, facing: d, energy });
        blocks[by * w + bx] = 0;
        bx += dx;
        by += dy;
        blocks[by * w + bx] = 1;
      }
    } else if (!open(s, blocks, nx, ny)) {
      return { ...s, facing: d, energy };
    }
    // The agent slides on ice too.
    while (s.layout.tiles[ny * w + nx] === ICE && open(s, blocks, nx + dx, ny + dy)) {
      ctx.animate({ ...s, blocks, agent: ny * w + nx, facing: d, energy });
      nx += dx;
      ny += dy;
    }
    return { ...s, blocks, agent: ny * w + nx, facing: d, energy };
  },
  outcome: (s) => (solved(s) ? 'won' : s.energy <= 0 ? 'lost' : 'playing'),
  // Where the blocks stand, as cell indices: a few numbers instead of one byte per cell, so the
  // solver's exact state keys stay short.
  key: (s) => [blockCells(s.blocks), s.agent, s.facing, s.energy],
  render(s, frame: Frame) {
    frame.fill(Colour.charcoal);
    drawBar(frame, 2, 1, 60, 3, s.energy, s.maxEnergy, Colour.yellow, Colour.darkGrey);
    const { w, h, tiles, targets, board: b } = s.layout;
    const c = b.cell;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x,
          px = b.x0 + x * c,
          py = b.y0 + y * c;
        const t = tiles[i];
        if (t === VOID) continue;
        fillRect(frame, px, py, c, c, t === WALL ? Colour.grey : t === ICE ? Colour.lightBlue : Colour.white);
        if (t === WALL) fillRect(frame, px + 1, py + 1, c - 1, c - 1, Colour.darkGrey);
        if (targets[i]) strokeRect(frame, px + 1, py + 1, c - 2, c - 2, Colour.green);
        if (s.blocks[i]) {
          fillRect(frame, px, py, c, c, targets[i] ? Colour.green : Colour.blue);
          strokeRect(frame, px, py, c, c, targets[i] ? Colour.darkGrey : Colour.charcoal);
        }
      }
    }
    const ax = s.agent % w,
      ay = (s.agent - ax) / w;
    const px = b.x0 + ax * c,
      py = b.y0 + ay * c;
    fillRect(frame, px + 1, py + 1, c - 2, c - 2, Colour.orange);
    // The eye shows which way the agent faces: the block it would pull.
    const mid = Math.floor(c / 2) - 1;
    const ex = s.facing === 2 ? px + 1 : s.facing === 3 ? px + c - 3 : px + mid;
    const ey = s.facing === 0 ? py + 1 : s.facing === 1 ? py + c - 3 : py + mid;
    fillRect(frame, ex, ey, 2, 2, Colour.black);
  },
});
