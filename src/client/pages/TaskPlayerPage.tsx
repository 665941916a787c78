import { useLayoutEffect, useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useParams } from 'wouter';
import { taskIdsOf, taskOf } from '../tasks/queries';
import { practiceLog } from '../log/practice';
import { downloadText } from '../log/sessionLog';
import { TaskPlayer } from '../player/TaskPlayer';
import { browserJudge, serverJudge } from '../player/judge';
import { IMPORTED } from '../tasks/imported';
import { Button } from '../ui/Button';
import { isTyping } from '../player/actions';
import { ApiError } from '../api';
import { signedIn, useResearcher } from '../studio/auth';

/** The link to a task in the player. */
export function taskHref(collection: string, taskId: string): string {
  return `/tasks/${encodeURIComponent(collection)}/${taskId.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Practice mode, logged in IndexedDB: a practice collection's task, checked by the server; a task
 * imported in this browser, checked here; a sealed task, for the researcher's preview only.
 */
export function TaskPlayerPage() {
  const params = useParams<{ collection: string; '*': string }>();
  const collection = decodeURIComponent(params.collection);
  const taskId = params['*'].split('/').map(decodeURIComponent).join('/');
  const imported = collection === IMPORTED;
  const [, navigate] = useLocation();

  // Signing in or out changes what a sealed collection answers: re-read as the new person.
  useResearcher(signedIn);
  const taskQ = useQuery(taskOf(collection, taskId));
  const idsQ = useQuery(taskIdsOf(collection));
  const ids = idsQ.data ?? [];
  const at = ids.indexOf(taskId);
  const prev = at > 0 ? ids[at - 1] : null;
  const next = at >= 0 && at < ids.length - 1 ? ids[at + 1] : null;

  // Registered in the commit that shows the task and its neighbours, as the player's own keys are.
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === ']' && next) navigate(taskHref(collection, next));
      else if (e.key === '[' && prev) navigate(taskHref(collection, prev));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [collection, next, prev, navigate]);

  const log = practiceLog();
  const loaded = taskQ.data;
  const open = useMemo(() => (loaded ? { task: loaded.task, taskId, collection } : null), [loaded, taskId, collection]);
  const judge = useMemo(
    () => (loaded ? (loaded.answers === 'server' ? serverJudge(collection, taskId) : browserJudge(loaded.task)) : null),
    [loaded, collection, taskId],
  );
  // What the badge says is what the server answered: nothing while the task loads, and a sealed
  // task refused to a visitor is no practice task.
  const sealed = taskQ.error instanceof ApiError && taskQ.error.code === 'sealed';
  const badge = imported
    ? 'Practice · checked in this browser'
    : loaded
      ? loaded.answers === 'browser'
        ? 'Researcher preview'
        : 'Practice · checked on the server'
      : sealed
        ? 'Sealed · researchers only'
        : null;

  const nav = (
    <>
      <span className="hidden text-xs text-slate-500 xl:inline">{at >= 0 ? `${at + 1} of ${ids.length}` : ''}</span>
      <Button
        tone="ghost"
        disabled={!prev}
        onClick={() => prev && navigate(taskHref(collection, prev))}
        kbd="["
        aria-label="Previous task"
      >
        ‹ Previous
      </Button>
      <Button
        tone="ghost"
        disabled={!next}
        onClick={() => next && navigate(taskHref(collection, next))}
        kbd="]"
        aria-label="Next task"
      >
        Next ›
      </Button>
      <Button
        onClick={() => downloadText(`arc-studio-log-${log.startedAt.replace(/[:.]/g, '-')}.jsonl`, log.toJsonl())}
        title="Download every action of this browser session as JSON Lines"
      >
        Download log
      </Button>
    </>
  );

  return (
    <div className="flex h-full flex-col">
      <div className="flex min-h-9 shrink-0 flex-wrap items-center gap-x-2 gap-y-1 border-b border-slate-800 px-4 py-1 text-sm">
        <Link href={`/?c=${encodeURIComponent(collection)}`} className="text-slate-400 hover:text-white">
          Tasks
        </Link>
        <span className="text-slate-600">/</span>
        <span className="text-slate-400">{imported ? 'Imported' : collection}</span>
        <span className="text-slate-600">/</span>
        <h1 className="break-all font-mono text-slate-100" data-testid="task-id">
          {taskId}
        </h1>
        {badge && (
          <span
            className="ml-2 rounded bg-slate-800 px-1.5 py-0.5 text-[11px] uppercase tracking-wide text-slate-400"
            data-testid="judge-mode"
          >
            {badge}
          </span>
        )}
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto">
        {taskQ.isPending && <p className="p-6 text-slate-400">Loading task…</p>}
        {taskQ.isError && (
          <div
            role="alert"
            className="m-6 max-w-2xl rounded-lg border border-rose-500/50 bg-rose-950/60 p-4 text-rose-100"
          >
            <p className="font-semibold">This task cannot be opened.</p>
            <p className="mt-1 text-sm">{(taskQ.error as Error).message}</p>
            <div className="mt-3 flex gap-4 text-sm">
              {taskQ.error instanceof ApiError && taskQ.error.code === 'sealed' && (
                <Link href="/login" className="text-sky-300 underline">
                  Log in as researcher
                </Link>
              )}
              <Link href="/" className="text-sky-300 underline">
                Back to the task browser
              </Link>
            </div>
          </div>
        )}
        {open && judge && (
          <TaskPlayer
            key={`${collection}/${taskId}`}
            open={open}
            sink={log}
            judge={judge}
            toolbar={nav}
            onFinishedAction={
              next ? (
                <Button tone="primary" onClick={() => navigate(taskHref(collection, next))} kbd="]">
                  Next task
                </Button>
              ) : undefined
            }
          />
        )}
      </div>
    </div>
  );
}
