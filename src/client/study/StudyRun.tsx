/** The running study: the items in turn, the session's clocks, breaks, withdrawal and the close. */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { ApiError } from '../api';
import { watchPresence } from '../log/presence';
import { WithdrawDialog } from './WithdrawDialog';
import type { WithdrawReason, WithdrawResult } from '../../core/protocol/api';
import { Button } from '../ui/Button';
import { finishSession, postResponse } from './api';
import { Outbox, OutboxDisposedError } from './outbox';
import { budgetLeft, sessionBudget, type SessionBudget, formatClock } from './budget';
import type { Pause } from '../../core/study/pauses';
import { initialRunState, onItems, runReducer, screenOf, skippedBehind } from './runMachine';
import {
  type Running,
  enterItem,
  nextPosition,
  sleep,
  type DescribableItem,
  pendingDescription,
  downloadLog,
} from './running';
import {
  Centered,
  LastDescriptionScreen,
  TimeUpScreen,
  SavingScreen,
  InstructionsScreen,
  FinishError,
} from './RunScreens';
import { ItemView } from './ItemView';

export function StudyRun({
  run,
  paused,
  onDone,
  onWithdrawn,
}: {
  run: Running;
  /** A proctor's break: logged, the clocks stopped, the study covered until it ends. */
  paused: boolean;
  onDone: (code: string, redirect: string | null, redirectAfterSeconds: number, timeUpMinutes: number | null) => void;
  onWithdrawn: (r: WithdrawResult) => void;
}) {
  const { outbox, view } = run;
  const items = view.items;
  const [state, dispatch] = useReducer(runReducer<DescribableItem>, run, (r) =>
    initialRunState<DescribableItem>({
      index: r.start.index,
      instructionsDone: r.start.instructionsDone,
      // A reload on an item's last description (the item ended, the description not saved) asks again.
      describing: pendingDescription(r),
      budget: r.budget,
      skipped: r.view.progress.items.filter((i) => i.skipped).map((i) => i.id),
    }),
  );
  const { index, finishing, sessionTimeUp, budget } = state;
  const finishStarted = useRef(false);
  const endLogged = useRef(run.history.some((e) => e.kind === 'session.end'));
  const status = outbox.status();
  const counted = items.filter((i) => i.kind !== 'page');
  const position = items.slice(0, index).filter((i) => i.kind !== 'page').length;

  // A break is logged once where it begins and ends; a reload in the middle finds it in the log.
  const inBreak = useRef(run.breaks.length > 0 && run.breaks[run.breaks.length - 1].to === null);
  useEffect(() => {
    if (paused === inBreak.current || finishing) return;
    inBreak.current = paused;
    const { t } = outbox.append('pause', { state: paused ? 'paused' : 'resumed' });
    const last = run.breaks.length - 1;
    if (paused) run.breaks.push({ from: t, to: null });
    else if (last >= 0) run.breaks[last] = { from: run.breaks[last].from, to: t };
  }, [paused, finishing, outbox, run]);

  // Presence until the session ends: nothing is logged after `session.end`.
  useEffect(() => (finishing ? undefined : watchPresence(outbox)), [outbox, finishing]);

  /**
   * Ends the session once the server has every event. The participant sees a clear error, and
   * loses nothing, when the server refuses the session or cannot close it.
   */
  const finish = useCallback(async () => {
    if (finishStarted.current) return;
    finishStarted.current = true;
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
        finishStarted.current = false;
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
          finishStarted.current = false;
          return;
        }
        await sleep(Math.min(10_000, 500 * 2 ** Math.min(attempt, 5)));
      }
    }
  }, [outbox, run.record.token, onDone, sessionTimeUp, view]);

  useEffect(() => {
    if (index >= items.length) void finish();
  }, [index, items.length, finish]);

  // The session's time budget: by the server's clock when the view was read, then the events' clock.
  useEffect(() => {
    const id = setInterval(() => {
      if (budgetLeft(budget, outbox.now(), run.breaks) <= 0 && !finishing && index < items.length) {
        const item = items[index];
        if (item) outbox.append('item.end', { item: item.id, reason: 'session_time' });
        dispatch({ type: 'session_time_up', items: items.length });
      }
    }, 1000);
    return () => clearInterval(id);
  }, [outbox, budget, items, index, finishing, run.breaks]);

  const ended = useRef(new Set<string>());
  const moveOn = useCallback(() => {
    if (state.moving) return;
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
  }, [items, index, run, outbox, state.moving]);
  /** Goes to the next item, after the item's last written description when it asks for one. */
  const advance = useCallback(() => {
    const item = items[index];
    if (item && (item.kind === 'task' || item.kind === 'game') && run.describeLast.get(item.id))
      dispatch({ type: 'describe', item });
    else moveOn();
  }, [items, index, run, moveOn]);
  const next = useCallback(
    (reason: string) => {
      const item = items[index];
      // A time limit and a click can both end an item: it ends once.
      if (!item || ended.current.has(item.id)) return;
      ended.current.add(item.id);
      outbox.append('item.end', { item: item.id, reason });
      // The hard limit says what happened before the study moves on.
      if (reason === 'time_up' && item.kind !== 'page' && item.kind !== 'survey')
        dispatch({ type: 'item_time_up', minutes: item.limits.hardMinutes });
      else advance();
    },
    [items, index, outbox, advance],
  );

  const withdraw = async (reason: WithdrawReason, comment: string) => {
    const item = items[index];
    outbox.append('withdraw', { reason, ...(comment ? { comment } : {}) });
    // The log goes first, so the withdrawal is its last word; the request goes even if it is slow.
    await Promise.race([outbox.drained().catch(() => undefined), sleep(8000)]);
    const r = await postResponse(outbox.sessionId, run.record.token, 'withdraw', {
      reason,
      comment,
      item: item && index < items.length ? item.id : '',
    });
    finishStarted.current = true;
    onWithdrawn(r);
  };

  const screen = screenOf(state, items.length);
  let body: React.ReactNode;
  if (screen === 'describe' && state.describing) {
    const describing = state.describing;
    body = (
      <LastDescriptionScreen
        run={run}
        item={describing}
        onSaved={() => {
          run.describeLast.delete(describing.id);
          // After a reload the study is already on the next item.
          if (items[index]?.id === describing.id) moveOn();
          else dispatch({ type: 'described' });
        }}
      />
    );
  } else if (screen === 'finish_error' && state.finishError !== null) {
    body = (
      <Centered>
        <FinishError
          message={state.finishError}
          outbox={outbox}
          onRetry={outbox.status.getState().fatal ? null : () => void finish()}
        />
      </Centered>
    );
  } else if (screen === 'time_up' && state.timeUp !== null) {
    body = (
      <TimeUpScreen
        minutes={state.timeUp}
        onContinue={() => {
          dispatch({ type: 'time_up_seen' });
          advance();
        }}
      />
    );
  } else if (screen === 'saving') {
    body = (
      <SavingScreen sessionMinutes={sessionTimeUp ? view.study.limits.sessionMinutes : null} pending={status.pending} />
    );
  } else if (screen === 'instructions') {
    body = (
      <InstructionsScreen
        markdown={view.study.instructions}
        onBegin={() => {
          outbox.append('instructions.done', {});
          enterItem(run, items[index]);
          dispatch({ type: 'begin' });
        }}
      />
    );
  } else {
    body = (
      <div className="h-full" data-item={items[index].id} data-kind={items[index].kind}>
        <ItemView
          key={items[index].id}
          run={run}
          item={items[index]}
          onNext={next}
          showTimeLeft={view.study.showTimeLeft}
        />
      </div>
    );
  }
  const active = onItems(state, items.length);
  const skipped = skippedBehind(
    state,
    items.map((i) => i.id),
  );

  return (
    <div className="flex h-full flex-col">
      {/* The title is never cut: on a narrow screen it takes the first line and the rest wraps below it. */}
      <header className="flex min-h-11 shrink-0 flex-wrap items-center gap-x-4 gap-y-1 border-b border-slate-800 bg-slate-900 px-4 py-1.5">
        <span className="min-w-0 font-semibold text-slate-100" data-testid="study-title">
          {view.study.title}
        </span>
        {/* On a phone the controls wrap among themselves too, so the header stays as wide as the screen. */}
        <div className="ml-auto flex flex-wrap items-center justify-end gap-x-3 gap-y-1 text-xs text-slate-400">
          {active && (
            <Button
              tone="ghost"
              className="h-7 whitespace-nowrap text-xs"
              onClick={() => {
                outbox.append('withdraw.open', {});
                dispatch({ type: 'withdraw_open' });
              }}
            >
              Withdraw from study
            </Button>
          )}
          {active && state.instructionsDone && <BudgetClock budget={budget} outbox={outbox} breaks={run.breaks} />}
          {skipped.length > 0 && (
            <span
              className="whitespace-nowrap rounded bg-amber-500/20 px-1.5 py-0.5 text-amber-100"
              data-testid="study-skipped"
            >
              Skipped: not enough time left ({skipped.length} {skipped.length === 1 ? 'item' : 'items'})
            </span>
          )}
          <span className="whitespace-nowrap" data-testid="study-progress">
            {Math.min(position + (items[index]?.kind === 'page' ? 0 : 1), counted.length)} of {counted.length}
          </span>
          <div
            className="h-1.5 w-20 overflow-hidden rounded-full bg-slate-700 sm:w-48"
            role="progressbar"
            aria-label="Study progress"
            aria-valuemin={0}
            aria-valuemax={counted.length}
            aria-valuenow={position}
          >
            <div
              className="h-full bg-emerald-400 transition-all"
              style={{ width: `${(100 * position) / Math.max(1, counted.length)}%` }}
            />
          </div>
        </div>
      </header>
      {status.offline && (
        <div
          role="status"
          className="bg-amber-500/90 px-4 py-1.5 text-center text-sm font-medium text-black"
          data-testid="offline-banner"
        >
          {status.notice
            ? `${status.notice} (${status.pending} waiting)`
            : `The connection to the server is lost. Keep going: your work is saved in this browser and will be sent when the connection returns (${status.pending} waiting).`}
        </div>
      )}
      {status.fatal && state.finishError === null && (
        <div
          role="alert"
          className="flex items-center justify-center gap-3 bg-rose-700 px-4 py-1.5 text-center text-sm text-white"
          data-testid="fatal-banner"
        >
          <span>{status.fatal}</span>
          <Button onClick={() => void downloadLog(outbox)}>Download your actions</Button>
        </div>
      )}
      <main className="relative min-h-0 flex-1" inert={paused}>
        {body}
        {/* The item that ended stays under a veil until the next one is known: the screen never goes blank between items. */}
        {state.moving && (
          <div className="absolute inset-0 flex items-center justify-center bg-slate-950/70" data-testid="moving-on">
            <p role="status" className="rounded-lg border border-slate-700 bg-slate-900 px-4 py-2 text-slate-200">
              Loading the next item…
            </p>
          </div>
        )}
      </main>
      {paused && (
        <div
          role="dialog"
          aria-modal="true"
          aria-labelledby="break-title"
          className="fixed inset-0 z-50 flex items-center justify-center bg-slate-950 p-6"
          data-testid="study-paused"
        >
          <div className="max-w-md rounded-xl border border-slate-700 bg-slate-900 p-6 text-center">
            <h2 id="break-title" className="text-lg font-semibold text-white">
              Your session is paused for a break
            </h2>
            <p className="mt-2 text-sm text-slate-300">
              The clocks are stopped. Your work is saved; the proctor will resume the session here.
            </p>
          </div>
        </div>
      )}
      {state.withdrawing && (
        <WithdrawDialog
          onWithdraw={withdraw}
          onCancel={() => {
            outbox.append('withdraw.cancel', {});
            dispatch({ type: 'withdraw_cancel' });
          }}
        />
      )}
    </div>
  );
}

/**
 * The time left in the session, counting down each second; amber in its last ten minutes. It
 * ticks on its own, so the item on screen is not drawn again every second for it.
 */
function BudgetClock({ budget, outbox, breaks }: { budget: SessionBudget; outbox: Outbox; breaks: readonly Pause[] }) {
  const [left, setLeft] = useState(() => budgetLeft(budget, outbox.now(), breaks));
  useEffect(() => {
    const id = setInterval(() => setLeft(budgetLeft(budget, outbox.now(), breaks)), 1000);
    return () => clearInterval(id);
  }, [budget, outbox, breaks]);
  const low = left < 10 * 60_000;
  return (
    <span
      className={`flex items-center gap-1.5 whitespace-nowrap rounded px-2 py-0.5 ${low ? 'bg-amber-500/20 text-amber-100' : 'text-slate-300'}`}
      title="The time this study allows in all. When it runs out, the study ends and everything you did is kept."
    >
      Study time left{' '}
      <span className="font-mono tabular-nums text-slate-100" data-testid="session-time-left">
        {formatClock(left)}
      </span>
    </span>
  );
}
