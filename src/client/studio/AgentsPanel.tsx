import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { Button } from '../ui/Button';
import { adminJson } from './auth';
import { agentKeysQuery, agentRunsQuery, type AgentRunRow } from './queries';
import type { IssuedAgentKey } from '../../core/protocol/agents';
import type { AgentKeyBody } from '../../core/protocol/requests';
import { SortableTable, type Column } from './widgets';

/**
 * The researcher's agent keys: issue one per agent (the key is shown once), revoke it. With a
 * study, also how an agent joins it: the tags of its scorecard.
 */
export function AgentKeysPanel({ studyId }: { studyId?: string }) {
  const client = useQueryClient();
  const keys = useQuery(agentKeysQuery);
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<{ name: string; key: string } | null>(null);
  const issue = useMutation({
    mutationFn: (n: string) =>
      adminJson<IssuedAgentKey>('/api/admin/agent-keys', {
        method: 'POST',
        body: JSON.stringify({ name: n } satisfies AgentKeyBody),
      }),
    onSuccess: (k) => {
      setIssued(k);
      setName('');
      void client.invalidateQueries({ queryKey: agentKeysQuery.queryKey });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => adminJson(`/api/admin/agent-keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => void client.invalidateQueries({ queryKey: agentKeysQuery.queryKey }),
  });
  const origin = window.location.origin;
  return (
    <section
      className="flex flex-col gap-3 rounded-xl border border-slate-800 bg-slate-900/60 p-4"
      aria-label="Agent keys"
    >
      <h2 className="text-sm font-semibold uppercase tracking-wide text-slate-400">Agents</h2>
      <p className="text-sm text-slate-300">
        Agents play this server's games over the ARC-AGI-3 protocol with a key of their own:{' '}
        <span className="font-mono text-xs">
          Arcade(operation_mode=ONLINE, arc_base_url="{origin}", arc_api_key=KEY)
        </span>
        .
        {studyId && (
          <>
            {' '}
            To show a run in this study's results and score it against its human baselines, open the scorecard with the
            tag <span className="select-all font-mono text-xs text-sky-200">study:{studyId}</span> (and{' '}
            <span className="font-mono text-xs">preset:paper</span> for the paper's preset).
          </>
        )}
      </p>
      <form
        className="flex flex-wrap items-center gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) issue.mutate(name.trim());
        }}
      >
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Agent name, e.g. random-baseline"
          aria-label="Agent name"
          maxLength={100}
          className="h-8 w-72 rounded-md border border-slate-700 bg-slate-950 px-2 text-sm text-slate-100"
        />
        <Button type="submit" tone="primary" disabled={!name.trim() || issue.isPending}>
          Issue key
        </Button>
      </form>
      {issue.isError && (
        <p role="alert" className="text-sm text-rose-300">
          {(issue.error as Error).message}
        </p>
      )}
      {issued && (
        <div className="rounded-md border border-emerald-700 bg-emerald-900/20 p-3 text-sm" data-testid="issued-key">
          <p className="text-emerald-200">
            Key for <strong>{issued.name}</strong>, shown only now: copy it to the agent.
          </p>
          <p className="mt-1 flex items-center gap-2">
            <span className="select-all break-all font-mono text-xs text-white" data-testid="issued-key-value">
              {issued.key}
            </span>
            <Button onClick={() => void navigator.clipboard?.writeText(issued.key)}>Copy</Button>
          </p>
        </div>
      )}
      {keys.isError && (
        <p role="alert" className="text-sm text-rose-300">
          {(keys.error as Error).message}
        </p>
      )}
      <ul className="flex flex-col gap-1 text-sm" aria-label="Agent key list">
        {(keys.data ?? []).map((k) => (
          <li key={k.id} className="flex items-center gap-3 rounded-md px-2 py-1 hover:bg-slate-800/50">
            <span className="text-white">{k.name}</span>
            <span className="font-mono text-xs text-slate-500">{k.id}</span>
            <span className="text-xs text-slate-400">issued {new Date(k.createdAt).toLocaleString()}</span>
            {k.revokedAt !== null ? (
              <span className="ml-auto rounded bg-rose-600/30 px-1.5 py-0.5 text-xs text-rose-200">revoked</span>
            ) : (
              <Button
                className="ml-auto"
                tone="ghost"
                onClick={() => revoke.mutate(k.id)}
                aria-label={`Revoke ${k.name}`}
              >
                Revoke
              </Button>
            )}
          </li>
        ))}
        {keys.data?.length === 0 && <li className="text-slate-500">No agent key yet.</li>}
      </ul>
    </section>
  );
}

/** The "agent" label: agent runs are never participants. */
export function AgentBadge() {
  return <span className="rounded bg-fuchsia-600/30 px-1.5 py-0.5 font-sans text-xs text-fuchsia-200">agent</span>;
}

/**
 * Agent runs of a study (all, or those of one game version), beside the human figures: each
 * with its key's name, scorecard, plays, levels and score, and a link to its replay.
 */
export function AgentRunsTable({ studyId, gameId, title }: { studyId: string; gameId?: string; title?: string }) {
  const q = useQuery(agentRunsQuery(studyId));
  const rows = (q.data ?? []).filter((r) => gameId === undefined || r.gameId === gameId);
  if (gameId !== undefined && rows.length === 0) return null;
  const columns: Column<AgentRunRow>[] = [
    {
      key: 'agent',
      label: 'Agent',
      value: (r) => r.keyName,
      render: (r) => (
        <span className="flex items-center gap-2">
          <AgentBadge />
          <span>{r.keyName}</span>
        </span>
      ),
    },
    {
      key: 'card',
      label: 'Scorecard',
      value: (r) => r.cardId,
      render: (r) => (
        <span className="font-mono text-xs" title={r.cardId}>
          {r.cardId.slice(0, 8)}
          {r.cardClosed ? '' : ' (open)'}
        </span>
      ),
    },
    ...(gameId === undefined
      ? [
          {
            key: 'game',
            label: 'Game',
            value: (r: AgentRunRow) => r.gameId,
            render: (r: AgentRunRow) => <span className="font-mono text-xs">{r.gameId}</span>,
          },
        ]
      : []),
    { key: 'plays', label: 'Plays', value: (r) => r.plays, align: 'right' },
    { key: 'actions', label: 'Actions', value: (r) => r.actions, align: 'right' },
    { key: 'levels', label: 'Levels', value: (r) => r.levelsCompleted, align: 'right' },
    { key: 'state', label: 'State', value: (r) => r.state, render: (r) => r.state.replace('_', ' ').toLowerCase() },
    {
      key: 'score',
      label: 'Score',
      value: (r) => r.score,
      align: 'right',
      render: (r) => (
        <span
          title={`${r.preset}; baselines: ${r.baselines ?? 'none'}; level actions ${r.levelActions.join(', ') || '–'} vs baselines ${r.levelBaselineActions.join(', ') || '–'}`}
          data-testid="agent-score"
        >
          {r.score.toFixed(1)}{' '}
          <span className="text-xs text-slate-500">
            {r.preset} · {r.baselines ?? 'no baselines'}
          </span>
          {r.baselinesMessage && (
            <span className="block text-xs text-amber-200" data-testid="agent-baselines-message">
              {r.baselinesMessage}
            </span>
          )}
        </span>
      ),
    },
    {
      key: 'replay',
      label: '',
      srLabel: 'Replay',
      value: () => null,
      render: (r) => (
        <Link
          href={`/studies/${encodeURIComponent(studyId)}/agents/${r.guid}`}
          className="text-sky-300 hover:underline"
        >
          Replay
        </Link>
      ),
    },
  ];
  return (
    <div className="flex flex-col gap-2" data-testid={gameId ? `agent-runs-${gameId}` : 'agent-runs'}>
      {title && <h3 className="text-sm font-semibold text-slate-300">{title}</h3>}
      {q.isError && (
        <p role="alert" className="text-sm text-rose-300">
          {(q.error as Error).message}
        </p>
      )}
      <SortableTable
        label={title ?? 'Agent runs'}
        columns={columns}
        rows={rows}
        rowKey={(r) => r.guid}
        empty={q.isPending ? 'Loading agent runs…' : 'No agent has played this study yet.'}
      />
    </div>
  );
}
