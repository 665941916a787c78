import { useEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { hashState, type Run } from '../../core/game';
import { games } from '../../games';
import { GamePlayer } from '../game/GamePlayer';
import type { GameController } from '../game/controller';
import { practiceLog } from '../log/practice';
import { logVisibility, watchPresence } from '../log/presence';
import type { EventSink } from '../player/controller';
import { createSession } from '../study/api';
import { Outbox } from '../study/outbox';
import { Button } from '../ui/Button';
import { adminJson, credentialHeaders, refreshMe, signedIn as isSignedIn, useResearcher } from './auth';
import { Arc3Playtest, findArc3Game, useArc3Games } from './Arc3Playtest';
import { studiesQuery } from './queries';
import { ValidatePanel } from './validate/ValidatePanel';
import { LevelSelect, PlaytestShell } from './PlaytestShell';

interface Target {
  studyId: string;
  itemId: string;
}

/**
 * A designer's playtest: any game, any level, instant restart and a state inspector. Recorded
 * into a study as a session marked `mode: playtest`, shown beside participants' sessions but
 * never counted toward results or baselines.
 */
export function PlaytestPage() {
  const { id } = useParams<{ id: string }>();
  const arc3 = useArc3Games();
  const signedIn = useResearcher(isSignedIn);
  const checked = useResearcher((s) => s.checked);
  useEffect(() => {
    if (!checked) void refreshMe();
  }, [checked]);
  if (games[id]) return <BuiltinPlaytest id={id} />;
  if (!signedIn) {
    if (!checked) return null;
    return (
      <p role="alert" className="p-6 text-rose-300">
        Playtesting "{id}" is for the lab&apos;s designers.{' '}
        <Link href="/signin" className="underline">
          Sign in
        </Link>
        .
      </p>
    );
  }
  if (arc3.isPending) return <p className="p-6 text-slate-400">Looking for the game…</p>;
  const info = findArc3Game(arc3.data?.games ?? [], id);
  if (!info) {
    return (
      <p role="alert" className="p-6 text-rose-300">
        There is no game "{id}". {arc3.error ? (arc3.error as Error).message : ''}{' '}
        <Link href="/games" className="underline">
          See all games
        </Link>
        .
      </p>
    );
  }
  return (
    <div className="flex h-full flex-col">
      <p
        className="shrink-0 border-b border-slate-800 bg-slate-900/60 px-4 py-1 text-xs text-slate-400"
        data-testid="arc3-validate-note"
      >
        Validation of this game runs through the official engine on the command line:{' '}
        <code className="text-slate-300">arc-studio games validate {info.id} --arc3-games DIR</code> (the folder of the
        game files); its state graph is in the side panel, and in{' '}
        <code className="text-slate-300">arc-studio games graph</code>.
      </p>
      <div className="min-h-0 flex-1">
        <Arc3Playtest info={info} />
      </div>
    </div>
  );
}

function BuiltinPlaytest({ id }: { id: string }) {
  const game = games[id];
  const [level, setLevel] = useState(0);
  const [restarts, setRestarts] = useState(0);
  const [target, setTarget] = useState<Target | null>(null);
  const [recording, setRecording] = useState<{ target: Target; outbox: Outbox } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [validating, setValidating] = useState(false);
  const targets = useStudyTargets(id);

  // One playtest session per chosen target: its outbox sends what is left and is disposed when
  // the target changes or the page closes.
  useEffect(() => {
    if (!target) return;
    let cancelled = false;
    let outbox: Outbox | null = null;
    let stopPresence = () => {};
    (async () => {
      const { sessionId, token } = await createSession(target.studyId, { mode: 'playtest' }, credentialHeaders());
      if (cancelled) return;
      outbox = await Outbox.create({ id: sessionId, studyId: `playtest:${target.studyId}`, token });
      if (cancelled) {
        outbox.dispose();
        return;
      }
      outbox.start();
      outbox.append('session.start', {
        mode: 'playtest',
        wallClock: new Date().toISOString(),
        userAgent: navigator.userAgent,
      });
      logVisibility(outbox);
      outbox.append('item.start', { item: target.itemId, kind: 'game' });
      stopPresence = watchPresence(outbox);
      setRecording({ target, outbox });
    })().catch((e: Error) => {
      if (!cancelled) {
        setError(e.message);
        setTarget(null);
      }
    });
    return () => {
      cancelled = true;
      stopPresence();
      void outbox?.close();
    };
  }, [target]);
  // Events go to the chosen target's session only once it exists; until then nothing is played.
  const sink: EventSink | null = !target ? practiceLog() : recording?.target === target ? recording.outbox : null;

  if (!game)
    return (
      <p role="alert" className="p-6 text-rose-300">
        There is no game "{id}".{' '}
        <Link href="/games" className="underline">
          See all games
        </Link>
        .
      </p>
    );

  const toolbar = (
    <div
      className="flex w-full flex-col gap-2 rounded-lg border border-slate-800 bg-slate-900/60 p-3 text-sm"
      role="group"
      aria-label="Playtest"
    >
      <LevelSelect
        levels={game.levels.length}
        level={level}
        onChoose={(l) => {
          setLevel(l);
          setRestarts((r) => r + 1);
        }}
        name={(i) => `Level ${i + 1}${i === 0 ? ' (tutorial)' : ''}`}
      />
      <label className="flex items-center justify-between gap-2 whitespace-nowrap text-slate-300">
        Record to
        <select
          aria-label="Record to"
          value={target ? `${target.studyId}\u0000${target.itemId}` : ''}
          onChange={(e) => {
            const [studyId, itemId] = e.target.value.split('\u0000');
            setTarget(e.target.value ? { studyId, itemId } : null);
            setRestarts((r) => r + 1);
          }}
          className="h-8 min-w-0 max-w-40 flex-1 rounded-md border border-slate-700 bg-slate-950 px-1.5 text-xs"
        >
          <option value="">This browser only</option>
          {targets.map((t) => (
            <option key={`${t.studyId}/${t.itemId}`} value={`${t.studyId}\u0000${t.itemId}`}>
              {t.studyId} · {t.itemId}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p role="alert" className="text-xs text-rose-300">
          {error}
        </p>
      )}
      <Button tone="primary" onClick={() => setRestarts((r) => r + 1)} title="Start the chosen level again at once">
        Restart level
      </Button>
    </div>
  );

  return (
    <PlaytestShell
      title={game.title}
      note={target ? `Recording to ${target.studyId} as a playtest: never counted` : 'Not recorded to a study'}
      actions={
        <Button
          tone={validating ? 'active' : 'default'}
          className="h-7"
          aria-expanded={validating}
          aria-controls="validate-column"
          onClick={() => setValidating((v) => !v)}
          title="Random-policy validation and the state graph of a level"
        >
          {validating ? 'Hide validation' : 'Validate…'}
        </Button>
      }
    >
      {/* A phone puts the validation column below the game instead of squeezing the game beside it. */}
      <div className="flex min-h-0 flex-1 flex-col overflow-y-auto sm:flex-row sm:overflow-visible">
        <div className="min-h-0 min-w-0 flex-1">
          {sink ? (
            // The playtest's own controls sit above the inspector, so a long state never pushes them off screen.
            <GamePlayer
              key={`${level}:${restarts}:${recording?.target === target ? recording.outbox.sessionId : 'local'}`}
              game={game}
              sink={sink}
              seed={0}
              level={level}
              side={(c) => (
                <>
                  {toolbar}
                  <Inspector controller={c} />
                </>
              )}
            />
          ) : (
            <p className="p-6 text-slate-400">Starting a playtest session…</p>
          )}
        </div>
        {/* Kept mounted while hidden, so a run and its results survive closing the column. */}
        <aside
          id="validate-column"
          aria-labelledby="validate-column-title"
          hidden={!validating}
          className="w-full shrink-0 border-t border-slate-800 p-3 sm:w-[22rem] sm:overflow-y-auto sm:border-l sm:border-t-0 xl:w-[28rem]"
        >
          <h2 id="validate-column-title" className="mb-2 text-sm font-semibold uppercase tracking-wide text-slate-300">
            Validate
          </h2>
          <ValidatePanel game={game} currentLevel={level} />
        </aside>
      </div>
    </PlaytestShell>
  );
}

/** Studies this researcher can record to: those with an item of this game. */
function useStudyTargets(gameId: string): Target[] {
  const signedIn = useResearcher(isSignedIn);
  const list = useQuery({ ...studiesQuery, enabled: signedIn });
  const defs = useQuery({
    queryKey: ['admin', 'study-defs', (list.data ?? []).map((s) => `${s.id}@${s.version}`).join(',')],
    enabled: signedIn && !!list.data,
    queryFn: async () =>
      Promise.all(
        (list.data ?? []).map((s) =>
          adminJson<{ id: string; definition: { items: { kind: string; id: string; game?: string }[] } }>(
            `/api/admin/studies/${encodeURIComponent(s.id)}`,
          ),
        ),
      ),
  });
  return useMemo(
    () =>
      (defs.data ?? []).flatMap((d) =>
        d.definition.items
          .filter((i) => i.kind === 'game' && i.game === gameId)
          .map((i) => ({ studyId: d.id, itemId: i.id })),
      ),
    [defs.data, gameId],
  );
}

function toPlain(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) return `[${Array.from(value as Uint8Array).length} values]`;
  if (Array.isArray(value)) return value.length > 40 ? `[${value.length} items]` : value.map(toPlain);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  return value;
}

function Inspector({ controller }: { controller: GameController }) {
  const hud = controller.hud();
  const run: Run<unknown> = controller.currentRun;
  return (
    <details open className="rounded-lg border border-slate-800 bg-slate-900/60 p-3 text-xs" data-testid="inspector">
      <summary className="cursor-pointer font-semibold uppercase tracking-wide text-slate-400">State inspector</summary>
      <dl className="mt-2 grid grid-cols-2 gap-x-2 gap-y-1 font-mono text-slate-300">
        <dt className="text-slate-500">state</dt>
        <dd>{run.state}</dd>
        <dt className="text-slate-500">level</dt>
        <dd>
          {run.level + 1} / {run.game.levels.length}
        </dd>
        <dt className="text-slate-500">actions</dt>
        <dd>
          {run.actions} (level {run.levelActions})
        </dd>
        <dt className="text-slate-500">available</dt>
        <dd>{hud.available.join(', ') || '–'}</dd>
        <dt className="text-slate-500">state hash</dt>
        <dd data-testid="state-hash">{hashState(run)}</dd>
        <dt className="text-slate-500">frame hash</dt>
        <dd>{hud.frameHash}</dd>
      </dl>
      <pre
        className="mt-2 max-h-48 overflow-auto rounded bg-slate-950 p-2 text-[11px] text-slate-300"
        tabIndex={0}
        aria-label="Run state"
      >
        {JSON.stringify(toPlain(run.current), null, 1)}
      </pre>
    </details>
  );
}
