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
  /** What the notice speaks of: the test input shown and the output grid as it was (see `notify`). */
  readonly about: NoticeSubject;
}

export interface NoticeSubject {
  readonly test: number;
  /** `PlayerScreen.edits` then. */
  readonly edits: number;
}

const subjectOf = (s: Pick<PlayerScreen, 'state' | 'edits'>): NoticeSubject => ({
  test: s.state.testIndex,
  edits: s.edits,
});

function describes(about: NoticeSubject, s: PlayerScreen): boolean {
  return about.test === s.state.testIndex && about.edits === s.edits;
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
  /**
   * How many edits of an output grid were made (paint, fill, paste, resize, undo, ...), whether or
   * not they changed a cell: what the status line's messages are measured against (`notify`).
   */
  readonly edits: number;
}

export const usePlayer = create<PlayerScreen>(() => ({
  state: initialPlayer(),
  dragSelection: null,
  dragMove: null,
  cursor: { input: { row: 0, col: 0 }, output: { row: 0, col: 0 } },
  focused: null,
  notice: null,
  submitting: false,
  edits: 0,
}));

let noticeId = 0;

/**
 * Shows a message in the status line, about the screen as it is now, or as it was at `about`
 * (a verdict on the grid that was submitted: if the grid changed while it was being checked, the
 * verdict is not shown beside the new one).
 *
 * The status line's rule: a message is cleared by the next change it no longer describes. Every
 * message is about the current test input and its output grid (a verdict on the grid submitted,
 * a hint on what to do next with it), so the next edit of the grid (a paint, a paste, an undo,
 * even one that leaves every cell as it was) or a move to another test input clears it,
 * whichever code made the change; a tool, a colour or a selection keeps it. A wrong verdict
 * therefore never stands beside a grid it was not given for.
 *
 * @example
 * notify('error', 'Not correct. 2 trials left.'); // shown
 * controller.pointerDown('output', cell);         // a cell painted: the line is cleared
 */
/** The subject of a message shown now (`notify`'s `about`, taken before an answer is awaited). */
export function currentSubject(): NoticeSubject {
  return subjectOf(usePlayer.getState());
}

export function notify(tone: Notice['tone'], text: string, about?: NoticeSubject): void {
  usePlayer.setState((s) => ({ notice: { tone, text, id: ++noticeId, about: about ?? subjectOf(s) } }));
}

// The rule above, kept for every change of the store, whichever code made it.
usePlayer.subscribe((s) => {
  if (s.notice && !describes(s.notice.about, s)) usePlayer.setState({ notice: null });
});
