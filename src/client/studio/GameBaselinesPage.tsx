/**
 * A server-run game's human figures per level: the lab's own participants (every study playing the
 * game, `GET /api/admin/games/:id/baselines`) beside the reference groups imported for it (human
 * runs recorded elsewhere, `GET /api/admin/games/:id/references`), with completion, actions and
 * time; and the form that imports a reference group from the toolkit's `.recording.jsonl` files.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import type { Dist } from '../../core/analysis/dist';
import type { GameBaselinesView, ReferenceGroupView, ReferenceGroupsView } from '../../core/protocol/api';
import { ApiError } from '../api';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { adminForm, adminJson } from './auth';
import { RequireResearcher } from './RequireResearcher';
import { figure, seconds } from './ReferenceBeside';

/** One source's figures for one level: a study item's participants or a reference group. */
interface Row {
  readonly kind: 'participants' | 'reference';
  readonly source: string;
  /** The study of a participants' row. */
  readonly study?: string;
  readonly note: string;
  readonly reached: number;
  readonly completed: number;
  readonly actions: Dist;
  readonly timeMs: Dist;
  readonly baseline: number | null;
}

function rowsByLevel(baselines: GameBaselinesView | undefined, refs: ReferenceGroupsView | undefined): Row[][] {
  const out: Row[][] = [];
  const add = (level: number, row: Row) => (out[level - 1] ??= []).push(row);
  for (const s of baselines?.studies ?? [])
    for (const l of s.levels)
      add(l.level, {
        kind: 'participants',
        source: s.title,
        study: s.study,
        note: `${s.study}, ${s.participants} participant${s.participants === 1 ? '' : 's'}${s.current ? '' : `, recorded on ${s.version ?? 'an unnamed version'}`}`,
        reached: l.reached,
        completed: l.completed,
        actions: l.actions,
        timeMs: l.timeMs,
        baseline: l.baselines['upper-median'].value,
      });
  for (const g of refs?.groups ?? [])
    for (const l of g.levels)
      add(l.level, {
        kind: 'reference',
        source: g.name,
        note: `reference, ${g.recordings} recording${g.recordings === 1 ? '' : 's'}${g.current ? '' : `, checked on ${g.version}, not the version running now`}`,
        reached: l.reached,
        completed: l.completed,
        actions: l.actions,
        timeMs: l.timeMs,
        baseline: l.baselines['upper-median'].value,
      });
  return out.map((rows) => rows ?? []);
}

/** The route's page. */
export function GameBaselinesPage() {
  const { id } = useParams<{ id: string }>();
  return (
    <RequireResearcher>
      <Figures gameId={id} />
    </RequireResearcher>
  );
}

