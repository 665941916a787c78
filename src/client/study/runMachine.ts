/**
 * The participant's way through a running study, as one explicit state machine: which item is
 * on screen, and what stands in front of it (the instructions, an item's last written
 * description, the hard-limit notice, the session being saved, a failure to close it).
 *
 * The reducer is pure: what each step logs or sends is done by `StudyRun` and its hooks
 * (`runEffects.ts`), which dispatch the step once its side effect is under way. `screenOf` says
 * which screen a state shows, in one order of precedence.
 */
import type { SessionBudget } from './budget';

/** An item that asks for a last written description after it ends (a task or game with `describe`). */
export interface DescribedItem {
  readonly id: string;
}

export interface RunState<I extends DescribedItem = DescribedItem> {
  /** The position in the session's item list; `items` (the length) once every item is done. */
  readonly index: number;
  readonly instructionsDone: boolean;
  /** The item whose last written description is asked for, after it ended. */
  readonly describing: I | null;
  /** The hard limit (minutes) of the item it just closed, shown until the participant goes on. */
  readonly timeUp: number | null;
  /** The session's own time budget ran out. */
  readonly sessionTimeUp: boolean;
  /** The session is being closed on the server. */
  readonly finishing: boolean;
  /** Why the server could not close the session, until the participant tries again. */
  readonly finishError: string | null;
  /** The next item is being looked up (whether the time left still allows it). */
  readonly moving: boolean;
  /** The withdrawal dialog is open. */
  readonly withdrawing: boolean;
  readonly budget: SessionBudget;
  /** Pool candidates the server will not start: too little of the session's time was left for them. */
  readonly skipped: ReadonlySet<string>;
}

export type RunStep<I extends DescribedItem = DescribedItem> =
  /** The participant read the instructions and began the first item. */
  | { readonly type: 'begin' }
  /** An item was closed by its hard limit: the notice says so before the study moves on. */
  | { readonly type: 'item_time_up'; readonly minutes: number }
  /** The participant dismissed the hard-limit notice. */
  | { readonly type: 'time_up_seen' }
  /** An item ended and asks for its last written description. */
  | { readonly type: 'describe'; readonly item: I }
  /** The last description was saved after a reload had already moved the study on. */
  | { readonly type: 'described' }
  /** The next item is being looked up. */
  | { readonly type: 'move_start' }
  /** The next item is known (`to`; the item list's length when none is left), with a fresher budget if the server was reached. */
  | {
      readonly type: 'moved';
      readonly to: number;
      readonly budget: SessionBudget | null;
      readonly skipped?: readonly string[];
    }
  /** The session's budget ran out: every item is over. */
  | { readonly type: 'session_time_up'; readonly items: number }
  | { readonly type: 'finish_start' }
  | { readonly type: 'finish_failed'; readonly message: string }
  | { readonly type: 'withdraw_open' }
  | { readonly type: 'withdraw_cancel' };

export function initialRunState<I extends DescribedItem>(start: {
  index: number;
  instructionsDone: boolean;
  describing: I | null;
  budget: SessionBudget;
  skipped?: readonly string[];
}): RunState<I> {
  return {
    index: start.index,
    instructionsDone: start.instructionsDone,
    describing: start.describing,
    timeUp: null,
    sessionTimeUp: false,
    finishing: false,
    finishError: null,
    moving: false,
    withdrawing: false,
    budget: start.budget,
    skipped: new Set(start.skipped ?? []),
  };
}

export function runReducer<I extends DescribedItem>(s: RunState<I>, step: RunStep<I>): RunState<I> {
  switch (step.type) {
    case 'begin':
      return { ...s, instructionsDone: true };
    case 'item_time_up':
      return { ...s, timeUp: step.minutes };
    case 'time_up_seen':
      return { ...s, timeUp: null };
    case 'describe':
      return { ...s, describing: step.item };
    case 'described':
      return { ...s, describing: null };
    case 'move_start':
      return { ...s, describing: null, moving: true };
    case 'moved':
      return {
        ...s,
        index: step.to,
        moving: false,
        budget: step.budget ?? s.budget,
        skipped: step.skipped ? new Set([...s.skipped, ...step.skipped]) : s.skipped,
      };
    case 'session_time_up':
      return { ...s, sessionTimeUp: true, timeUp: null, index: step.items };
    case 'finish_start':
      return { ...s, finishing: true, finishError: null };
    case 'finish_failed':
      return { ...s, finishError: step.message };
    case 'withdraw_open':
      return { ...s, withdrawing: true };
    case 'withdraw_cancel':
      return { ...s, withdrawing: false };
  }
}

export type RunScreen = 'describe' | 'finish_error' | 'time_up' | 'saving' | 'instructions' | 'item';

/** The screen a state shows, first match wins: a pending description, a failed close, the hard-limit notice, saving, the instructions, the item. */
export function screenOf(s: RunState, items: number): RunScreen {
  if (s.describing) return 'describe';
  if (s.finishError !== null) return 'finish_error';
  if (s.timeUp !== null) return 'time_up';
  if (s.finishing || s.index >= items) return 'saving';
  if (!s.instructionsDone) return 'instructions';
  return 'item';
}

/**
 * The skipped candidates the participant has gone past (those still ahead are not named yet:
 * the time left decides again when the study reaches them), in the session's order.
 */
export function skippedBehind(s: RunState, itemIds: readonly string[]): string[] {
  return itemIds.slice(0, s.index).filter((id) => s.skipped.has(id));
}

/** Whether the participant is still on an item (the header offers withdrawal and shows the clock). */
export function onItems(s: RunState, items: number): boolean {
  return !s.finishing && s.index < items;
}
