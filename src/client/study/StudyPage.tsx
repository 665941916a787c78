/**
 * The participant's study page: consent, instructions, each item in turn, breaks, the end.
 * Over 600 lines: its screens still live here beside the run's reducer; moving each screen into
 * a file of its own under study/ is the next change here.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { useParams } from 'wouter';
import { toJsonl, type LogEvent } from '../../core/log/events';
import type { GameState } from '../../core/game';
import { games } from '../../games';
import { ApiError } from '../api';
import { GamePlayer } from '../game/GamePlayer';
import { ServerGamePlayer } from '../game/ServerGamePlayer';
import { sessionRunApi } from '../game/serverController';
import { listSessions } from '../log/idb';
import { logVisibility, watchPresence } from '../log/presence';
import { downloadText } from '../log/sessionLog';
import { TaskPlayer } from '../player/TaskPlayer';
import { QuestionItemView } from './QuestionItemView';
import { loadMath } from './MathText';
import { SurveyItemView } from './SurveyItemView';
import { DescribeForm } from './DescribeForm';
import { WithdrawDialog } from './WithdrawDialog';
import { Modal } from '../ui/Modal';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import type { WithdrawReason, WithdrawResult } from '../../core/protocol/api';
import { Button } from '../ui/Button';
import { Markdown } from '../ui/Markdown';
import {
  createSession,
  finishSession,
  getSession,
  getStudyIntro,
  postResponse,
  studyJudge,
  type SessionItem,
  type SessionView,
  type StudyIntro,
} from './api';
import { Outbox, OutboxDisposedError, type StudySessionRecord } from './outbox';
import { usePlayer } from '../player/store';
import { taskFinished } from '../../core/log/gridPlayer';
import { deviceProblem, type Screen } from '../../core/study/devices';
import { spokenMinutes } from '../../core/study/duration';
import { paymentSentence } from '../../core/study/paymentText';
import { breaksOf, budgetLeft, sessionBudget, type SessionBudget } from './budget';
import { type Pause, pausedWithin } from '../../core/study/pauses';
import { initialRunState, onItems, runReducer, screenOf, skippedBehind } from './runMachine';

interface Running {
  readonly outbox: Outbox;
  readonly record: StudySessionRecord;
  readonly view: SessionView;
  /** Events this browser logged before this page load. */
  readonly history: readonly LogEvent[];
  /** Where the participant is when the page loads. */
  readonly start: { index: number; instructionsDone: boolean };
  /** `t` of the `item.start` of each item entered in this page load: an item is entered once. */
  readonly entered: Map<string, number>;
  /** Items (tasks and games with `describe`) whose last written description is still to be asked when they end. */
  readonly describeLast: Map<string, boolean>;
  /** The session's time budget, by the server's clock when the view was read. */
  readonly budget: SessionBudget;
  /** A proctor's breaks on the outbox clock (from the log, then as they come): the clocks stop during them. */
  readonly breaks: Pause[];
}

/**
 * What a testing centre's station gives the study page (`src/client/centre/StationPage.tsx`):
 * the session it began, the proctor's pause, and where to report the outbox and the end.
 */
export interface StationHooks {
  readonly record: StudySessionRecord;
  readonly paused: boolean;
  /** The session is over in this page (finished or withdrawn); the server has every event. */
  readonly onOver: () => void;
  /** The page's outbox while it runs, null once closed: the station reports what it holds. */
  readonly onOutbox: (outbox: Outbox | null) => void;
}

type Phase =
  | { kind: 'loading' }
  | { kind: 'error'; error: PageError }
  | { kind: 'consent'; intro: StudyIntro }
  | { kind: 'declined'; intro: StudyIntro }
  | { kind: 'running'; run: Running }
  | {
      kind: 'done';
      code: string;
      redirectUrl: string | null;
      redirectAfterSeconds: number;
      timeUpMinutes: number | null;
    }
  | { kind: 'withdrawn'; message: string | null; code: string | null };

/**
 * The link's parameters, kept with the session: recruitment platforms' ids (Prolific's
 * `PROLIFIC_PID`, `STUDY_ID`, `SESSION_ID`; MTurk's `workerId`, `assignmentId`, `hitId`) and any
 * other with a name the server accepts.
 */
function linkParams(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(window.location.search))
    if (/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(k)) out[k] = v.slice(0, 500);
  return out;
}

