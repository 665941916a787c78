/**
 * A designer's playtest of an ARC-AGI-3 game the server runs (arcengine folders, remote
 * servers): any level, instant restart, a state inspector (the game's public attributes, the
 * sprites under the pointer), hot reload (saving the game's `.py` file restarts the level with
 * the new code, and an error shows its traceback here without losing anything), a check that
 * the playtest's actions played twice give the same frames, and the level's state graph.
 */
import { useEffect, useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ServerGameInfo } from '../../core/game/serverGame';
import type { Arc3GamesReply, Arc3Inspection, GameFileStatus } from '../../core/protocol/arc3';
import { ServerGamePlayer } from '../game/ServerGamePlayer';
import { playtestRunApi, type ServerGameController } from '../game/serverController';
import { practiceLog } from '../log/practice';
import { Button } from '../ui/Button';
import { adminJson, signedIn, useResearcher } from './auth';
import { DeterminismCheck } from './DeterminismCheck';
import { Arc3GraphPanel } from './Arc3GraphPanel';
import { LevelSelect, PlaytestShell } from './PlaytestShell';

export const arc3GamesQuery = {
  queryKey: ['admin', 'arc3-games'],
  queryFn: () => adminJson<Arc3GamesReply>('/api/admin/arc3/games'),
  staleTime: 10_000,
};

/** The ARC-AGI-3 games the server runs (researchers only; none before logging in). */
export function useArc3Games() {
  return useQuery({ ...arc3GamesQuery, enabled: useResearcher(signedIn) });
}

/** The game with this id or short id, among the server's ARC-AGI-3 games. */
export function findArc3Game(games: readonly ServerGameInfo[], id: string): ServerGameInfo | null {
  return (
    games.find((g) => g.id === id) ??
    (games.filter((g) => g.id.split('-')[0] === id).length === 1 ? games.find((g) => g.id.split('-')[0] === id)! : null)
  );
}

export function Arc3Playtest({ info }: { info: ServerGameInfo }) {
  const [level, setLevel] = useState(0);
  const [restarts, setRestarts] = useState(0);
  const [failure, setFailure] = useState<{ message: string; traceback?: string } | null>(null);
  const [reloaded, setReloaded] = useState<number | null>(null);
  const [hover, setHover] = useState<{ x: number; y: number } | null>(null);
  const sink = practiceLog();
  // A new run (and so a new API binding) per level and restart.
  const api = useMemo(
    () => playtestRunApi((url, body) => adminJson(url, { method: 'POST', body: JSON.stringify(body) }), info.id, level),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [info.id, level, restarts],
  );

  // Hot reload: the server watches the game's file; a new revision restarts the level on the new code.
  const status = useQuery({
    queryKey: ['admin', 'arc3-status', info.id],
    queryFn: () => adminJson<GameFileStatus>(`/api/admin/arc3/games/${encodeURIComponent(info.id)}/status`),
    refetchInterval: 700,
  });
  const revision = status.data?.revision ?? null;
  const [seen, setSeen] = useState<number | null>(null);
  const client = useQueryClient();
  useEffect(() => {
    if (revision === null) return;
    if (seen === null) {
      setSeen(revision);
      return;
    }
    if (revision === seen) return;
    setSeen(revision);
    // The green notice says the new code runs: a file that fails to load replaces it, never stands beside it.
    if (status.data?.error) {
      setReloaded(null);
      setFailure({ message: status.data.error, traceback: status.data.traceback });
    } else {
      setFailure(null);
      setReloaded(revision);
      setRestarts((r) => r + 1);
      // The new code has a new hash: the catalog is read again, so the version badge shows it.
      void client.invalidateQueries({ queryKey: arc3GamesQuery.queryKey });
    }
  }, [revision, seen, status.data, client]);

  const levels = info.levels ?? 0;
  const toolbar = (
    <div className="flex w-full flex-col gap-2 text-sm">
      {levels > 1 && (
        <LevelSelect
          levels={levels}
          level={level}
          onChoose={(l) => {
            setLevel(l);
            setRestarts((r) => r + 1);
          }}
        />
      )}
      <Button
        tone="primary"
        onClick={() => {
          setFailure(null);
          setRestarts((r) => r + 1);
        }}
        title="Start the chosen level again at once"
      >
        Restart level
      </Button>
    </div>
  );

  return (
    <PlaytestShell
      title={info.title}
      note="Not recorded to a study"
      badges={
        <>
          <span className="rounded bg-sky-600/20 px-1.5 py-0.5 text-[11px] text-sky-200">{info.engine}</span>
          {info.codeHash && (
            <span
              className="rounded bg-slate-700/60 px-1.5 py-0.5 font-mono text-[11px] text-slate-200"
              title={`Version ${info.version ?? ''}: the hash of the game's files. Runs opened now play it.`}
              data-testid="code-version"
            >
              @{info.codeHash}
            </span>
          )}
          {reloaded !== null && (
            <span role="status" className="text-xs text-emerald-300" data-testid="reloaded">
              Reloaded the game file (revision {reloaded}); the level restarted with the new code
            </span>
          )}
        </>
      }
    >
      {failure && (
        <div
          role="alert"
          className="max-h-64 shrink-0 overflow-auto border-b border-rose-800 bg-rose-950/70 p-3 text-sm text-rose-100"
          data-testid="game-failure"
        >
          <p className="font-semibold">{failure.message}</p>
          <p className="mt-1 text-xs text-rose-200">
            Fix the file and save it: the game reloads by itself. Nothing of this playtest is lost.
          </p>
          {failure.traceback && (
            <pre className="mt-2 whitespace-pre-wrap font-mono text-[11px] text-rose-200" data-testid="traceback">
              {failure.traceback}
            </pre>
          )}
        </div>
      )}
      <div className="min-h-0 flex-1">
        {/* The playtest's own controls sit above the inspector, so a long state never pushes them off screen. */}
        <ServerGamePlayer
          key={`${level}:${restarts}`}
          info={info}
          api={api}
          sink={sink}
          onError={(e) => {
            setReloaded(null);
            setFailure({ message: e.message, traceback: (e.details as { traceback?: string } | undefined)?.traceback });
          }}
          onHover={setHover}
          side={(c) => (
            <>
              {toolbar}
              <Arc3Inspector controller={c} hover={hover} />
              <DeterminismCheck run={c} />
              {info.source === 'arcengine' && (
                <Arc3GraphPanel key={level} gameId={info.id} level={level} levels={levels} />
              )}
            </>
          )}
        />
      </div>
    </PlaytestShell>
  );
}

