/** The screens a running study shows in front of its items, and the page's error. */
import { useLayoutEffect, useRef } from 'react';
import { DescribeForm } from './DescribeForm';
import { Button } from '../ui/Button';
import { Markdown } from '../ui/Markdown';
import { Outbox } from './outbox';
import { spokenMinutes } from '../../core/study/duration';
import { type Running, type PageError, type DescribableItem, downloadLog } from './running';

export function StudyError({ error, studyId }: { error: PageError; studyId: string }) {
  if (error.unknownStudy) {
    return (
      <div
        role="alert"
        className="max-w-xl rounded-lg border border-amber-500/60 bg-amber-950/60 p-5 text-amber-100"
        data-testid="study-error"
      >
        <h1 className="text-lg font-semibold">This study link is not known</h1>
        <p className="mt-2 text-sm">
          There is no study <span className="break-all font-mono">{studyId}</span> on this server, so nothing has been
          recorded. Check that the link is complete: open it again from where you got it (the study platform or the
          researcher's message), or copy the whole link into the address bar. If it still does not open, tell the
          researcher the link you used.
        </p>
      </div>
    );
  }
  return (
    <div
      role="alert"
      className="max-w-xl rounded-lg border border-rose-500/50 bg-rose-950/60 p-5 text-rose-100"
      data-testid="study-error"
    >
      <h1 className="text-lg font-semibold">
        {error.saved ? 'The study cannot continue right now' : 'The study cannot start right now'}
      </h1>
      <p className="mt-2 text-sm">{error.message}</p>
      <p className="mt-2 text-sm">
        {error.saved ? 'Everything you did so far is saved in this browser.' : 'Nothing has been recorded yet.'} Reload
        this page to try again.
      </p>
    </div>
  );
}

/** `main` makes it the page's main landmark, for the pages shown outside the study's frame. */
export function Centered({ children, main = false }: { children: React.ReactNode; main?: boolean }) {
  const Tag = main ? 'main' : 'div';
  return <Tag className="flex h-full items-center justify-center overflow-y-auto p-6">{children}</Tag>;
}

export function LastDescriptionScreen({
  run,
  item,
  onSaved,
}: {
  run: Running;
  item: DescribableItem;
  onSaved: () => void;
}) {
  return (
    <Centered>
      <div className="w-full max-w-2xl rounded-xl border border-slate-800 bg-slate-900/70 p-8">
        <DescribeForm
          log={run.outbox}
          sessionId={run.record.id}
          token={run.record.token}
          item={item.id}
          stage="last"
          prompt={item.describe?.prompt ?? ''}
          resume={run.history}
          onSaved={onSaved}
        />
      </div>
    </Centered>
  );
}

export function TimeUpScreen({ minutes, onContinue }: { minutes: number; onContinue: () => void }) {
  // The alert takes the focus, so a screen reader reads it and Enter continues; whatever had the
  // focus in the item is gone with the item.
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => ref.current?.querySelector('button')?.focus(), []);
  return (
    <Centered>
      <div
        ref={ref}
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="time-up-title"
        aria-describedby="time-up-text"
        className="w-full max-w-xl rounded-xl border border-amber-500/50 bg-slate-900/80 p-8"
        data-testid="time-up"
      >
        <h1 id="time-up-title" className="text-2xl font-semibold text-white">
          Time is up for this item
        </h1>
        <p id="time-up-text" className="mt-3 text-slate-200">
          This item closes after {spokenMinutes(minutes)}, so the study moves on to the next one. Everything you did on
          this item is saved.
        </p>
        <div className="mt-6 flex justify-end">
          <Button tone="primary" onClick={onContinue}>
            Continue
          </Button>
        </div>
      </div>
    </Centered>
  );
}

/** The session is being closed; `sessionMinutes` when its time budget ended it. */
export function SavingScreen({ sessionMinutes, pending }: { sessionMinutes: number | null; pending: number }) {
  return (
    <Centered>
      <div className="text-center">
        {sessionMinutes !== null && (
          <p className="mb-3 text-slate-200" role="status">
            The study's time limit of {spokenMinutes(sessionMinutes)} has been reached, so it ends here.
          </p>
        )}
        <p className="text-lg text-white">Saving your answers…</p>
        <p className="mt-2 text-sm text-slate-400" data-testid="saving">
          {pending > 0 ? `${pending} actions still to send. Keep this page open.` : 'Almost done.'}
        </p>
      </div>
    </Centered>
  );
}

export function InstructionsScreen({ markdown, onBegin }: { markdown: string; onBegin: () => void }) {
  return (
    <Centered>
      <div className="w-full max-w-2xl rounded-xl border border-slate-800 bg-slate-900/70 p-8">
        <h1 className="mb-4 text-2xl font-semibold text-white">Instructions</h1>
        <div className="text-slate-200">
          <Markdown text={markdown} />
        </div>
        <div className="mt-6 flex justify-end">
          <Button tone="primary" onClick={onBegin}>
            Begin
          </Button>
        </div>
      </div>
    </Centered>
  );
}

/** The session could not be closed: what happened, the session's id, and every action to download. */
export function FinishError({
  message,
  outbox,
  onRetry,
}: {
  message: string;
  outbox: Outbox;
  onRetry: (() => void) | null;
}) {
  return (
    <div
      role="alert"
      className="max-w-xl rounded-lg border border-rose-500/50 bg-rose-950/60 p-5 text-rose-100"
      data-testid="finish-error"
    >
      <p className="font-semibold">Your session could not be completed on the server.</p>
      <p className="mt-2 text-sm">{message}</p>
      <p className="mt-2 text-sm">
        Nothing is lost: every action you took is kept in this browser. Download them and send the file to the
        researcher, quoting the session <span className="select-all font-mono">{outbox.sessionId}</span>.
      </p>
      <div className="mt-4 flex gap-2">
        <Button tone="primary" onClick={() => void downloadLog(outbox)}>
          Download your actions
        </Button>
        {onRetry && <Button onClick={onRetry}>Try again</Button>}
      </div>
    </div>
  );
}