/** The participant a study link names (Prolific's, else MTurk's id), if it names one. */
function linkParticipant(params: Record<string, string>): string | undefined {
  return params.PROLIFIC_PID || params.workerId || undefined;
}

/**
 * This browser's session of the study for the participant the link names: a link naming another
 * participant than a saved session's gets a new session (the saved one stays as it was), so one
 * person's actions are never logged under another's id in a shared browser.
 */
function savedSessionFor(
  saved: readonly StudySessionRecord[],
  studyId: string,
  participant: string | undefined,
): StudySessionRecord | undefined {
  const mine = saved.filter((s) => s.studyId === studyId);
  // Sessions saved before participants were recorded (no `participant`) go on as they were.
  return participant === undefined
    ? mine[0]
    : mine.find((s) => s.participant === undefined || s.participant === participant);
}

/**
 * Why the study page stopped, in the words the participant needs: a link the server does not know
 * is no outage (reloading will not help), and "everything is saved" is said only where a session is.
 */
interface PageError {
  readonly message: string;
  /** The server has no study by the link's id. */
  readonly unknownStudy: boolean;
  /** This browser holds a session of the study, whose actions are kept. */
  readonly saved: boolean;
}

function pageError(e: unknown, saved: boolean): PageError {
  const unknownStudy = e instanceof ApiError && e.status === 404 && e.code === 'not_found';
  return { message: (e as Error).message, unknownStudy, saved };
}

function clientInfo() {
  return {
    wallClock: new Date().toISOString(),
    userAgent: navigator.userAgent,
    viewport: { width: window.innerWidth, height: window.innerHeight, dpr: window.devicePixelRatio },
  };
}

/** Logs `item.start` for `items[index]` unless it was entered in this page load already. */
function enterItem(run: Pick<Running, 'outbox' | 'entered'>, item: SessionItem | undefined): void {
  if (item && !run.entered.has(item.id))
    run.entered.set(item.id, run.outbox.append('item.start', { item: item.id, kind: item.kind }).t);
}

/**
 * The participant's way through a study: consent, instructions, the items, the debrief.
 *
 * The session's outbox is opened in an effect and disposed in its cleanup, for a new session
 * (after consent) and a resumed one (after a reload) alike; every event of the study shell is
 * logged once, from an event handler or from that effect, never from rendering.
 */
