/**
 * The grid player's screen state. The puzzle state itself is `PlayerState` from the pure core,
 * advanced only by logged events; this store adds what the screen alone needs (a selection being
 * dragged, the status message, whether a submission is in flight).
 */
import { create } from 'zustand';
import { initialPlayer, type GridSide, type PlayerState } from '../../core/log/gridPlayer';
import type { Cell, Rect } from '../../core/grid/grid';

export interface Notice {
  readonly tone: 'info' | 'success' | 'error';
  readonly text: string;
  /** Increases with every notice, so a repeated message still re-announces. */
  readonly id: number;
}

export interface PlayerScreen {
  readonly state: PlayerState;
  /** The rectangle being dragged with the select tool, before it is logged on release. */
  readonly dragSelection: { side: GridSide; rect: Rect } | null;
  /** How far the output selection is being dragged, before the move is logged on release. */
  readonly dragMove: { dr: number; dc: number } | null;
  /** The keyboard's cell cursor on each grid (arrow keys move it; Space acts at it). */
  readonly cursor: { readonly input: Cell; readonly output: Cell };
  /** The grid that has the keyboard focus, whose cursor is shown; null when neither has. */
  readonly focused: GridSide | null;
  readonly notice: Notice | null;
  readonly submitting: boolean;
}

export const usePlayer = create<PlayerScreen>(() => ({
  state: initialPlayer(),
  dragSelection: null,
  dragMove: null,
  cursor: { input: { row: 0, col: 0 }, output: { row: 0, col: 0 } },
  focused: null,
  notice: null,
  submitting: false,
}));

let noticeId = 0;
export function notify(tone: Notice['tone'], text: string): void {
  usePlayer.setState({ notice: { tone, text, id: ++noticeId } });
}
