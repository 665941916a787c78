/**
 * The labelled marks of a replay's timeline: what a researcher looks for when scrubbing one
 * item's log. Pure, so the studio draws them and a test can read them from the same log.
 *
 * - `item`: the item started (`item.start`);
 * - `tool`: a run of the same grid tool action (`GRID_ACTION_KINDS`, a copy to the clipboard, a
 *   switch of test input): one mark for a 12-cell paint stroke, not twelve;
 * - `submit`: a submission with its verdict (`correct`, `wrong` or `duplicate`);
 * - `hidden`, `idle` and `paused` (a proctor's break): the stretches `presenceSpans` finds, the ones time on task leaves out
 *   (with their length, `ms`);
 * - `level`, `reset`, `undo`, `game-over`: what a game's run did;
 * - `blur`: the window lost the keyboard focus.
 *
 * Positions are replay positions: `at` is the number of events applied when the mark is shown
 * (the state after its last event; for a stretch, its first event).
 */
import type { LogEvent } from '../log/events';
import { GRID_ACTION_KINDS } from './actions';
import { presenceSpans } from './activeTime';
import { ITEM_START } from './rules';

export type MarkKind =
  'item' | 'tool' | 'submit' | 'hidden' | 'idle' | 'paused' | 'level' | 'reset' | 'undo' | 'game-over' | 'blur';

export interface ReplayMark {
  readonly kind: MarkKind;
  /** Index of the first event of the mark. */
  readonly from: number;
  /** Index of its last event (equal to `from` for one event). */
  readonly to: number;
  /** The replay position that shows it. */
  readonly at: number;
  /** What happened, in words: "submit test 1: wrong (trial 2)", "idle". */
  readonly label: string;
  /** A stretch's length (hidden or idle), ms. */
  readonly ms?: number;
  /** A submission's verdict. */
  readonly verdict?: string;
}

/** Tool actions that are marked besides the grid-changing ones. */
const TOOL_KINDS: ReadonlySet<string> = new Set([...GRID_ACTION_KINDS, 'copy', 'test.select']);

const num = (v: unknown) => Number(v);

/**
 * One event in words, as the replay's status line shows it.
 *
 * @example
 * describeEvent({ seq: 4, t: 0, kind: 'resize', data: { rows: 3, cols: 5 } }) // "resize to 3x5"
 */
export function describeEvent(e: LogEvent | undefined): string {
  if (!e) return 'start';
  const d = e.data;
  switch (e.kind) {
    case 'game.action':
      return `${String(d.action)}${d.action === 'ACTION6' ? ` at (${String(d.x)}, ${String(d.y)})` : ''} → level ${num(d.level) + 1}, ${String(d.state)}`;
    case 'paint':
      return `paint (${String(d.row)}, ${String(d.col)}) colour ${String(d.color)}`;
    case 'fill':
      return `flood fill at (${String(d.row)}, ${String(d.col)}) colour ${String(d.color)}`;
    case 'submit':
      return `submit test ${num(d.index) + 1}: ${String(d.verdict)} (trial ${String(d.trial)})`;
    case 'resize':
      return `resize to ${String(d.rows)}x${String(d.cols)}`;
    case 'recolor':
      return `recolour the selection to ${String(d.color)}`;
    case 'rotate':
      return `rotate ${d.dir === 'cw' ? 'clockwise' : 'anticlockwise'}`;
    case 'flip':
      return `flip ${String(d.axis)}`;
    case 'move':
      return `move the selection by (${String(d.dr)}, ${String(d.dc)})`;
    case 'copy.input':
      return 'copy the input';
    case 'test.select':
      return `switch to test ${num(d.index) + 1}`;
    case 'copy':
      return `copy from the ${String(d.side)}`;
    case 'paste':
      return `paste at (${String(d.row)}, ${String(d.col)})`;
    case ITEM_START:
      return `start of ${String(d.item)}`;
    default:
      return e.kind;
  }
}

/** The label of a run of `n` tool actions of one kind starting at `first`. */
function toolLabel(first: LogEvent, n: number): string {
  if (first.kind === 'paint') return n === 1 ? 'paint 1 cell' : `paint ${n} cells`;
  return n === 1 ? describeEvent(first) : `${first.kind} ×${n}`;
}

/** A game action's mark, if it is one a researcher looks for. */
function gameMark(e: LogEvent, prev: LogEvent | undefined): { kind: MarkKind; label: string } | null {
  if (e.data.action === 'RESET') return { kind: 'reset', label: 'reset' };
  if (prev?.kind === 'game.action' && num(e.data.level) > num(prev.data.level))
    return { kind: 'level', label: `level ${num(e.data.level)} completed` };
  if (e.data.state === 'GAME_OVER') return { kind: 'game-over', label: 'game over' };
  if (e.data.action === 'ACTION7') return { kind: 'undo', label: 'undo' };
  return null;
}

/**
 * The marks of one item's events, in log order (a stretch by its first event).
 *
 * @example
 * replayMarks(events).filter((m) => m.kind === 'submit').map((m) => m.label)
 * // ["submit test 1: wrong (trial 1)", "submit test 1: correct (trial 2)"]
 */
export function replayMarks(events: readonly LogEvent[]): ReplayMark[] {
  const marks: ReplayMark[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    const one = (kind: MarkKind, label: string, verdict?: string) =>
      marks.push({ kind, from: i, to: i, at: i + 1, label, ...(verdict === undefined ? {} : { verdict }) });
    if (e.kind === ITEM_START) one('item', describeEvent(e));
    else if (e.kind === 'submit') one('submit', describeEvent(e), String(e.data.verdict));
    else if (e.kind === 'blur' || e.kind === 'window.blur') one('blur', 'window lost focus');
    else if (e.kind === 'game.action') {
      const m = gameMark(e, events[i - 1]);
      if (m) one(m.kind, m.label);
    } else if (TOOL_KINDS.has(e.kind)) {
      // A run of one kind: later events of it extend the mark (other kinds in between end it,
      // except tool and colour choices, which change no grid).
      let j = i;
      let n = 1;
      for (let k = i + 1; k < events.length; k++) {
        const x = events[k];
        if (x.kind === e.kind && e.kind !== 'test.select' && e.kind !== 'resize') {
          j = k;
          n++;
          continue;
        }
        if (x.kind === 'stroke.end' || x.kind === 'color' || x.kind === 'heartbeat') continue;
        break;
      }
      marks.push({ kind: 'tool', from: i, to: j, at: j + 1, label: toolLabel(e, n) });
      i = j;
    }
  }
  for (const s of presenceSpans(events)) {
    marks.push({
      kind: s.kind,
      from: s.from,
      to: s.to,
      at: s.from + 1,
      label: s.kind === 'hidden' ? 'tab hidden' : s.kind === 'paused' ? 'break' : 'idle',
      ms: s.ms,
    });
  }
  return marks.sort((a, b) => a.from - b.from || a.to - b.to);
}