export function StudyPage({ station }: { station?: StationHooks } = {}) {
  const params = useParams<{ studyId: string }>();
  const studyId = station?.record.studyId ?? params.studyId;
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });
  const [record, setRecord] = useState<StudySessionRecord | null>(null);
  const stationRecord = station?.record;
  const onOutbox = station?.onOutbox;
  const onOver = station?.onOver;

  // This browser's session of the study, if it has one; otherwise the consent page. A station's
  // session is the one the station began (its participant consented at check-in).
  useEffect(() => {
    let cancelled = false;
    if (stationRecord) {
      setRecord(stationRecord);
      return;
    }
    (async () => {
      const sessions = (await listSessions().catch(() => [])) as StudySessionRecord[];
      const saved = savedSessionFor(sessions, studyId, linkParticipant(linkParams()));
      if (saved) {
        if (!cancelled) setRecord(saved);
        return;
      }
      const intro = await getStudyIntro(studyId);
      if (!cancelled) setPhase({ kind: 'consent', intro });
    })().catch((e: Error) => {
      if (!cancelled) setPhase({ kind: 'error', error: pageError(e, false) });
    });
    return () => {
      cancelled = true;
    };
  }, [studyId, stationRecord]);

  const over = phase.kind === 'done' || phase.kind === 'withdrawn';
  useEffect(() => {
    if (over) onOver?.();
  }, [over, onOver]);

  // KaTeX is a script of its own: fetched once the session shows that a question may need it, so a
  // formula is ready when its question comes and the first screen did not wait for it.
  const needsMath = phase.kind === 'running' && phase.run.view.items.some((i) => i.kind === 'question');
  useEffect(() => {
    if (needsMath) loadMath().catch(() => {});
  }, [needsMath]);

  // The session's outbox lives as long as this page shows the session.
  useEffect(() => {
    if (!record) return;
    let cancelled = false;
    let outbox: Outbox | null = null;
    (async () => {
      const opened = await Outbox.open(record);
      outbox = opened.outbox;
      if (cancelled) {
        outbox.dispose();
        return;
      }
      const view = await getSession(record.id, record.token);
      if (cancelled) return;
      if (view.session.state === 'withdrawn') {
        setPhase({
          kind: 'withdrawn',
          message: view.study.withdraw?.message ?? null,
          code: view.study.withdraw?.code ?? null,
        });
        return;
      }
      const { history } = opened;
      outbox.adoptServerAck(view.session.ackedThrough);
      outbox.start();
      onOutbox?.(outbox);
      if (history.some((e) => e.kind === 'session.start')) outbox.append('session.resume', clientInfo());
      else {
        // A session the server made after consent (a reload may come between the two).
        outbox.append('session.start', {
          mode: 'study',
          studyId: record.studyId,
          params: linkParams(),
          ...clientInfo(),
        });
        outbox.append('consent', { agreed: true });
      }
      logVisibility(outbox);
      const run: Running = {
        outbox,
        record: outbox.session,
        view,
        history,
        start: startPosition(view, history),
        entered: new Map(),
        describeLast: describeLastFrom(view, history),
        budget: sessionBudget(view, outbox.now()),
        breaks: breaksOf(history),
      };
      const current = view.items[run.start.index];
      if (run.start.instructionsDone && current && itemHistory(history, current.id).length === 0)
        enterItem(run, current);
      setPhase({ kind: 'running', run });
    })().catch((e: Error) => {
      if (!cancelled) setPhase({ kind: 'error', error: pageError(e, true) });
    });
    return () => {
      cancelled = true;
      outbox?.dispose();
      onOutbox?.(null);
    };
  }, [record, onOutbox]);

  const agree = async () => {
    try {
      const params = linkParams();
      const { sessionId, token } = await createSession(studyId, params);
      setRecord(await Outbox.saveNew({ id: sessionId, studyId, token, participant: linkParticipant(params) ?? '' }));
    } catch (e) {
      setPhase({ kind: 'error', error: pageError(e, false) });
    }
  };

  if (phase.kind === 'loading')
    return (
      <Centered main>
        <p className="text-slate-400">Loading the study…</p>
      </Centered>
    );
  if (phase.kind === 'error')
    return (
      <Centered main>
        <StudyError error={phase.error} studyId={studyId} />
      </Centered>
    );
  if (phase.kind === 'consent') {
    return (
      <Consent
        intro={phase.intro}
        onDecline={() => setPhase({ kind: 'declined', intro: phase.intro })}
        onAgree={() => void agree()}
      />
    );
  }
  if (phase.kind === 'declined') return <Declined intro={phase.intro} />;
  if (phase.kind === 'done')
    return (
      <Debrief
        code={phase.code}
        redirectUrl={phase.redirectUrl}
        redirectAfterSeconds={phase.redirectAfterSeconds}
        timeUpMinutes={phase.timeUpMinutes}
      />
    );
  if (phase.kind === 'withdrawn') return <Withdrawn message={phase.message} code={phase.code} />;
  return (
    <StudyRun
      run={phase.run}
      paused={station?.paused ?? false}
      onDone={(code, redirectUrl, redirectAfterSeconds, timeUpMinutes) =>
        setPhase({ kind: 'done', code, redirectUrl, redirectAfterSeconds, timeUpMinutes })
      }
      onWithdrawn={(r) => setPhase({ kind: 'withdrawn', message: r.message, code: r.code })}
    />
  );
}

