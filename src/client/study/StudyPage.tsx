import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useParams } from 'wouter';
import type { LogEvent } from '../../core/log/events';
import type { GameState } from '../../core/game';
import { games } from '../../games';
import { GamePlayer } from '../game/GamePlayer';
import { listSessions } from '../log/idb';
import { TaskPlayer } from '../player/TaskPlayer';
import { Button } from '../ui/Button';
import { Markdown } from '../ui/Markdown';
import { createSession, finishSession, getSession, getStudyIntro, studyJudge, type SessionItem, type SessionView, type StudyIntro } from './api';
import { Outbox, type StudySessionRecord } from './outbox';
import { usePlayer } from '../player/store';
import { taskFinished } from '../../core/log/gridPlayer';

interface Running {
  readonly outbox: Outbox;
  readonly record: StudySessionRecord;
  readonly view: SessionView;
  /** Events this browser logged before this page load. */
  readonly history: readonly LogEvent[];
}

type Phase =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'consent'; intro: StudyIntro }
  | { kind: 'running'; run: Running }
  | { kind: 'done'; code: string; redirectUrl: string | null };

/**
 * The link's parameters, kept with the session: recruitment platforms' ids (Prolific's
 * `PROLIFIC_PID`, `STUDY_ID`, `SESSION_ID`; MTurk's `workerId`, `assignmentId`, `hitId`) and any
 * other with a name the server accepts.
 */
function linkParams(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(window.location.search)) if (/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(k)) out[k] = v.slice(0, 500);
  return out;
}

function clientInfo() {
  return { wallClock: new Date().toISOString(), userAgent: navigator.userAgent, viewport: { width: window.innerWidth, height: window.innerHeight, dpr: window.devicePixelRatio } };
}

/** The participant's way through a study: consent, instructions, the items, the debrief. */
export function StudyPage() {
  const { studyId } = useParams<{ studyId: string }>();
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });

  useEffect(() => {
    let cancelled = false;
    (async () => {
      const saved = (await listSessions().catch(() => [])).find((s) => (s as StudySessionRecord).studyId === studyId) as StudySessionRecord | undefined;
      if (saved) {
        const { outbox, history } = await Outbox.open(saved);
        const view = await getSession(saved.id, saved.token);
        outbox.append('session.resume', clientInfo());
        if (!cancelled) setPhase({ kind: 'running', run: { outbox, record: saved, view, history } });
        return;
      }
      const intro = await getStudyIntro(studyId);
      if (!cancelled) setPhase({ kind: 'consent', intro });
    })().catch((e: Error) => { if (!cancelled) setPhase({ kind: 'error', message: e.message }); });
    return () => { cancelled = true; };
  }, [studyId]);

  const agree = async () => {
    try {
      const params = linkParams();
      const { sessionId, token } = await createSession(studyId, params);
      const outbox = await Outbox.create({ id: sessionId, studyId, token });
      outbox.append('session.start', { mode: 'study', studyId, params, ...clientInfo() });
      outbox.append('consent', { agreed: true });
      const view = await getSession(sessionId, token);
      setPhase({ kind: 'running', run: { outbox, record: outbox.session, view, history: [] } });
    } catch (e) {
      setPhase({ kind: 'error', message: (e as Error).message });
    }
  };

  if (phase.kind === 'loading') return <Centered><p className="text-slate-400">Loading the study…</p></Centered>;
  if (phase.kind === 'error') {
    return (
      <Centered>
        <div role="alert" className="max-w-xl rounded-lg border border-rose-500/50 bg-rose-950/60 p-5 text-rose-100">
          <p className="font-semibold">The study cannot continue right now.</p>
          <p className="mt-2 text-sm">{phase.message}</p>
          <p className="mt-2 text-sm">Everything you did so far is saved. Reload this page to try again.</p>
        </div>
      </Centered>
    );
  }
  if (phase.kind === 'consent') {
    return (
      <Centered>
        <div className="w-full max-w-2xl rounded-xl border border-slate-800 bg-slate-900/70 p-8">
          <p className="text-xs uppercase tracking-wider text-slate-500">{phase.intro.items} {phase.intro.items === 1 ? "item" : "items"} · {phase.intro.sessionMinutes} minutes at most</p>
          <h1 className="mb-4 mt-1 text-2xl font-semibold text-white">{phase.intro.title}</h1>
          <div className="max-h-[50vh] overflow-y-auto text-slate-200"><Markdown text={phase.intro.consent} /></div>
          <div className="mt-6 flex justify-end"><Button tone="primary" onClick={() => void agree()}>I agree, start</Button></div>
        </div>
      </Centered>
    );
  }
  if (phase.kind === 'done') return <Debrief code={phase.code} redirectUrl={phase.redirectUrl} />;
  return <StudyRun run={phase.run} onDone={(code, redirectUrl) => setPhase({ kind: 'done', code, redirectUrl })} onError={(message) => setPhase({ kind: 'error', message })} />;
}