/** The game's public attributes and the sprites under the pointer, read from the engine after each action. */
function Arc3Inspector({
  controller,
  hover,
}: {
  controller: ServerGameController;
  hover: { x: number; y: number } | null;
}) {
  const hud = controller.hud();
  const run = controller.runId;
  const inspection = useQuery({
    queryKey: ['admin', 'arc3-inspect', run, hud.frameHash, hud.actions],
    queryFn: () => adminJson<Arc3Inspection>(`/api/admin/arc3/runs/${encodeURIComponent(run!)}/inspect`),
    enabled: !!run && !!hud.frameHash,
  });
  const data = inspection.data;
  const under = useMemo(() => {
    if (!data || !hover) return [];
    const { camera: c } = data;
    if (c.scale <= 0) return [];
    const gx = Math.floor((hover.x - c.x_offset) / c.scale) + c.x;
    const gy = Math.floor((hover.y - c.y_offset) / c.scale) + c.y;
    return data.sprites
      .filter((s) => s.visible && gx >= s.x && gx < s.x + s.width && gy >= s.y && gy < s.y + s.height)
      .sort((a, b) => b.layer - a.layer);
  }, [data, hover]);
  return (
    <details open className="rounded-lg border border-slate-800 bg-slate-900/60 p-3 text-xs" data-testid="inspector">
      <summary className="cursor-pointer font-semibold uppercase tracking-wide text-slate-400">State inspector</summary>
      {!data ? (
        <p className="mt-2 text-slate-500">
          {inspection.error ? (inspection.error as Error).message : 'Reading the game…'}
        </p>
      ) : (
        <>
          <dl className="mt-2 grid grid-cols-2 gap-x-2 gap-y-1 font-mono text-slate-300">
            <dt className="text-slate-500">state</dt>
            <dd>{data.state}</dd>
            <dt className="text-slate-500">level</dt>
            <dd>
              {data.level_index + 1} / {data.levels}
            </dd>
            <dt className="text-slate-500">available</dt>
            <dd>{hud.available.join(', ') || '–'}</dd>
            <dt className="text-slate-500">frame hash</dt>
            <dd>{hud.frameHash}</dd>
            <dt className="text-slate-500">pointer</dt>
            <dd data-testid="pointer">{hover ? `${hover.x}, ${hover.y}` : '–'}</dd>
          </dl>
          <p className="mt-2 text-slate-500">Sprites under the pointer</p>
          <ul className="font-mono text-slate-300" data-testid="sprites-under-pointer">
            {under.length ? (
              under.map((s, i) => (
                <li key={i}>
                  {s.name}{' '}
                  <span className="text-slate-500">
                    ({s.x},{s.y}) {s.width}x{s.height} layer {s.layer}
                    {s.tags.length ? ` · ${s.tags.join(', ')}` : ''}
                  </span>
                </li>
              ))
            ) : (
              <li className="text-slate-500">–</li>
            )}
          </ul>
          <pre
            className="mt-2 max-h-48 overflow-auto rounded bg-slate-950 p-2 text-[11px] text-slate-300"
            tabIndex={0}
            aria-label="Game attributes"
            data-testid="attributes"
          >
            {JSON.stringify(data.attributes, null, 1)}
          </pre>
        </>
      )}
    </details>
  );
}
