/**
 * The running study's side effects, one hook each: a proctor's break logged where it begins and
 * ends, the session's time budget watched, the way from one item to the next, and the session
 * closed on the server. The state they change is `runMachine`'s only: each logs or sends, then
 * dispatches the step.
 */
import { useCallback, useEffect, useRef, type Dispatch } from 'react';
import { ApiError } from '../api';
import type { Pause } from '../../core/study/pauses';
import { finishSession } from './api';
import { budgetLeft, sessionBudget } from './budget';
import { OutboxDisposedError } from './outbox';
import type { RunState, RunStep } from './runMachine';
import { enterItem, nextPosition, sleep, type DescribableItem, type Running } from './running';

type State = RunState<DescribableItem>;
type Step = RunStep<DescribableItem>;

/** Whether the last break is still open: a reload in the middle of one finds it in the log. */
function inBreak(breaks: readonly Pause[]): boolean {
  return breaks.length > 0 && breaks[breaks.length - 1].to === null;
}

/** Logs a proctor's break once where it begins and once where it ends, and keeps `run.breaks` for the clocks. */
export function useBreakLog(run: Running, paused: boolean, finishing: boolean): void {
  const { outbox } = run;
  useEffect(() => {
    if (paused === inBreak(run.breaks) || finishing) return;
    const { t } = outbox.append('pause', { state: paused ? 'paused' : 'resumed' });
    const last = run.breaks.length - 1;
    if (paused) run.breaks.push({ from: t, to: null });
    else if (last >= 0) run.breaks[last] = { from: run.breaks[last].from, to: t };
  }, [paused, finishing, outbox, run]);
}

/**
 * The session's time budget: by the server's clock when the view was read, then the events'
 * clock. When it runs out, the item on screen ends and so does the study.
 */
export function useSessionTimeLimit(run: Running, state: State, dispatch: Dispatch<Step>): void {
  const { outbox } = run;
  const items = run.view.items;
  const { budget, index, finishing } = state;
  useEffect(() => {
    const id = setInterval(() => {
      if (budgetLeft(budget, outbox.now(), run.breaks) <= 0 && !finishing && index < items.length) {
        const item = items[index];
        if (item) outbox.append('item.end', { item: item.id, reason: 'session_time' });
        dispatch({ type: 'session_time_up', items: items.length });
      }
    }, 1000);
    return () => clearInterval(id);
  }, [outbox, budget, items, index, finishing, run.breaks, dispatch]);
}

/** How the participant leaves an item: `next` ends it (once), `advance` and `moveOn` go on. */
export interface ItemFlow {
  /** Goes to the next item the session still starts, behind a veil while the server is asked. */
  readonly moveOn: () => void;
  /** Goes to the next item, after the item's last written description when it asks for one. */
  readonly advance: () => void;
  /** Ends the item on screen for `reason`, then goes on (after the hard limit's notice when that ended it). */
  readonly next: (reason: string) => void;
}

/** The participant's way from one item to the next, each item ended once. */
export function useItemFlow(run: Running, state: State, dispatch: Dispatch<Step>): ItemFlow {
  const { outbox } = run;
  const items = run.view.items;
  const { index, moving } = state;
  // A time limit and a click can both end an item in one turn, before the state says so: it ends once.
  const ended = useRef(new Set<string>());
  const moveOn = useCallback(() => {
    if (moving) return;
    dispatch({ type: 'move_start' });
    void nextPosition(run, index + 1).then(({ to, view: fresh }) => {
      enterItem(run, items[to]);
      dispatch({
        type: 'moved',
        to,
        budget: fresh ? sessionBudget(fresh, outbox.now()) : null,
        skipped: fresh ? fresh.progress.items.filter((i) => i.skipped).map((i) => i.id) : undefined,
      });
    });
  }, [items, index, run, outbox, moving, dispatch]);
  const advance = useCallback(() => {
    const item = items[index];
    if (item && (item.kind === 'task' || item.kind === 'game') && run.describeLast.get(item.id))
      dispatch({ type: 'describe', item });
    else moveOn();
  }, [items, index, run, moveOn, dispatch]);
  const next = useCallback(
    (reason: string) => {
      const item = items[index];
      if (!item || ended.current.has(item.id)) return;
      ended.current.add(item.id);
      outbox.append('item.end', { item: item.id, reason });
      // The hard limit says what happened before the study moves on.
      if (reason === 'time_up' && item.kind !== 'page' && item.kind !== 'survey')
        dispatch({ type: 'item_time_up', minutes: item.limits.hardMinutes });
      else advance();
    },
    [items, index, outbox, advance, dispatch],
  );
  return { moveOn, advance, next };
}

/** Closing the session: `finish` ends it on the server, `stop` keeps it from trying (after a withdrawal). */
export interface SessionClose {
  readonly finish: () => Promise<void>;
  readonly stop: () => void;
}

/**
 * Ends the session once the server has every event. The participant sees a clear error, and
 * loses nothing, when the server refuses the session or cannot close it.
 */
export function useSessionClose(
  run: Running,
  sessionTimeUp: boolean,
  dispatch: Dispatch<Step>,
  onDone: (code: string, redirect: string | null, redirectAfterSeconds: number, timeUpMinutes: number | null) => void,
): SessionClose {
  const { outbox, view } = run;
  // Both guard across calls that begin in one turn (an effect run twice, a retry), before any state is seen.
  const started = useRef(false);
  const endLogged = useRef(run.history.some((e) => e.kind === 'session.end'));
  const finish = useCallback(async () => {
    if (started.current) return;
    started.current = true;
    dispatch({ type: 'finish_start' });
    if (!endLogged.current) {
      endLogged.current = true;
      outbox.append('session.end', { wallClock: new Date().toISOString() });
    }
    for (let attempt = 0; ; attempt++) {
      try {
        await outbox.drained();
      } catch (e) {
        // Disposed: the page is going away, and the next load finishes the session.
        if (!(e instanceof OutboxDisposedError)) dispatch({ type: 'finish_failed', message: (e as Error).message });
        started.current = false;
        return;
      }
      try {
        const r = await finishSession(outbox.sessionId, run.record.token, outbox.lastSeq);
        onDone(
          r.completionCode,
          r.redirectUrl,
          r.redirectAfterSeconds,
          sessionTimeUp ? view.study.limits.sessionMinutes : null,
        );
        return;
      } catch (e) {
        const retry = !(e instanceof ApiError) || e.status === 0 || e.status >= 500 || e.code === 'events_pending';
        if (!retry || attempt >= 20) {
          dispatch({
            type: 'finish_failed',
            message: `The server could not close the session: ${(e as Error).message}`,
          });
          started.current = false;
          return;
        }
        await sleep(Math.min(10_000, 500 * 2 ** Math.min(attempt, 5)));
      }
    }
  }, [outbox, run.record.token, onDone, sessionTimeUp, view, dispatch]);
  const stop = useCallback(() => {
    started.current = true;
  }, []);
  return { finish, stop };
}
