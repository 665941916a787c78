/**
 * The proctor's console of a testing centre: every station of a study, live (asked again every
 * half second), with who is on it, their candidate and level, the item's and the session's time
 * left, idle or away, finished, offline and what its outbox still holds; and the proctor's
 * actions: register a station, check a participant in, pause and resume, a note or a flag, end,
 * and retire a station no longer in use (hidden unless "Show retired stations" is ticked) or put
 * it back.
 */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import type { StationState, StationStatus } from '../../core/protocol/centre';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { RequireResearcher } from '../studio/RequireResearcher';
import { formatMs } from '../studio/widgets';
import { addStation, checkIn, consoleQuery, endSession, noteSession, pauseSession, retireStation } from './api';

const STATE: Record<StationState, { label: string; tone: string }> = {
  retired: { label: 'retired', tone: 'bg-slate-800 text-slate-400' },
  offline: { label: 'offline', tone: 'bg-rose-700/40 text-rose-100' },
  free: { label: 'free', tone: 'bg-slate-700 text-slate-100' },
  waiting: { label: 'waiting to begin', tone: 'bg-sky-700/40 text-sky-100' },
  running: { label: 'running', tone: 'bg-emerald-700/40 text-emerald-100' },
  paused: { label: 'paused', tone: 'bg-indigo-600/50 text-indigo-100' },
  idle: { label: 'idle', tone: 'bg-amber-600/40 text-amber-100' },
  away: { label: 'away from the tab', tone: 'bg-amber-600/40 text-amber-100' },
  finished: { label: 'finished', tone: 'bg-slate-600 text-white' },
};

export function ConsolePage() {
  return (
    <RequireResearcher>
      <Console />
    </RequireResearcher>
  );
}

function Console() {
  const { studyId } = useParams<{ studyId: string }>();
  const [withRetired, setWithRetired] = useState(false);
  const q = useQuery(consoleQuery(studyId, withRetired));
  const client = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  /** Runs a proctor's action and reads the console again at once. */
  const act = async (what: () => Promise<unknown>) => {
    try {
      setError(null);
      await what();
    } catch (e) {
      setError((e as Error).message);
    }
    await client.invalidateQueries({ queryKey: ['admin', 'centre', studyId] });
  };

  return (
    <div className="h-full overflow-y-auto p-4 sm:p-6">
      <div className="flex flex-wrap items-baseline gap-x-4 gap-y-2">
        <h1 className="text-xl font-semibold text-white">Testing centre: {q.data?.title ?? studyId}</h1>
        <Link
          href={`/studies/${encodeURIComponent(studyId)}/centre/payouts`}
          className="text-sm text-sky-300 underline"
        >
          Payout sheet
        </Link>
        <label className="flex items-center gap-1 text-sm text-slate-300">
          <input type="checkbox" checked={withRetired} onChange={(e) => setWithRetired(e.target.checked)} /> Show
          retired stations
        </label>
      </div>
      {q.error && (
        <p role="alert" className="mt-3 text-rose-200">
          {(q.error as Error).message}
        </p>
      )}
      {error && (
        <p
          role="alert"
          className="mt-3 rounded bg-rose-900/50 px-3 py-2 text-sm text-rose-100"
          data-testid="console-error"
        >
          {error}
        </p>
      )}
      <AddStation studyId={studyId} onAdded={() => void client.invalidateQueries({ queryKey: ['admin', 'centre'] })} />
      <ul className="mt-4 grid gap-3 sm:grid-cols-2 xl:grid-cols-3" aria-label="Stations">
        {q.data?.stations.map((s) => (
          <StationCard key={s.id} studyId={studyId} station={s} act={act} />
        ))}
      </ul>
      {q.data && q.data.stations.length === 0 && (
        <p className="mt-4 text-sm text-slate-400">
          No station in service: add one, then open its link on the station
          {withRetired ? '' : ' (or show the retired stations to put one back)'}.
        </p>
      )}
    </div>
  );
}

function AddStation({ studyId, onAdded }: { studyId: string; onAdded: () => void }) {
  const [name, setName] = useState('');
  const [made, setMade] = useState<{ name: string; link: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="mt-4 flex flex-wrap items-end gap-2 rounded-lg border border-slate-800 bg-slate-900/60 p-3"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          const s = await addStation(studyId, name.trim());
          setMade({ name: s.name, link: `${window.location.origin}${s.link}` });
          setName('');
          setError(null);
          onAdded();
        } catch (err) {
          setError((err as Error).message);
        }
      }}
    >
      <label className="text-sm text-slate-300">
        New station
        <input
          className="mt-1 block rounded-md border border-slate-600 bg-slate-950 px-2 py-1 text-white"
          value={name}
          placeholder="A1"
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <Button type="submit" tone="primary" disabled={!name.trim()}>
        Add station
      </Button>
      {error && (
        <p role="alert" className="w-full text-sm text-rose-200">
          {error}
        </p>
      )}
      {made && (
        <p className="w-full text-sm text-slate-300">
          Open this link once on station {made.name}&apos;s machine (it is shown only now):{' '}
          <code className="break-all text-emerald-200" data-testid="station-link" data-station={made.name}>
            {made.link}
          </code>
        </p>
      )}
    </form>
  );
}

