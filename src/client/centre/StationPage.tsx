/**
 * A testing centre's station: a browser the proctor registered, opened once with its station link
 * (`/station#<secret>`; the secret moves to this browser's storage and out of the address bar).
 * It shows no studio navigation. Between participants it offers a check-in (or begins at once for
 * the participant the proctor checked in), shows the study's consent, runs the session on the
 * study page, covers it during a proctor's break, and once the session is over and the server has
 * every event, deletes it from this browser, so the next participant finds nothing of the last.
 * It calls the server every second (`STATION_PING_MS`) with what its outbox still holds.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api';
import { STATION_PING_MS } from '../../core/study/centre';
import type { StationView } from '../../core/protocol/centre';
import { listSessions } from '../log/idb';
import { Outbox, type StudySessionRecord } from '../study/outbox';
import { StudyPage } from '../study/StudyPage';
import { createSession, getStudyIntro } from '../study/api';
import { Button } from '../ui/Button';
import { Markdown } from '../ui/Markdown';
import { stationBegan, stationCleared, stationPing } from './api';

/** Where this browser keeps its station secret: the one thing a station keeps between participants. */
export const STATION_KEY = 'arc-studio.station';

type Phase =
  | { kind: 'idle'; note: string | null }
  | { kind: 'consent'; participant: string; consent: string }
  | { kind: 'starting' }
  | { kind: 'running'; record: StudySessionRecord }
  | { kind: 'clearing' };

/** The secret from the station link, kept in storage and taken out of the address bar; else the kept one. */
function stationSecret(): string | null {
  const fromLink = window.location.hash.slice(1);
  if (/^[A-Za-z0-9_-]{16,200}$/.test(fromLink)) {
    localStorage.setItem(STATION_KEY, fromLink);
    window.history.replaceState(null, '', '/station');
  }
  return localStorage.getItem(STATION_KEY);
}

/**
 * Sends what is left of a session, then deletes it from this browser. A session the proctor
 * ended mid-item may still hold events: they go first (the server stores each once).
 */
async function clearSession(record: StudySessionRecord): Promise<void> {
  const saved = ((await listSessions()) as StudySessionRecord[]).find((s) => s.id === record.id) ?? record;
  const { outbox } = await Outbox.open(saved);
  outbox.start();
  await outbox.drained();
  await outbox.forget();
}

