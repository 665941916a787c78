/**
 * The running study's frame: the header (title, withdrawal, the session's clock, what was skipped,
 * progress), the connection's banners, and the cover over the study during a proctor's break.
 */
import { useEffect, useState } from 'react';
import type { Pause } from '../../core/study/pauses';
import { Button } from '../ui/Button';
import { budgetLeft, formatClock, type SessionBudget } from './budget';
import type { Outbox } from './outbox';
import { onItems, skippedBehind, type RunState } from './runMachine';
import { downloadLog, type Running } from './running';

/** The header of a running study; `onWithdraw` opens the withdrawal dialog. */
export function StudyHeader({ run, state, onWithdraw }: { run: Running; state: RunState; onWithdraw: () => void }) {
  const { outbox, view } = run;
  const items = view.items;
  const { index, budget } = state;
  const counted = items.filter((i) => i.kind !== 'page');
  const position = items.slice(0, index).filter((i) => i.kind !== 'page').length;
  const active = onItems(state, items.length);
  const skipped = skippedBehind(
    state,
    items.map((i) => i.id),
  );
  return (
    <>
      {/* The title is never cut: on a narrow screen it takes the first line and the rest wraps below it. */}
      <header className="flex min-h-11 shrink-0 flex-wrap items-center gap-x-4 gap-y-1 border-b border-slate-800 bg-slate-900 px-4 py-1.5">
        <span className="min-w-0 font-semibold text-slate-100" data-testid="study-title">
          {view.study.title}
        </span>
        {/* On a phone the controls wrap among themselves too, so the header stays as wide as the screen. */}
        <div className="ml-auto flex flex-wrap items-center justify-end gap-x-3 gap-y-1 text-xs text-slate-400">
          {active && (
            <Button tone="ghost" className="h-7 whitespace-nowrap text-xs" onClick={onWithdraw}>
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
    </>
  );
}

/** The connection's state over the study: offline (the work is kept), or a fatal refusal with the log to download. */
export function ConnectionBanners({ outbox, finishError }: { outbox: Outbox; finishError: string | null }) {
  const status = outbox.status();
  return (
    <>
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
      {status.fatal && finishError === null && (
        <div
          role="alert"
          className="flex items-center justify-center gap-3 bg-rose-700 px-4 py-1.5 text-center text-sm text-white"
          data-testid="fatal-banner"
        >
          <span>{status.fatal}</span>
          <Button onClick={() => void downloadLog(outbox)}>Download your actions</Button>
        </div>
      )}
    </>
  );
}

/** Covers the study while a proctor's break lasts. */
export function BreakCover() {
  return (
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