function StudyError({ error, studyId }: { error: PageError; studyId: string }) {
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
function Centered({ children, main = false }: { children: React.ReactNode; main?: boolean }) {
  const Tag = main ? 'main' : 'div';
  return <Tag className="flex h-full items-center justify-center overflow-y-auto p-6">{children}</Tag>;
}

/**
 * The position to go to from `from`: past the pool candidates the server no longer starts because
 * too little of the session's time is left (`skipped`). The session is read again for that, and
 * for the budget; when the server cannot be reached in a few seconds the study goes on to `from`
 * (the outbox keeps the participant's work meanwhile).
 */
async function nextPosition(
  run: Pick<Running, 'record' | 'view'>,
  from: number,
): Promise<{ to: number; view: SessionView | null }> {
  if (from >= run.view.items.length) return { to: from, view: null };
  const fresh = await Promise.race([
    getSession(run.record.id, run.record.token).catch(() => null),
    sleep(4000).then(() => null),
  ]);
  if (!fresh) return { to: from, view: null };
  const skipped = new Set(fresh.progress.items.filter((i) => i.skipped).map((i) => i.id));
  let to = from;
  while (to < run.view.items.length && skipped.has(run.view.items[to].id)) to++;
  return { to, view: fresh };
}

/** Where the participant is: the first item not ended, by this browser's log or the server's. */
function startPosition(view: SessionView, history: readonly LogEvent[]): { index: number; instructionsDone: boolean } {
  if (history.length === 0)
    return { index: view.progress.current, instructionsDone: view.progress.items.some((i) => i.started) };
  const ended = new Set(history.filter((e) => e.kind === 'item.end').map((e) => String(e.data.item)));
  const serverDone = new Set(view.progress.items.filter((i) => i.finished).map((i) => i.id));
  const index = view.items.findIndex((i) => !ended.has(i.id) && !serverDone.has(i.id));
  return {
    index: index < 0 ? view.items.length : index,
    instructionsDone: history.some((e) => e.kind === 'instructions.done' || e.kind === 'item.start'),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Which items still owe their last written description when they end: a game with `describe`
 * always; a task once the participant submitted after the first description (`TaskItemView`).
 * An item whose last description is in the log owes none.
 */
function describeLastFrom(view: SessionView, history: readonly LogEvent[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const described = (id: string, stage: string) =>
    history.some((e) => e.kind === 'description.submit' && e.data.item === id && e.data.stage === stage);
  for (const item of view.items) {
    if ((item.kind !== 'task' && item.kind !== 'game') || !item.describe || described(item.id, 'last')) continue;
    if (item.kind === 'game') {
      out.set(item.id, true);
      continue;
    }
    const firstAt = history.findIndex(
      (e) => e.kind === 'description.submit' && e.data.item === item.id && e.data.stage === 'first',
    );
    const events = itemHistory(history, item.id);
    if (firstAt >= 0 && events.some((e) => e.kind === 'submit' && e.seq > history[firstAt].seq)) out.set(item.id, true);
  }
  return out;
}

function StudyRun({
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

type DescribableItem = Extract<SessionItem, { kind: 'task' | 'game' }>;

/** The item whose last description a reload interrupted: it ended, its description is not in the log. */
function pendingDescription(run: Running): DescribableItem | null {
  const prev = run.start.instructionsDone ? run.view.items[run.start.index - 1] : undefined;
  return prev &&
    (prev.kind === 'task' || prev.kind === 'game') &&
    run.describeLast.get(prev.id) &&
    run.history.some((e) => e.kind === 'item.end' && e.data.item === prev.id)
    ? prev
    : null;
}

function LastDescriptionScreen({ run, item, onSaved }: { run: Running; item: DescribableItem; onSaved: () => void }) {
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

function TimeUpScreen({ minutes, onContinue }: { minutes: number; onContinue: () => void }) {
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
function SavingScreen({ sessionMinutes, pending }: { sessionMinutes: number | null; pending: number }) {
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

function InstructionsScreen({ markdown, onBegin }: { markdown: string; onBegin: () => void }) {
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

/** Offers every event of the session this browser holds as a JSONL file. */
async function downloadLog(outbox: Outbox): Promise<void> {
  downloadText(`arc-studio-session-${outbox.sessionId}.jsonl`, toJsonl(await outbox.log()));
}

/** The session could not be closed: what happened, the session's id, and every action to download. */
function FinishError({ message, outbox, onRetry }: { message: string; outbox: Outbox; onRetry: (() => void) | null }) {
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

/** The events of one item logged before this page load, from its last `item.start` on. */
function itemHistory(history: readonly LogEvent[], itemId: string): LogEvent[] {
  let from = -1;
  history.forEach((e, i) => {
    if (e.kind === 'item.start' && e.data.item === itemId) from = i;
  });
  return from < 0 ? [] : history.slice(from);
}

function ItemView({
  run,
  item,
  onNext,
  showTimeLeft,
}: {
  run: Running;
  item: SessionItem;
  onNext: (reason: string) => void;
  showTimeLeft: boolean;
}) {
  const { outbox, view, record } = run;
  const resume = useMemo(() => itemHistory(run.history, item.id), [run.history, item.id]);
  // The item's `item.start` was logged when the participant entered it (`enterItem`).
  const [startT] = useState(() => resume[0]?.t ?? run.entered.get(item.id) ?? outbox.now());
  // The item's clock stops during a proctor's break, as the server's does.
  const spent = useCallback(() => {
    const now = outbox.now();
    return now - startT - pausedWithin(run.breaks, startT, now);
  }, [outbox, startT, run.breaks]);
  const [elapsed, setElapsed] = useState(spent);
  useEffect(() => {
    const id = setInterval(() => setElapsed(spent()), 1000);
    return () => clearInterval(id);
  }, [spent]);

  const limits = item.kind === 'page' || item.kind === 'survey' ? null : item.limits;
  const hard = limits ? elapsed >= limits.hardMinutes * 60_000 : false;
  const soft = limits ? elapsed >= limits.softMinutes * 60_000 : false;
  useEffect(() => {
    if (hard) onNext('time_up');
  }, [hard, onNext]);
  // The soft limit's notice is logged once per item (a reload that shows it again logs nothing),
  // so the log says when the participant was told.
  const softLogged = useRef(resume.some((e) => e.kind === 'item.soft_limit' && e.data.item === item.id));
  useEffect(() => {
    if (!soft || hard || !limits || softLogged.current) return;
    softLogged.current = true;
    outbox.append('item.soft_limit', {
      item: item.id,
      softMinutes: limits.softMinutes,
      hardMinutes: limits.hardMinutes,
    });
  }, [soft, hard, limits, outbox, item.id]);

  const giveUp = (
    <LeaveItem
      label="Give up and continue"
      title="Give up this item?"
      confirmLabel="Give up and move on"
      onLeave={() => onNext('gave_up')}
    >
      <p>The study moves on to the next item, and you cannot come back to this one. What you did on it is saved.</p>
    </LeaveItem>
  );
  const left = limits ? Math.max(0, limits.hardMinutes * 60_000 - elapsed) : 0;
  const notice =
    limits && (soft || showTimeLeft) ? (
      <div className="flex items-center justify-center gap-4 bg-sky-900/80 px-4 py-1.5 text-center text-sm text-sky-100">
        {soft && (
          <span role="status">
            You have spent {spokenMinutes(limits.softMinutes)} on this item. You may move on whenever you like; it
            closes after {spokenMinutes(limits.hardMinutes)}.
          </span>
        )}
        {showTimeLeft && (
          <span data-testid="time-left" className="font-mono tabular-nums">
            Time left: {formatClock(left)}
          </span>
        )}
      </div>
    ) : null;

  if (item.kind === 'page') {
    return (
      <Centered>
        <div className="w-full max-w-2xl rounded-xl border border-slate-800 bg-slate-900/70 p-8">
          {item.title && <h1 className="mb-4 text-2xl font-semibold text-white">{item.title}</h1>}
          <div className="text-slate-200">
            <Markdown text={item.markdown} />
          </div>
          <div className="mt-6 flex justify-end">
            <Button tone="primary" onClick={() => onNext('continue')}>
              Continue
            </Button>
          </div>
        </div>
      </Centered>
    );
  }
  if (item.kind === 'survey')
    return (
      <SurveyItemView
        log={outbox}
        sessionId={record.id}
        token={record.token}
        item={item}
        resume={resume}
        onNext={onNext}
        key={item.id}
      />
    );
  if (item.kind === 'task')
    return <TaskItemView run={run} item={item} resume={resume} notice={notice} giveUp={giveUp} onNext={onNext} />;
  if (item.kind === 'question')
    return (
      <QuestionItemView
        log={outbox}
        sessionId={record.id}
        token={record.token}
        item={item}
        resume={resume}
        notice={notice}
        giveUp={giveUp}
        onNext={onNext}
        key={item.id}
      />
    );
  const game = games[item.game];
  if (!game && !item.server)
    return (
      <Centered>
        <p role="alert" className="text-rose-300">
          This study needs the game "{item.game}", which this server does not have. Tell the researcher.
        </p>
      </Centered>
    );
  return (
    <GameItemView
      run={run}
      item={item}
      resume={resume}
      notice={notice}
      giveUp={giveUp}
      onNext={onNext}
      allowReset={view.study.allowLevelReset}
      showCounter={view.study.showActionCounter}
      key={record.id}
    />
  );
}

/**
 * A button that leaves the item before its end, after the participant confirms in the app's own
 * dialog (never the browser's `confirm`, which looks foreign and which automation dismisses).
 */
function LeaveItem({
  label,
  title,
  confirmLabel,
  onLeave,
  children,
}: {
  label: string;
  title: string;
  confirmLabel: string;
  onLeave: () => void;
  children: React.ReactNode;
}) {
  const [asking, setAsking] = useState(false);
  return (
    <>
      <Button onClick={() => setAsking(true)}>{label}</Button>
      {asking && (
        <ConfirmDialog
          title={title}
          confirmLabel={confirmLabel}
          onConfirm={async () => onLeave()}
          onClose={() => setAsking(false)}
        >
          {children}
        </ConfirmDialog>
      )}
    </>
  );
}

function PracticeTag({ practice }: { practice: boolean }) {
  return practice ? (
    <span className="rounded bg-amber-500/20 px-2 py-0.5 text-xs font-semibold text-amber-200">Practice</span>
  ) : null;
}

function TaskItemView({
  run,
  item,
  resume,
  notice,
  giveUp,
  onNext,
}: {
  run: Running;
  item: Extract<SessionItem, { kind: 'task' }>;
  resume: LogEvent[];
  notice: React.ReactNode;
  giveUp: React.ReactNode;
  onNext: (r: string) => void;
}) {
  const { outbox, view, record } = run;
  const open = useMemo(() => ({ task: item.task, taskId: item.id, collection: 'study' }), [item]);
  const firstDone = useRef(resume.some((e) => e.kind === 'description.submit' && e.data.stage === 'first'));
  const [askFirst, setAskFirst] = useState(
    () => !!item.describe && !firstDone.current && resume.some((e) => e.kind === 'submit'),
  );
  const judge = useMemo(() => {
    const inner = studyJudge(record.id, record.token, item.id, item.testIndices, outbox);
    if (!item.describe) return inner;
    // The first written description follows the first submission; one after it asks for the last.
    return {
      ...inner,
      submit: async (...args: Parameters<typeof inner.submit>) => {
        const r = await inner.submit(...args);
        if (!firstDone.current) setAskFirst(true);
        else run.describeLast.set(item.id, true);
        return r;
      },
    };
  }, [record, item, outbox, run]);
  const finished = usePlayer((s) => s.state.taskId === item.id && taskFinished(s.state));
  return (
    <div className="flex h-full flex-col">
      {askFirst && item.describe && (
        <Modal labelledBy={`describe-${item.id}`} testId="describe-dialog">
          <DescribeForm
            log={outbox}
            sessionId={record.id}
            token={record.token}
            item={item.id}
            stage="first"
            prompt={item.describe.prompt}
            resume={resume}
            titleId={`describe-${item.id}`}
            onSaved={() => {
              firstDone.current = true;
              setAskFirst(false);
            }}
          />
        </Modal>
      )}
      {notice}
      {/* The page's heading for a screen reader: the grids and tools say the rest. */}
      <h1 className="sr-only">{view.study.title}: grid task</h1>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <TaskPlayer
          open={open}
          sink={outbox}
          judge={judge}
          trials={view.study.trials}
          resume={resume}
          toolbar={
            <>
              <PracticeTag practice={item.practice} />
              {!finished && giveUp}
            </>
          }
          onFinishedAction={
            <Button tone="primary" onClick={() => onNext('finished')}>
              Next
            </Button>
          }
        />
      </div>
    </div>
  );
}

function GameItemView({
  run,
  item,
  resume,
  notice,
  giveUp,
  onNext,
  allowReset,
  showCounter,
}: {
  run: Running;
  item: Extract<SessionItem, { kind: 'game' }>;
  resume: LogEvent[];
  notice: React.ReactNode;
  giveUp: React.ReactNode;
  onNext: (r: string) => void;
  allowReset: boolean;
  showCounter: boolean;
}) {
  const [state, setState] = useState<GameState>('NOT_PLAYED');
  const [levels, setLevels] = useState(0);
  const onState = useCallback((s: GameState, l: number) => {
    setState(s);
    setLevels(l);
  }, []);
  const { record } = run;
  const api = useMemo(() => sessionRunApi(record.id, record.token, item.id, run.outbox), [record, item.id, run.outbox]);
  // Leaving after levels were won is a finish, not a surrender.
  const finishHere = (
    <LeaveItem
      label="Finish and continue"
      title="Finish this game?"
      confirmLabel="Finish and move on"
      onLeave={() => onNext('finished_levels')}
    >
      <p>
        You completed {levels === 1 ? '1 level' : `${levels} levels`}, and {levels === 1 ? 'it is' : 'they are'} saved.
        The study moves on to the next item, and you cannot come back to this game.
      </p>
    </LeaveItem>
  );
  const toolbar = (
    <>
      <PracticeTag practice={item.practice} />
      {state === 'WIN' ? (
        <Button tone="primary" onClick={() => onNext('finished')}>
          Next
        </Button>
      ) : levels > 0 ? (
        finishHere
      ) : (
        giveUp
      )}
    </>
  );
  return (
    <div className="flex h-full flex-col">
      {notice}
      <div className="min-h-0 flex-1 overflow-y-auto">
        {item.server ? (
          <ServerGamePlayer
            info={{ id: item.game, ...item.server }}
            api={api}
            sink={run.outbox}
            resume={resume}
            allowReset={allowReset}
            showCounter={showCounter}
            onState={onState}
            toolbar={toolbar}
          />
        ) : (
          <GamePlayer
            game={games[item.game]}
            sink={run.outbox}
            seed={item.seed}
            resume={resume}
            allowReset={allowReset}
            showCounter={showCounter}
            onState={onState}
            toolbar={toolbar}
          />
        )}
      </div>
    </div>
  );
}

/** An end page's way back to the recruitment platform: after 5 s (the page offers a link meanwhile). */
function useRedirectSoon(url: string | null, seconds = 5): void {
  useEffect(() => {
    if (!url) return;
    const id = setTimeout(() => window.location.assign(url), seconds * 1000);
    return () => clearTimeout(id);
  }, [url, seconds]);
}

/** The window's size and pointer, kept current as it is resized or turned. */
function useScreen(): Screen {
  const read = (): Screen => ({
    width: window.innerWidth,
    height: window.innerHeight,
    finePointer: window.matchMedia('(pointer: fine)').matches,
  });
  const [screen, setScreen] = useState(read);
  useEffect(() => {
    const update = () => setScreen(read());
    window.addEventListener('resize', update);
    return () => window.removeEventListener('resize', update);
  }, []);
  return screen;
}

/**
 * The consent page. A screen the study does not allow (its `devices`) is told so in place of the
 * buttons, before any session is made; turning or enlarging the window brings them back.
 */
function Consent({ intro, onDecline, onAgree }: { intro: StudyIntro; onDecline: () => void; onAgree: () => void }) {
  const problem = deviceProblem(intro.devices, useScreen());
  return (
    <Centered main>
      <div className="w-full max-w-2xl rounded-xl border border-slate-800 bg-slate-900/70 p-8">
        <p className="text-xs uppercase tracking-wider text-slate-500">
          {intro.items} {intro.items === 1 ? 'item' : 'items'} · {spokenMinutes(intro.sessionMinutes)} at most
        </p>
        <h1 className="mb-4 mt-1 text-2xl font-semibold text-white">{intro.title}</h1>
        {intro.payment && (
          <p
            className="mb-4 rounded-lg border border-emerald-700/50 bg-emerald-950/40 px-4 py-2 text-emerald-100"
            data-testid="payment"
          >
            {paymentSentence(intro.payment)}
          </p>
        )}
        {problem ? (
          <div
            role="alert"
            data-testid="device-message"
            className="rounded-lg border border-amber-500/60 bg-amber-950/60 p-4 text-amber-100"
          >
            <p className="font-semibold">{problem}</p>
            <p className="mt-2 text-sm">Nothing has been recorded. The link to open there:</p>
            <p
              className="mt-1 select-all break-all rounded bg-slate-950 px-2 py-1.5 font-mono text-sm text-slate-100"
              data-testid="study-link"
            >
              {window.location.href}
            </p>
            <CopyLink href={window.location.href} />
          </div>
        ) : (
          <>
            <div className="max-h-[50vh] overflow-y-auto text-slate-200">
              <Markdown text={intro.consent} />
            </div>
            <div className="mt-6 flex justify-end gap-3">
              <Button onClick={onDecline}>I do not agree</Button>
              <Button tone="primary" onClick={onAgree}>
                I agree, start
              </Button>
            </div>
          </>
        )}
      </div>
    </Centered>
  );
}

/**
 * Copies the study link, to send it to the computer the study needs; where the browser refuses
 * (no clipboard access), it says how to copy the link by hand.
 */
function CopyLink({ href }: { href: string }) {
  const [result, setResult] = useState<'copied' | 'refused' | null>(null);
  const copy = () => {
    // No clipboard at all on a page served without https (other than on localhost).
    if (!navigator.clipboard) {
      setResult('refused');
      return;
    }
    navigator.clipboard.writeText(href).then(
      () => setResult('copied'),
      () => setResult('refused'),
    );
  };
  return (
    <div className="mt-3 flex flex-wrap items-center gap-3">
      <Button tone="primary" onClick={copy}>
        Copy link
      </Button>
      <span role="status" className="text-sm">
        {result === 'copied'
          ? 'Copied: paste it into a message or an email to yourself.'
          : result === 'refused'
            ? 'This browser did not allow copying: press and hold the link above, then choose Copy.'
            : ''}
      </span>
    </div>
  );
}

/** The end for a participant who did not consent: nothing of theirs is stored. */
function Declined({ intro }: { intro: StudyIntro }) {
  const { message, code, redirectUrl } = intro.decline;
  useRedirectSoon(redirectUrl ?? null);
  return (
    <EndCard testId="declined" title="You chose not to take part">
      <div className="mt-3 text-slate-300">
        {message ? <Markdown text={message} /> : <p>Nothing about you has been recorded. You may close this page.</p>}
      </div>
      {code && <PlatformCode lead="If the study platform asks for a code, use" code={code} testId="decline-code" />}
      {redirectUrl && <RedirectNote url={redirectUrl} now="go now" />}
    </EndCard>
  );
}

/** The end for a participant who withdrew: the study's message and code, if it has them. */
function Withdrawn({ message, code }: { message: string | null; code: string | null }) {
  return (
    <EndCard testId="withdrawn" title="You have withdrawn from the study">
      <div className="mt-3 text-slate-300">
        {message ? (
          <Markdown text={message} />
        ) : (
          <p>Thank you for your time. Nothing more will be recorded; you may close this page.</p>
        )}
      </div>
      {code && <PlatformCode lead="If the study platform asks for a code, use" code={code} testId="withdraw-code" />}
    </EndCard>
  );
}

/** The card of a screen that ends the study for the participant. */
function EndCard({ testId, title, children }: { testId: string; title: string; children: React.ReactNode }) {
  return (
    <Centered main>
      <div
        className="w-full max-w-xl rounded-xl border border-slate-800 bg-slate-900/70 p-8 text-center"
        data-testid={testId}
      >
        <h1 className="text-2xl font-semibold text-white">{title}</h1>
        {children}
      </div>
    </Centered>
  );
}

/** A code the participant gives the study platform, easy to select; green when it is the completion code. */
function PlatformCode({
  lead,
  code,
  testId,
  completion = false,
}: {
  lead: string;
  code: string;
  testId: string;
  completion?: boolean;
}) {
  return (
    <>
      <p className="mt-4 text-slate-300">{lead}</p>
      <p
        className={`mt-2 select-all rounded-lg bg-slate-950 py-3 font-mono text-2xl tracking-widest ${completion ? 'text-emerald-300' : 'text-amber-200'}`}
        data-testid={testId}
      >
        {code}
      </p>
    </>
  );
}

/** Says the page will send the participant back to the study platform, with a link to go at once. */
function RedirectNote({ url, now, seconds }: { url: string; now: string; seconds?: number }) {
  return (
    <p className="mt-4 text-sm text-slate-400" data-testid="redirect-note" data-redirect-url={url}>
      You will be taken back {seconds === undefined ? 'in a few seconds' : seconds === 0 ? 'now' : `in ${seconds} s`},
      or{' '}
      <a className="text-sky-300 underline" href={url}>
        {now}
      </a>
      .
    </p>
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

function Debrief({
  code,
  redirectUrl,
  redirectAfterSeconds,
  timeUpMinutes,
}: {
  code: string;
  redirectUrl: string | null;
  redirectAfterSeconds: number;
  timeUpMinutes: number | null;
}) {
  useRedirectSoon(redirectUrl, redirectAfterSeconds);
  return (
    <EndCard testId="debrief" title={timeUpMinutes === null ? 'Thank you!' : 'Time is up. Thank you!'}>
      {timeUpMinutes !== null && (
        <p className="mt-3 text-slate-300" data-testid="session-time-up">
          The study allows {spokenMinutes(timeUpMinutes)} in all and that time is spent, so it ends here. You do not
          need to do anything more.
        </p>
      )}
      <PlatformCode
        lead="Everything you did has been saved. Your completion code is"
        code={code}
        testId="completion-code"
        completion
      />
      {redirectUrl && <RedirectNote url={redirectUrl} now="continue now" seconds={redirectAfterSeconds} />}
    </EndCard>
  );
}

/** Minutes and seconds, `m:ss` (or `h:mm:ss` past an hour). */
function formatClock(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600),
    m = Math.floor((total % 3600) / 60),
    sec = total % 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(sec).padStart(2, '0')}`;
}
