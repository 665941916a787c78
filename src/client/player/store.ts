/**
 * The grid player's screen state. The puzzle state itself is `PlayerState` from the pure core,
 * advanced only by logged events; this store adds what the screen alone needs (a selection being
 * dragged, the status message, whether a submission is in flight).
 */
import { create } from 'zustand';
import { initialPlayer, type GridSide, type PlayerState } from '../../core/log/gridPlayer';
import type { Rect } from '../../core/grid/grid';

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
  readonly notice: Notice | null;
  readonly submitting: boolean;
}

export const usePlayer = create<PlayerScreen>(() => ({
  state: initialPlayer(),
  dragSelection: null,
  notice: null,
  submitting: false,
}));

let noticeId = 0;
export function notify(tone: Notice['tone'], text: string): void {
  usePlayer.setState({ notice: { tone, text, id: ++noticeId } });
}
