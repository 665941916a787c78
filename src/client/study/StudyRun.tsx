/**
 * The running study: the item on screen and what stands in front of it, in one reducer
 * (`runMachine`); its side effects are hooks of their own (`runEffects`), its frame is
 * StudyHeader.tsx.
 */
import { useEffect, useReducer, type Dispatch } from 'react';
import { watchPresence } from '../log/presence';
import type { WithdrawReason, WithdrawResult } from '../../core/protocol/api';
import { WithdrawDialog } from './WithdrawDialog';
import { postResponse } from './api';
import { initialRunState, runReducer, screenOf, type RunState, type RunStep } from './runMachine';
import { useBreakLog, useItemFlow, useSessionClose, useSessionTimeLimit, type ItemFlow } from './runEffects';
import { enterItem, pendingDescription, sleep, type DescribableItem, type Running } from './running';
import {
  Centered,
  FinishError,
  InstructionsScreen,
  LastDescriptionScreen,
  SavingScreen,
  TimeUpScreen,
} from './RunScreens';
import { ItemView } from './ItemView';
import { BreakCover, ConnectionBanners, StudyHeader } from './StudyHeader';

/**
 * A session from the page load to its end: the instructions, each item in turn, the close on the
 * server. `onDone` gets the completion code once the server closed the session; `onWithdrawn` the
 * study's answer to a withdrawal.
 */
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
  const { outbox } = run;
  const items = run.view.items;
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
  const { index, finishing } = state;

  useBreakLog(run, paused, finishing);
  // Presence until the session ends: nothing is logged after `session.end`.
  useEffect(() => (finishing ? undefined : watchPresence(outbox)), [outbox, finishing]);
  const close = useSessionClose(run, state.sessionTimeUp, dispatch, onDone);
  const { finish } = close;
  useEffect(() => {
    if (index >= items.length) void finish();
  }, [index, items.length, finish]);
  useSessionTimeLimit(run, state, dispatch);
  const flow = useItemFlow(run, state, dispatch);

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
    close.stop();
    onWithdrawn(r);
  };

  return (
    <div className="flex h-full flex-col">
      <StudyHeader
        run={run}
        state={state}
        onWithdraw={() => {
          outbox.append('withdraw.open', {});
          dispatch({ type: 'withdraw_open' });
        }}
      />
      <ConnectionBanners outbox={outbox} finishError={state.finishError} />
      <main className="relative min-h-0 flex-1" inert={paused}>
        <RunBody run={run} state={state} dispatch={dispatch} flow={flow} onRetry={() => void finish()} />
        {/* The item that ended stays under a veil until the next one is known: the screen never goes blank between items. */}
        {state.moving && (
          <div className="absolute inset-0 flex items-center justify-center bg-slate-950/70" data-testid="moving-on">
            <p role="status" className="rounded-lg border border-slate-700 bg-slate-900 px-4 py-2 text-slate-200">
              Loading the next item…
            </p>
          </div>
        )}
      </main>
      {paused && <BreakCover />}
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

/** The screen the run's state shows (`screenOf`): a screen in front of the item, or the item. */
function RunBody({
  run,
  state,
  dispatch,
  flow,
  onRetry,
}: {
  run: Running;
  state: RunState<DescribableItem>;
  dispatch: Dispatch<RunStep<DescribableItem>>;
  flow: ItemFlow;
  /** Tries again to close the session on the server. */
  onRetry: () => void;
}) {
  const { outbox, view } = run;
  const items = view.items;
  const { index, sessionTimeUp } = state;
  const { moveOn, advance, next } = flow;
  const status = outbox.status();
  const screen = screenOf(state, items.length);
  if (screen === 'describe' && state.describing) {
    const describing = state.describing;
    return (
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
  }
  if (screen === 'finish_error' && state.finishError !== null) {
    return (
      <Centered>
        <FinishError
          message={state.finishError}
          outbox={outbox}
          onRetry={outbox.status.getState().fatal ? null : onRetry}
        />
      </Centered>
    );
  }
  if (screen === 'time_up' && state.timeUp !== null) {
    return (
      <TimeUpScreen
        minutes={state.timeUp}
        onContinue={() => {
          dispatch({ type: 'time_up_seen' });
          advance();
        }}
      />
    );
  }
  if (screen === 'saving') {
    return (
      <SavingScreen sessionMinutes={sessionTimeUp ? view.study.limits.sessionMinutes : null} pending={status.pending} />
    );
  }
  if (screen === 'instructions') {
    return (
      <InstructionsScreen
        markdown={view.study.instructions}
        onBegin={() => {
          outbox.append('instructions.done', {});
          enterItem(run, items[index]);
          dispatch({ type: 'begin' });
        }}
      />
    );
  }
  return (
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