function Figures({ gameId }: { gameId: string }) {
  const url = `/api/admin/games/${encodeURIComponent(gameId)}`;
  const baselines = useQuery({
    queryKey: ['admin', 'game-baselines', gameId],
    queryFn: () => adminJson<GameBaselinesView>(`${url}/baselines`),
  });
  const refs = useQuery({
    queryKey: ['admin', 'game-references', gameId],
    queryFn: () => adminJson<ReferenceGroupsView>(`${url}/references`),
  });
  const levels = rowsByLevel(baselines.data, refs.data);
  const problem = baselines.error ?? refs.error;
  return (
    <div className="mx-auto max-w-5xl p-6">
      <p className="text-sm">
        <Link href="/games" className="text-violet-300 hover:underline">
          ← Games
        </Link>
      </p>
      <h1 className="mt-2 text-xl font-semibold text-white">
        Human figures of <span className="font-mono">{gameId}</span>
      </h1>
      <p className="mt-1 text-sm text-slate-400">
        Per level, the first runs of the lab&apos;s participants (each study playing the game) beside the reference
        groups imported for it: who reached the level, who completed it, and the completers&apos; actions and time
        (median). Baseline: the upper median of the completers&apos; actions (the official toolkit&apos;s).
      </p>
      {problem && (
        <p role="alert" className="mt-3 text-sm text-rose-300">
          The figures could not be read: {problem.message}
        </p>
      )}
      <ImportForm gameId={gameId} />
      <GroupList groups={refs.data?.groups ?? []} gameId={gameId} />
      {levels.length === 0 && baselines.data && refs.data && (
        <p className="mt-6 text-sm text-slate-400" data-testid="no-figures">
          No figures yet: no study has a participant of this game, and no reference group was imported.
        </p>
      )}
      {levels.map((rows, k) => (
        <section key={k} className="mt-6" aria-label={`Level ${k + 1}`} data-testid="level-figures" data-level={k + 1}>
          <h2 className="mb-1 text-sm font-semibold text-slate-200">Level {k + 1}</h2>
          <table className="w-full text-left text-sm text-slate-300">
            <thead className="text-xs text-slate-500">
              <tr>
                <th className="py-1 font-normal">Source</th>
                <th className="font-normal">Reached</th>
                <th className="font-normal">Completed</th>
                <th className="font-normal">Actions (median)</th>
                <th className="font-normal">Time (median)</th>
                <th className="font-normal">Baseline</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr
                  key={`${r.kind}\u0000${r.source}\u0000${r.note}`}
                  className="border-t border-slate-800"
                  data-testid="figure-row"
                  data-kind={r.kind}
                  data-source={r.source}
                  data-study={r.study}
                >
                  <td className="py-1">
                    <span className="text-white">{r.source}</span>{' '}
                    <span className="text-xs text-slate-500">({r.note})</span>
                  </td>
                  <td className="tabular-nums">{r.reached}</td>
                  <td className="tabular-nums" data-field="completed">
                    {r.completed}
                    {r.reached ? ` (${Math.round((100 * r.completed) / r.reached)}%)` : ''}
                  </td>
                  <td className="tabular-nums" data-field="actions">
                    {figure(r.actions.median)}
                  </td>
                  <td className="tabular-nums">{seconds(r.timeMs.median)}</td>
                  <td className="tabular-nums" data-field="baseline">
                    {figure(r.baseline)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </div>
  );
}

interface Refusal {
  readonly message: string;
  readonly problems: readonly { file: string; line: number; message: string }[];
}

function ImportForm({ gameId }: { gameId: string }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const upload = useMutation({
    mutationFn: () => {
      const form = new FormData();
      form.set('group', name.trim());
      for (const f of files) form.append('files', f, f.name);
      return adminForm<ReferenceGroupView>(`/api/admin/games/${encodeURIComponent(gameId)}/references`, form);
    },
    onMutate: () => setRefusal(null),
    onSuccess: () => {
      setName('');
      setFiles([]);
      void client.invalidateQueries({ queryKey: ['admin', 'game-references', gameId] });
    },
    onError: (e: Error) =>
      setRefusal({
        message: e.message,
        problems:
          e instanceof ApiError && Array.isArray(e.details?.problems)
            ? (e.details.problems as Refusal['problems'])
            : [],
      }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim() && files.length) upload.mutate();
  };
  return (
    <form onSubmit={submit} className="mt-4 rounded-xl border border-slate-800 bg-slate-900/60 p-4 text-sm">
      <h2 className="font-semibold text-white">Import a reference group</h2>
      <p className="mt-1 text-xs text-slate-400">
        The official toolkit&apos;s <span className="font-mono">.recording.jsonl</span> files, one run each, of this
        game&apos;s version. Every line is checked and every run is played again on the game the server runs; a bad line
        or another version refuses the whole import.
      </p>
      <div className="mt-3 flex flex-wrap items-end gap-3">
        <label className="flex flex-col gap-1 text-xs text-slate-400">
          Group name
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={80}
            className="rounded-md border border-slate-700 bg-slate-950 px-2 py-1 text-sm text-white"
          />
        </label>
        <label className="flex flex-col gap-1 text-xs text-slate-400">
          Recordings
          <input
            type="file"
            multiple
            accept=".jsonl,application/jsonl,text/plain"
            onChange={(e) => setFiles([...(e.target.files ?? [])])}
            className="text-sm text-slate-300"
          />
        </label>
        <Button type="submit" disabled={!name.trim() || !files.length || upload.isPending}>
          {upload.isPending ? 'Checking…' : 'Import'}
        </Button>
      </div>
      {upload.isSuccess && (
        <p className="mt-2 text-xs text-emerald-300" role="status">
          Imported &quot;{upload.data.name}&quot;: {upload.data.recordings} recordings.
        </p>
      )}
      {refusal && (
        <div role="alert" className="mt-2 text-xs text-rose-300" data-testid="import-refused">
          <p>{refusal.message}</p>
          {refusal.problems.length > 0 && (
            <ul className="mt-1 list-disc pl-5">
              {refusal.problems.map((p) => (
                <li key={`${p.file}:${p.line}:${p.message}`}>
                  {p.file}
                  {p.line ? ` line ${p.line}` : ''}: {p.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}

function GroupList({ groups, gameId }: { groups: readonly ReferenceGroupView[]; gameId: string }) {
  const client = useQueryClient();
  const [deleting, setDeleting] = useState<string | null>(null);
  if (!groups.length) return null;
  const remove = async (name: string) => {
    await adminJson(`/api/admin/games/${encodeURIComponent(gameId)}/references/${encodeURIComponent(name)}`, {
      method: 'DELETE',
    });
    await client.invalidateQueries({ queryKey: ['admin', 'game-references', gameId] });
  };
  return (
    <>
      <ul className="mt-3 flex flex-col gap-1 text-xs text-slate-400" aria-label="Reference groups">
        {groups.map((g) => (
          <li key={g.name} className="flex items-center gap-2" data-testid="reference-group" data-group={g.name}>
            <span className="text-slate-200">{g.name}</span>: {g.recordings} recordings, imported by {g.createdBy},
            checked on <span className="font-mono">{g.version}</span>
            <Button tone="ghost" onClick={() => setDeleting(g.name)}>
              Delete
            </Button>
          </li>
        ))}
      </ul>
      {deleting !== null && (
        <ConfirmDialog
          title={`Delete the reference group "${deleting}"?`}
          confirmLabel="Delete group"
          tone="danger"
          onConfirm={() => remove(deleting)}
          onClose={() => setDeleting(null)}
        >
          Its recordings leave this game&apos;s figures, and scorecards tagged reference:{deleting} find no baselines.
          Importing the files again brings it back.
        </ConfirmDialog>
      )}
    </>
  );
}
