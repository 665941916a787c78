import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import type { LogEvent } from '../../core/log/events';
import { games } from '../../games';
import { RequireResearcher } from './RequireResearcher';
import { AgentBadge } from './AgentsPanel';
import { ItemReplay, type ItemLog, type StoredRun } from './ReplayPage';
import { agentRunQuery, type AgentRunReplay } from './queries';

/** The replay of one agent run, in the same viewer as the participants' sessions. */
export function AgentReplayPage() {
  return (
    <RequireResearcher>
      <AgentReplay />
    </RequireResearcher>
  );
}

/**
 * The run as a log the viewer reads: the opening RESET is the `game.open`, every later step a
 * `game.action`. A built-in game replays on the TS engine from its actions; a game on the
 * official engine shows the frames the server stored for each step.
 */
function asLog(r: AgentRunReplay): { item: ItemLog; runs?: StoredRun[] } {
  const short = r.run.gameId.split('-')[0];
  const builtin = r.run.source === 'builtin' && games[short] !== undefined;
  const game = builtin ? short : r.run.gameId;
  // A built-in run starts NOT_PLAYED and waits for its RESET, as the agent's opening step was.
  const events: LogEvent[] = r.steps
    .flatMap((s): LogEvent[] => {
      const action = {
        kind: 'game.action',
        data: {
          game,
          ...(builtin ? {} : { run: r.run.guid, step: s.seq }),
          action: s.action,
          ...(s.x !== null ? { x: s.x, y: s.y } : {}),
          level: s.levelsCompleted,
          state: s.state,
        },
      };
      if (s.seq > 0) return [{ seq: 0, t: s.at, ...action }];
      const open = {
        seq: 0,
        t: s.at,
        kind: 'game.open',
        data: { game, ...(builtin ? { seed: r.run.seed } : { run: r.run.guid }) },
      };
      return builtin ? [open, { seq: 0, t: s.at, ...action }] : [open];
    })
    .map((e, seq) => ({ ...e, seq }));
  const item: ItemLog = { id: r.run.gameId, events, practice: false };
  if (builtin) return { item };
  return {
    item,
    runs: [
      {
        runId: r.run.guid,
        item: r.run.gameId,
        gameId: r.run.gameId,
        engine: r.run.source,
        steps: r.steps.map((s) => ({
          step: s.seq,
          action: s.action,
          x: s.x,
          y: s.y,
          state: s.state,
          levelsCompleted: s.levelsCompleted,
          winLevels: s.winLevels,
          frameHash: s.frameHash,
          frames: s.frames ?? '',
        })),
      },
    ],
  };
}

function AgentReplay() {
  const { studyId, guid } = useParams<{ studyId: string; guid: string }>();
  const q = useQuery(agentRunQuery(guid));
  const log = useMemo(() => (q.data ? asLog(q.data) : null), [q.data]);
  const r = q.data;
  const last = r?.steps[r.steps.length - 1];
  const unknownGame = r && r.run.source === 'builtin' && games[r.run.gameId.split('-')[0]] === undefined;
  return (
    <div className="flex h-full min-h-0">
      <aside
        className="flex w-64 shrink-0 flex-col gap-3 overflow-y-auto border-r border-slate-800 p-3"
        data-testid="agent-replay-info"
      >
        <Link href={`/studies/${encodeURIComponent(studyId)}`} className="text-sm text-slate-400 hover:text-white">
          ← Results
        </Link>
        {r && (
          <div className="flex flex-col gap-1 text-sm">
            <h1 className="flex items-center gap-2 text-white">
              <AgentBadge /> {r.keyName}
            </h1>
            <p className="font-mono text-xs text-slate-400">{r.run.gameId}</p>
            <p className="text-xs text-slate-400">
              scorecard <span className="font-mono">{r.card.cardId.slice(0, 8)}</span>
              {r.card.closedAt === null ? ' (open)' : ''}
            </p>
            <p className="text-xs text-slate-400">
              {r.steps.length} steps ·{' '}
              {last ? `${last.levelsCompleted} levels completed · ${last.state.replace('_', ' ').toLowerCase()}` : ''}
            </p>
            <p className="text-xs text-slate-500">tags: {r.card.tags.join(', ')}</p>
            <p className="text-xs text-slate-500">
              Agent runs are never counted in the study's participants, funnels or human baselines.
            </p>
          </div>
        )}
        {q.isError && (
          <p role="alert" className="text-sm text-rose-300">
            {(q.error as Error).message}
          </p>
        )}
      </aside>
      <section aria-label="Replay" className="min-w-0 flex-1">
        {unknownGame && (
          <p role="alert" className="p-6 text-amber-300">
            This run played a version of the game this app does not have; it cannot be replayed here.
          </p>
        )}
        {log && !unknownGame && <ItemReplay key={guid} item={log.item} sessionId={guid} runs={log.runs} />}
        {q.isPending && <p className="p-6 text-slate-400">Loading the run…</p>}
      </section>
    </div>
  );
}