export function StationPage() {
  const [secret] = useState(stationSecret);
  const [view, setView] = useState<StationView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle', note: null });
  const outbox = useRef<Outbox | null>(null);
  const sessionId = phase.kind === 'running' ? phase.record.id : null;

  // The station's call every second: it is there, and what its outbox holds; the answer says
  // who is waiting, whether the session is paused, and whether the proctor ended it.
  useEffect(() => {
    if (!secret) return;
    let stopped = false;
    const call = async () => {
      try {
        const v = await stationPing(secret, sessionId, outbox.current?.status.getState().pending ?? 0);
        if (stopped) return;
        setView(v);
        setProblem(null);
      } catch (e) {
        if (stopped) return;
        // Not a station, or a retired one: no check-in here until the proctor says otherwise.
        const refused = e instanceof ApiError && (e.status === 401 || e.status === 403);
        if (refused) setView(null);
        setProblem(
          refused
            ? e.message
            : 'The server cannot be reached. The session goes on; its work is kept here and sent when the connection returns.',
        );
      }
    };
    void call();
    const id = setInterval(() => void call(), STATION_PING_MS);
    return () => {
      stopped = true;
      clearInterval(id);
    };
  }, [secret, sessionId]);

  const clear = useCallback(
    async (record: StudySessionRecord) => {
      setPhase({ kind: 'clearing' });
      try {
        await clearSession(record);
        if (secret) await stationCleared(secret, record.id);
        setPhase({ kind: 'idle', note: 'Thank you. The last session is saved and cleared from this station.' });
      } catch (e) {
        setPhase({ kind: 'idle', note: `The last session could not be cleared yet: ${(e as Error).message}` });
      }
    },
    [secret],
  );

  // The proctor ended the session: stop the study and clear it.
  const ended = view?.session?.ended === true && view.session.id === sessionId;
  useEffect(() => {
    if (ended && phase.kind === 'running') void clear(phase.record);
  }, [ended, phase, clear]);

  const checkIn = useCallback(
    async (participant: string) => {
      if (!view) return;
      try {
        const intro = await getStudyIntro(view.station.studyId);
        setPhase({ kind: 'consent', participant, consent: intro.consent });
      } catch (e) {
        setProblem((e as Error).message);
      }
    },
    [view],
  );
  // A participant the proctor checked in: the station asks their consent at once.
  const waiting = view?.waiting ?? null;
  useEffect(() => {
    if (waiting && phase.kind === 'idle') void checkIn(waiting);
  }, [waiting, phase.kind, checkIn]);

  const begin = async (participant: string) => {
    if (!view || !secret) return;
    // One session per agreement: a second click finds the station starting already.
    setPhase({ kind: 'starting' });
    try {
      const studyId = view.station.studyId;
      const made = await createSession(studyId, { participantId: participant, station: view.station.id });
      const record = await Outbox.saveNew({ id: made.sessionId, studyId, token: made.token, participant });
      await stationBegan(secret, made.sessionId, made.token);
      setPhase({ kind: 'running', record });
    } catch (e) {
      setPhase({ kind: 'idle', note: (e as Error).message });
    }
  };

  const onOutbox = useCallback((o: Outbox | null) => {
    outbox.current = o;
  }, []);
  const record = phase.kind === 'running' ? phase.record : null;
  const onOver = useCallback(() => {
    if (record) void clear(record);
  }, [record, clear]);

  if (!secret)
    return (
      <Screen>
        <h1 className="text-lg font-semibold text-white">This browser is not a station yet</h1>
        <p className="mt-2 text-sm text-slate-300">
          Open the station link the proctor&apos;s console gave for this machine (it ends in <code>#</code> and a long
          code). It is needed once: the browser remembers it.
        </p>
      </Screen>
    );
  if (phase.kind === 'running')
    return (
      <div className="h-full" data-testid="station-running">
        <StudyPage
          key={phase.record.id}
          station={{ record: phase.record, paused: view?.session?.paused === true, onOver, onOutbox }}
        />
      </div>
    );
  return (
    <Screen>
      <p className="text-xs uppercase tracking-wide text-slate-400" data-testid="station-name">
        Station {view?.station.name ?? ''}
      </p>
      {problem && (
        <p role="alert" className="mt-3 rounded bg-amber-500/20 px-3 py-2 text-sm text-amber-100">
          {problem}
        </p>
      )}
      {phase.kind === 'starting' && (
        <p role="status" className="mt-4 text-slate-200">
          Starting the session…
        </p>
      )}
      {phase.kind === 'clearing' && (
        <p role="status" className="mt-4 text-slate-200">
          Saving the session and clearing this station…
        </p>
      )}
      {phase.kind === 'consent' && (
        <div className="mt-4 text-left" data-testid="station-consent">
          <h1 className="text-lg font-semibold text-white">Welcome</h1>
          <div className="prose prose-invert mt-3 max-h-80 overflow-y-auto text-sm">
            <Markdown text={phase.consent} />
          </div>
          <div className="mt-4 flex gap-2">
            <Button tone="primary" onClick={() => void begin(phase.participant)}>
              I agree, begin
            </Button>
            <Button onClick={() => setPhase({ kind: 'idle', note: null })}>Not now</Button>
          </div>
        </div>
      )}
      {phase.kind === 'idle' && <CheckInForm note={phase.note} onCheckIn={(p) => void checkIn(p)} ready={!!view} />}
    </Screen>
  );
}

function CheckInForm({
  note,
  ready,
  onCheckIn,
}: {
  note: string | null;
  ready: boolean;
  onCheckIn: (participant: string) => void;
}) {
  const [id, setId] = useState('');
  const valid = /^[A-Za-z0-9_.@-]{1,200}$/.test(id.trim());
  return (
    <form
      className="mt-4"
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) onCheckIn(id.trim());
      }}
    >
      <h1 className="text-lg font-semibold text-white">Check in</h1>
      {note && (
        <p role="status" className="mt-2 text-sm text-emerald-200" data-testid="station-note">
          {note}
        </p>
      )}
      <label className="mt-4 block text-left text-sm text-slate-300">
        Your participant id
        <input
          className="mt-1 block w-full rounded-md border border-slate-600 bg-slate-950 px-3 py-2 text-white"
          value={id}
          autoComplete="off"
          onChange={(e) => setId(e.target.value)}
        />
      </label>
      {id && !valid && (
        <p className="mt-1 text-left text-xs text-amber-200">
          An id is letters, digits and _ . @ - only, without spaces: type it as it is on your card.
        </p>
      )}
      <div className="mt-4 flex flex-wrap justify-center gap-2">
        <Button tone="primary" type="submit" disabled={!valid || !ready}>
          Check in
        </Button>
        <Button onClick={() => void document.documentElement.requestFullscreen?.().catch(() => {})}>Full screen</Button>
      </div>
    </form>
  );
}

function Screen({ children }: { children: React.ReactNode }) {
  return (
    <main className="flex h-full items-center justify-center overflow-y-auto p-6">
      <div className="w-full max-w-md rounded-xl border border-slate-800 bg-slate-900/70 p-6 text-center">
        {children}
      </div>
    </main>
  );
}
