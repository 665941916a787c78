// A complete game in one file: walk the agent to the goal before the budget bar runs out.
import { Colour, board, defineGame, drawBar, fillRect, parseMap, type Board, type Frame } from './index';

interface Level {
  map: string;
  budget: number;
}

interface State {
  readonly walls: Uint8Array; // static: shared by every state of the level
  readonly w: number;
  readonly goal: number;
  readonly board: Board;
  readonly agent: number; // cell index y * w + x on the map
  readonly budget: number;
  readonly maxBudget: number;
}

const levels: Level[] = [
  {
    budget: 8,
    map: `
      #######
      #@...G#
      #######`,
  },
  {
    budget: 12,
    map: `
      #######
      #@#...#
      #.#.#.#
      #...#G#
      #######`,
  },
];

export const reach = defineGame<State, Level>({
  id: 'rech',
  title: 'Reach',
  levels,
  actions: [1, 2, 3, 4], // up, down, left, right; undo (ACTION7) is added by the engine
  init(level) {
    const m = parseMap(level.map);
    const walls = new Uint8Array(m.width * m.height);
    for (const [x, y] of m.find('#')) walls[y * m.width + x] = 1;
    const [[ax, ay]] = m.find('@');
    const [[gx, gy]] = m.find('G');
    return {
      walls,
      w: m.width,
      goal: gy * m.width + gx,
      board: board(m.width, m.height, 8, 6),
      agent: ay * m.width + ax,
      budget: level.budget,
      maxBudget: level.budget,
    };
  },
  step(s, input) {
    const a = input.action;
    const d = a === 'ACTION1' ? -s.w : a === 'ACTION2' ? s.w : a === 'ACTION3' ? -1 : 1;
    const next = s.agent + d;
    // Every key press costs one unit of budget, a bump into a wall too.
    return { ...s, agent: s.walls[next] ? s.agent : next, budget: s.budget - 1 };
  },
  outcome: (s) => (s.agent === s.goal ? 'won' : s.budget <= 0 ? 'lost' : 'playing'),
  render(s: State, frame: Frame) {
    drawBar(frame, 2, 1, 60, 3, s.budget, s.maxBudget, Colour.yellow, Colour.lightGrey);
    const b = s.board;
    const cellXY = (i: number) => [b.x0 + (i % s.w) * b.cell, b.y0 + Math.floor(i / s.w) * b.cell] as const;
    s.walls.forEach((wall, i) => {
      if (wall) fillRect(frame, ...cellXY(i), b.cell, b.cell, Colour.darkGrey);
    });
    fillRect(frame, ...cellXY(s.goal), b.cell, b.cell, Colour.green);
    const [ax, ay] = cellXY(s.agent);
    fillRect(frame, ax + 1, ay + 1, b.cell - 2, b.cell - 2, Colour.orange);
  },
  key: (s) => [s.agent, s.budget], // what identifies a state, for the solver (stateKey)
});