function Centered({ children }: { children: React.ReactNode }) {
  return <div className="flex h-full items-center justify-center overflow-y-auto p-6">{children}</div>;
}

/** Where the participant is: the first item not ended, by this browser's log or the server's. */
function startPosition(run: Running): { index: number; instructionsDone: boolean } {
  const { view, history } = run;
  if (history.length === 0) return { index: view.progress.current, instructionsDone: view.progress.items.some((i) => i.started) };
  const ended = new Set(history.filter((e) => e.kind === 'item.end').map((e) => String(e.data.item)));
  const serverDone = new Set(view.progress.items.filter((i) => i.finished).map((i) => i.id));
  const index = view.items.findIndex((i) => !ended.has(i.id) && !serverDone.has(i.id));
  return { index: index < 0 ? view.items.length : index, instructionsDone: history.some((e) => e.kind === 'instructions.done' || e.kind === 'item.start') };
}

function StudyRun({ run, onDone, onError }: { run: Running; onDone: (code: string, redirect: string | null) => void; onError: (m: string) => void }) {
  const { outbox, view } = run;
  const start = useMemo(() => startPosition(run), [run]);
  const [index, setIndex] = useState(start.index);
  const [instructionsDone, setInstructionsDone] = useState(start.instructionsDone);
  const [finishing, setFinishing] = useState(false);
  const status = outbox.status();
  const items = view.items;
  const counted = items.filter((i) => i.kind !== 'page');
  const position = items.slice(0, index).filter((i) => i.kind !== 'page').length;

  const finish = useCallback(async () => {
    setFinishing(true);
    if (!run.history.some((e) => e.kind === 'session.end')) outbox.append('session.end', { wallClock: new Date().toISOString() });
    for (let attempt = 0; ; attempt++) {
      await outbox.drained();
      try {
        const r = await finishSession(outbox.sessionId, run.record.token, outbox.lastSeq);
        onDone(r.completionCode, r.redirectUrl);
        return;
      } catch (e) {
        if (attempt > 20) { onError((e as Error).message); return; }
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }, [outbox, run.record.token, run.history, onDone, onError]);

  useEffect(() => {
    if (index >= items.length && !finishing) void finish();
  }, [index, items.length, finishing, finish]);

  // The session's time limit, on the same clock as the events.
  useEffect(() => {
    const limit = view.study.limits.sessionMinutes * 60_000;
    const id = setInterval(() => {
      if (outbox.now() > limit && !finishing) {
        const item = items[index];
        if (item) outbox.append('item.end', { item: item.id, reason: 'session_time' });
        setIndex(items.length);
      }
    }, 5000);
    return () => clearInterval(id);
  }, [outbox, view, items, index, finishing]);

  const ended = useRef(new Set<string>());
  const next = useCallback((reason: string) => {
    const item = items[index];
    // A time limit and a click can both end an item: it ends once.
    if (!item || ended.current.has(item.id)) return;
    ended.current.add(item.id);
    outbox.append('item.end', { item: item.id, reason });
    setIndex((i) => i + 1);
  }, [items, index, outbox]);

  let body: React.ReactNode;
  if (finishing || index >= items.length) {
    body = (
      <Centered>
        <div className="text-center">
          <p className="text-lg text-white">Saving your answers…</p>
          <p className="mt-2 text-sm text-slate-400" data-testid="saving">{status.pending > 0 ? `${status.pending} actions still to send. Keep this page open.` : 'Almost done.'}</p>
        </div>
      </Centered>
    );
  } else if (!instructionsDone) {
    body = (
      <Centered>
        <div className="w-full max-w-2xl rounded-xl border border-slate-800 bg-slate-900/70 p-8">
          <h1 className="mb-4 text-2xl font-semibold text-white">Instructions</h1>
          <div className="text-slate-200"><Markdown text={view.study.instructions} /></div>
          <div className="mt-6 flex justify-end">
            <Button tone="primary" onClick={() => { outbox.append('instructions.done', {}); setInstructionsDone(true); }}>Begin</Button>
          </div>
        </div>
      </Centered>
    );
  } else {
    body = <div className="h-full" data-item={items[index].id} data-kind={items[index].kind}><ItemView key={items[index].id} run={run} item={items[index]} onNext={next} /></div>;
  }

  return (
    <div className="flex h-full flex-col">
      <header className="flex h-11 shrink-0 items-center gap-4 border-b border-slate-800 bg-slate-900 px-4">
        <span className="truncate font-semibold text-slate-100">{view.study.title}</span>
        <div className="ml-auto flex items-center gap-3 text-xs text-slate-400">
          <span data-testid="study-progress">{Math.min(position + (items[index]?.kind === 'page' ? 0 : 1), counted.length)} of {counted.length}</span>
          <div className="h-1.5 w-48 overflow-hidden rounded-full bg-slate-700" role="progressbar" aria-valuemin={0} aria-valuemax={counted.length} aria-valuenow={position}>
            <div className="h-full bg-emerald-400 transition-all" style={{ width: `${(100 * position) / Math.max(1, counted.length)}%` }} />
          </div>
        </div>
      </header>
      {status.offline && (
        <div role="status" className="bg-amber-500/90 px-4 py-1.5 text-center text-sm font-medium text-black" data-testid="offline-banner">
          The connection to the server is lost. Keep going: your work is saved in this browser and will be sent when the connection returns ({status.pending} waiting).
        </div>
      )}
      {status.fatal && <div role="alert" className="bg-rose-700 px-4 py-1.5 text-center text-sm text-white">{status.fatal}</div>}
      <main className="min-h-0 flex-1">{body}</main>
    </div>
  );
}

/** The events of one item logged before this page load, from its last `item.start` on. */
function itemHistory(history: readonly LogEvent[], itemId: string): LogEvent[] {
  let from = -1;
  history.forEach((e, i) => { if (e.kind === 'item.start' && e.data.item === itemId) from = i; });
  return from < 0 ? [] : history.slice(from);
}

function ItemView({ run, item, onNext }: { run: Running; item: SessionItem; onNext: (reason: string) => void }) {
  const { outbox, view, record } = run;
  const resume = useMemo(() => itemHistory(run.history, item.id), [run.history, item.id]);
  const [startT] = useState(() => {
    if (resume.length) return resume[0].t;
    return outbox.append('item.start', { item: item.id, kind: item.kind }).t;
  });
  const [elapsed, setElapsed] = useState(() => outbox.now() - startT);
  useEffect(() => {
    const id = setInterval(() => setElapsed(outbox.now() - startT), 1000);
    return () => clearInterval(id);
  }, [outbox, startT]);

  const limits = item.kind === 'page' ? null : item.limits;
  const hard = limits ? elapsed >= limits.hardMinutes * 60_000 : false;
  const soft = limits ? elapsed >= limits.softMinutes * 60_000 : false;
  useEffect(() => { if (hard) onNext('time_up'); }, [hard, onNext]);

  const giveUp = (
    <Button onClick={() => { if (window.confirm('Move on to the next item? You cannot come back to this one.')) onNext('gave_up'); }}>Give up and continue</Button>
  );
  const notice = soft && limits ? (
    <div role="status" className="bg-sky-900/80 px-4 py-1.5 text-center text-sm text-sky-100">
      You have spent {limits.softMinutes} minutes on this item. You may move on whenever you like; it closes after {limits.hardMinutes} minutes.
    </div>
  ) : null;

  if (item.kind === 'page') {
    return (
      <Centered>
        <div className="w-full max-w-2xl rounded-xl border border-slate-800 bg-slate-900/70 p-8">
          {item.title && <h1 className="mb-4 text-2xl font-semibold text-white">{item.title}</h1>}
          <div className="text-slate-200"><Markdown text={item.markdown} /></div>
          <div className="mt-6 flex justify-end"><Button tone="primary" onClick={() => onNext('continue')}>Continue</Button></div>
        </div>
      </Centered>
    );
  }
  if (item.kind === 'task') return <TaskItemView run={run} item={item} resume={resume} notice={notice} giveUp={giveUp} onNext={onNext} />;
  const game = games[item.game];
  if (!game) return <Centered><p role="alert" className="text-rose-300">This study needs the game "{item.game}", which this server does not have. Tell the researcher.</p></Centered>;
  return <GameItemView run={run} item={item} resume={resume} notice={notice} giveUp={giveUp} onNext={onNext} allowReset={view.study.allowLevelReset} showCounter={view.study.showActionCounter} key={record.id} />;
}

function PracticeTag({ practice }: { practice: boolean }) {
  return practice ? <span className="rounded bg-amber-500/20 px-2 py-0.5 text-xs font-semibold text-amber-200">Practice</span> : null;
}

function TaskItemView({ run, item, resume, notice, giveUp, onNext }: {
  run: Running; item: Extract<SessionItem, { kind: 'task' }>; resume: LogEvent[]; notice: React.ReactNode; giveUp: React.ReactNode; onNext: (r: string) => void;
}) {
  const { outbox, view, record } = run;
  const open = useMemo(() => ({ task: item.task, taskId: item.id, collection: 'study' }), [item]);
  const judge = useMemo(() => studyJudge(record.id, record.token, item.id, item.testIndices, outbox), [record, item, outbox]);
  const finished = usePlayer((s) => s.state.taskId === item.id && taskFinished(s.state));
  return (
    <div className="flex h-full flex-col">
      {notice}
      <div className="min-h-0 flex-1">
        <TaskPlayer open={open} sink={outbox} judge={judge} trials={view.study.trials} resume={resume}
          toolbar={<><PracticeTag practice={item.practice} />{!finished && giveUp}</>}
          onFinishedAction={<Button tone="primary" onClick={() => onNext('finished')}>Next</Button>} />
      </div>
    </div>
  );
}

function GameItemView({ run, item, resume, notice, giveUp, onNext, allowReset, showCounter }: {
  run: Running; item: Extract<SessionItem, { kind: 'game' }>; resume: LogEvent[]; notice: React.ReactNode; giveUp: React.ReactNode; onNext: (r: string) => void; allowReset: boolean; showCounter: boolean;
}) {
  const [state, setState] = useState<GameState>('NOT_PLAYED');
  return (
    <div className="flex h-full flex-col">
      {notice}
      <div className="min-h-0 flex-1">
        <GamePlayer game={games[item.game]} sink={run.outbox} seed={item.seed} resume={resume} allowReset={allowReset} showCounter={showCounter} onState={setState}
          toolbar={<>
            <PracticeTag practice={item.practice} />
            {state === 'WIN' ? <Button tone="primary" onClick={() => onNext('finished')}>Next</Button> : giveUp}
          </>} />
      </div>
    </div>
  );
}

function Debrief({ code, redirectUrl }: { code: string; redirectUrl: string | null }) {
  useEffect(() => {
    if (!redirectUrl) return;
    const id = setTimeout(() => window.location.assign(redirectUrl), 5000);
    return () => clearTimeout(id);
  }, [redirectUrl]);
  return (
    <Centered>
      <div className="w-full max-w-xl rounded-xl border border-slate-800 bg-slate-900/70 p-8 text-center">
        <h1 className="text-2xl font-semibold text-white">Thank you!</h1>
        <p className="mt-3 text-slate-300">Everything you did has been saved. Your completion code is</p>
        <p className="mt-3 select-all rounded-lg bg-slate-950 py-3 font-mono text-2xl tracking-widest text-emerald-300" data-testid="completion-code">{code}</p>
        {redirectUrl && (
          <p className="mt-4 text-sm text-slate-400">You will be taken back in a few seconds, or <a className="text-sky-300 underline" href={redirectUrl}>continue now</a>.</p>
        )}
      </div>
    </Centered>
  );
}
