/**
 * The participant's study page: consent, then the running study (`StudyRun`), then the end.
 * Its parts live beside it in study/: the run (StudyRun.tsx; its reducer runMachine.ts, its side
 * effects runEffects.ts, its frame StudyHeader.tsx), the screens in front of an item
 * (RunScreens.tsx), the items (ItemView.tsx, TaskItemView.tsx, GameItemView.tsx), consent
 * (Consent.tsx), the ends (EndScreens.tsx) and the session's set-up (running.ts).
 */
import { useEffect, useState } from 'react';
import { useParams } from 'wouter';
import { listSessions } from '../log/idb';
import { logVisibility } from '../log/presence';
import { loadMath } from './MathText';
import { createSession, getSession, getStudyIntro, type StudyIntro } from './api';
import { Outbox, type StudySessionRecord } from './outbox';
import { breaksOf, sessionBudget } from './budget';
import {
  type Running,
  linkParams,
  linkParticipant,
  savedSessionFor,
  type PageError,
  pageError,
  clientInfo,
  enterItem,
  startPosition,
  describeLastFrom,
  itemHistory,
} from './running';
import { StudyError, Centered } from './RunScreens';
import { StudyRun } from './StudyRun';
import { Consent } from './Consent';
import { Declined, Withdrawn, Debrief } from './EndScreens';

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