function StationCard({
  studyId,
  station: s,
  act,
}: {
  studyId: string;
  station: StationStatus;
  act: (what: () => Promise<unknown>) => Promise<void>;
}) {
  const [participant, setParticipant] = useState('');
  const [note, setNote] = useState('');
  const [flag, setFlag] = useState(false);
  const [ending, setEnding] = useState(false);
  const session = s.session;
  const open = session !== null && s.state !== 'finished';
  const retired = s.state === 'retired';
  const tone = STATE[s.state];
  return (
    <li
      className="rounded-lg border border-slate-800 bg-slate-900/70 p-3 text-sm text-slate-200"
      data-testid={`station-${s.name}`}
      data-state={s.state}
    >
      <div className="flex items-center gap-2">
        <h2 className="font-semibold text-white">Station {s.name}</h2>
        <span className={`rounded px-1.5 py-0.5 text-xs ${tone.tone}`} data-testid="station-state">
          {tone.label}
        </span>
        <span className="ml-auto text-xs text-slate-400" data-testid="station-outbox">
          {s.outboxPending > 0 ? `${s.outboxPending} events to send` : s.lastSeenAt ? 'caught up' : 'never seen'}
        </span>
      </div>
      {s.waiting && <p className="mt-1">Waiting: {s.waiting}</p>}
      {session && (
        <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs">
          <dt className="text-slate-400">Participant</dt>
          <dd data-testid="station-participant">{session.participant}</dd>
          <dt className="text-slate-400">Item</dt>
          <dd>
            {session.item
              ? `${session.item.id}${session.item.candidate ? ' (candidate)' : ''}${session.item.level !== null ? `, level ${session.item.level + 1}` : ''}`
              : '–'}
          </dd>
          <dt className="text-slate-400">Item time left</dt>
          <dd>{formatMs(session.item?.msLeft)}</dd>
          <dt className="text-slate-400">Session time left</dt>
          <dd>{formatMs(session.sessionMsLeft)}</dd>
          {session.away && (
            <>
              <dt className="text-slate-400">{session.away.kind === 'hidden' ? 'Away' : 'Idle'}</dt>
              <dd>since {new Date(session.away.since).toLocaleTimeString()}</dd>
            </>
          )}
          {session.pausedMs > 0 && (
            <>
              <dt className="text-slate-400">Breaks</dt>
              <dd>{formatMs(session.pausedMs)}</dd>
            </>
          )}
        </dl>
      )}
      {session && session.notes.length > 0 && (
        <ul className="mt-2 space-y-0.5 text-xs" aria-label={`Notes on station ${s.name}`}>
          {session.notes.map((n, i) => (
            <li key={i} className={n.flag ? 'text-amber-200' : 'text-slate-300'}>
              {n.flag ? 'Flag: ' : ''}
              {n.text} <span className="text-slate-400">({n.actor})</span>
            </li>
          ))}
        </ul>
      )}
      {!open && !retired && (
        <form
          className="mt-2 flex gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            void act(() => checkIn(studyId, s.id, participant.trim())).then(() => setParticipant(''));
          }}
        >
          <input
            aria-label={`Participant id for station ${s.name}`}
            className="min-w-0 flex-1 rounded-md border border-slate-600 bg-slate-950 px-2 py-1 text-white"
            value={participant}
            onChange={(e) => setParticipant(e.target.value)}
          />
          <Button type="submit" disabled={!participant.trim()}>
            Check in
          </Button>
        </form>
      )}
      {!open && (
        <div className="mt-2">
          <Button onClick={() => void act(() => retireStation(studyId, s.id, !retired))}>
            {retired ? 'Put back in service' : 'Retire station'}
          </Button>
        </div>
      )}
      {open && (
        <div className="mt-2 flex flex-wrap gap-2">
          <Button onClick={() => void act(() => pauseSession(session.id, !session.paused))}>
            {session.paused ? 'Resume' : 'Pause'}
          </Button>
          <Button onClick={() => setEnding(true)}>End session</Button>
          <form
            className="flex min-w-0 flex-1 gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              void act(() => noteSession(session.id, note.trim(), flag)).then(() => setNote(''));
            }}
          >
            <input
              aria-label={`Note on station ${s.name}`}
              className="min-w-0 flex-1 rounded-md border border-slate-600 bg-slate-950 px-2 py-1 text-white"
              value={note}
              onChange={(e) => setNote(e.target.value)}
            />
            <label className="flex items-center gap-1 text-xs">
              <input type="checkbox" checked={flag} onChange={(e) => setFlag(e.target.checked)} /> flag
            </label>
            <Button type="submit" disabled={!note.trim()}>
              Note
            </Button>
          </form>
        </div>
      )}
      {ending && session && (
        <ConfirmDialog
          title={`End ${session.participant}'s session?`}
          confirmLabel="End session"
          tone="danger"
          askReason
          onConfirm={async (reason) => {
            await endSession(session.id, reason);
            setEnding(false);
            await act(async () => {});
          }}
          onClose={() => setEnding(false)}
        >
          The session ends now, as if the participant finished: what they did is kept and counted by the study&apos;s
          rules, and the station clears itself once it has sent everything.
        </ConfirmDialog>
      )}
    </li>
  );
}
