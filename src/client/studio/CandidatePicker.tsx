/**
 * Choosing a pool's candidates, many at once: tasks of a collection, games (built-in and
 * ARC-AGI-3), or questions of a collection. A search narrows the list, "Select all" takes every
 * result, and the selection is kept across sources and pages, so a pool of hundreds is a few
 * clicks. Candidates already in the pool are shown ticked and cannot be added twice.
 */
import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { games } from '../../games';
import { Button } from '../ui/Button';
import { collectionsQuery, taskIdsQuery } from '../tasks/queries';
import { useArc3Games } from './Arc3Playtest';
import { PickerDialog } from './PickerDialog';
import { questionCollectionsQuery, questionsQuery } from './queries';
import { TaskThumb } from './TaskPicker';
import { sourceKey, type CandidateSource } from './pool';

interface Row {
  readonly key: string;
  readonly label: string;
  readonly detail: string;
  readonly source: CandidateSource;
}

/** Rows of a page of the list; a search narrows the rest. */
const PAGE = 120;

type Origin = { kind: 'tasks' | 'questions'; collection: string } | { kind: 'games' };
const originValue = (o: Origin) => (o.kind === 'games' ? 'games' : `${o.kind}:${o.collection}`);

function parseOrigin(v: string): Origin {
  if (v === 'games') return { kind: 'games' };
  const [kind, ...rest] = v.split(':');
  return { kind: kind === 'questions' ? 'questions' : 'tasks', collection: rest.join(':') };
}

export function CandidatePicker({
  taken,
  onAdd,
  onClose,
}: {
  taken: ReadonlySet<string>;
  onAdd: (sources: CandidateSource[]) => void;
  onClose: () => void;
}) {
  const collections = useQuery(collectionsQuery);
  const questionCollections = useQuery(questionCollectionsQuery);
  const [origin, setOrigin] = useState<Origin>({ kind: 'tasks', collection: 'samples' });
  const [filter, setFilter] = useState('');
  const [page, setPage] = useState(0);
  const [chosen, setChosen] = useState<ReadonlyMap<string, CandidateSource>>(new Map());
  const rows = useOriginRows(origin);

  const matches = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return (rows.data ?? []).filter(
      (r) => !f || r.label.toLowerCase().includes(f) || r.detail.toLowerCase().includes(f),
    );
  }, [rows.data, filter]);
  const open = matches.filter((r) => !taken.has(r.key));
  const pages = Math.max(1, Math.ceil(matches.length / PAGE));
  const shown = matches.slice(page * PAGE, (page + 1) * PAGE);
  const allChosen = open.length > 0 && open.every((r) => chosen.has(r.key));

  const toggle = (r: Row) =>
    setChosen((m) => {
      const next = new Map(m);
      if (next.has(r.key)) next.delete(r.key);
      else next.set(r.key, r.source);
      return next;
    });
  const chooseAll = (on: boolean) =>
    setChosen((m) => {
      const next = new Map(m);
      for (const r of open) {
        if (on) next.set(r.key, r.source);
        else next.delete(r.key);
      }
      return next;
    });

  const toolbar = (
    <>
      <label className="flex items-center gap-2 text-xs text-slate-300">
        From
        <select
          aria-label="Candidates from"
          value={originValue(origin)}
          onChange={(e) => {
            setOrigin(parseOrigin(e.target.value));
            setPage(0);
          }}
          className="h-8 rounded-md border border-slate-700 bg-slate-900 px-2 text-sm"
        >
          <optgroup label="Grid tasks">
            {(collections.data ?? [{ id: 'samples', name: 'samples' }]).map((c) => (
              <option key={c.id} value={`tasks:${c.id}`}>
                Tasks: {c.name}
              </option>
            ))}
          </optgroup>
          <optgroup label="Games">
            <option value="games">Games (built-in and ARC-AGI-3)</option>
          </optgroup>
          {(questionCollections.data?.length ?? 0) > 0 && (
            <optgroup label="Questions">
              {questionCollections.data!.map((c) => (
                <option key={c.id} value={`questions:${c.id}`}>
                  Questions: {c.name} ({c.count})
                </option>
              ))}
            </optgroup>
          )}
        </select>
      </label>
      <Button onClick={() => chooseAll(!allChosen)} disabled={open.length === 0}>
        {allChosen
          ? `Unselect these ${open.length}`
          : `Select all ${open.length} ${filter.trim() ? `result${open.length === 1 ? '' : 's'}` : 'listed'}`}
      </Button>
    </>
  );

  return (
    <PickerDialog
      name="candidate"
      title="Add candidates to the pool"
      toolbar={toolbar}
      search={filter}
      onSearch={(t) => {
        setFilter(t);
        setPage(0);
      }}
      searchLabel="Search candidates"
      placeholder="Search by id or title"
      count={
        rows.data
          ? `${matches.length} of ${rows.data.length} · ${chosen.size} selected`
          : rows.isError
            ? ''
            : 'Loading…'
      }
      confirmLabel={
        chosen.size === 0 ? 'Add candidates' : `Add ${chosen.size} candidate${chosen.size === 1 ? '' : 's'}`
      }
      canConfirm={chosen.size > 0}
      onConfirm={() => onAdd([...chosen.values()])}
      onClose={onClose}
    >
      <div className="flex min-h-0 flex-1 flex-col">
        <div className="min-h-0 flex-1 overflow-y-auto p-3">
          {rows.isError && (
            <p role="alert" className="text-sm text-rose-300">
              These candidates cannot be listed: {(rows.error as Error).message} Choose another source, or check that
              the server mounts it.
            </p>
          )}
          {rows.isSuccess && matches.length === 0 && (
            <p className="text-sm text-slate-300">
              {filter.trim() ? `Nothing here matches “${filter}”.` : 'This source is empty.'}
            </p>
          )}
          <ul className="grid grid-cols-[repeat(auto-fill,minmax(170px,1fr))] gap-2" aria-label="Candidates">
            {shown.map((r) => {
              const inPool = taken.has(r.key);
              const on = inPool || chosen.has(r.key);
              return (
                <li key={r.key}>
                  <label
                    className={`flex h-full cursor-pointer flex-col gap-1 rounded-md border p-2 text-left ${on ? 'border-sky-400 bg-sky-500/10' : 'border-slate-800 bg-slate-900/60 hover:border-slate-600'} ${inPool ? 'cursor-default opacity-60' : ''}`}
                  >
                    {r.source.kind === 'task' && <TaskThumb collection={r.source.collection} taskId={r.source.task} />}
                    <span className="flex items-start gap-2">
                      <input
                        type="checkbox"
                        className="mt-0.5 accent-sky-500"
                        checked={on}
                        disabled={inPool}
                        onChange={() => toggle(r)}
                        aria-label={r.label}
                      />
                      <span className="min-w-0">
                        <span className="block truncate font-mono text-xs text-slate-100">{r.label}</span>
                        <span className="block truncate text-[11px] text-slate-300">
                          {inPool ? 'already in the pool' : r.detail}
                        </span>
                      </span>
                    </span>
                  </label>
                </li>
              );
            })}
          </ul>
        </div>
        {pages > 1 && (
          <nav
            className="flex items-center justify-end gap-2 border-t border-slate-800 p-2 text-xs text-slate-300"
            aria-label="Candidate pages"
          >
            <Button disabled={page === 0} onClick={() => setPage(page - 1)}>
              Previous
            </Button>
            <span>
              Page {page + 1} of {pages}
            </span>
            <Button disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>
              Next
            </Button>
          </nav>
        )}
      </div>
    </PickerDialog>
  );
}

/** The rows of one source, in a query's shape. */
function useOriginRows(origin: Origin): { data?: Row[]; isSuccess: boolean; isError: boolean; error: unknown } {
  const tasks = useQuery({
    ...taskIdsQuery(origin.kind === 'tasks' ? origin.collection : ''),
    enabled: origin.kind === 'tasks',
  });
  const questions = useQuery({
    ...questionsQuery(origin.kind === 'questions' ? origin.collection : ''),
    enabled: origin.kind === 'questions',
  });
  const arc3 = useArc3Games();
  return useMemo(() => {
    if (origin.kind === 'tasks') {
      const collection = origin.collection;
      return {
        ...tasks,
        data: tasks.data?.map((task): Row => ({
          key: sourceKey({ kind: 'task', collection, task }),
          label: task,
          detail: `task · ${collection}`,
          source: { kind: 'task', collection, task },
        })),
      };
    }
    if (origin.kind === 'questions') {
      const collection = origin.collection;
      return {
        ...questions,
        data: questions.data?.map((q): Row => ({
          key: sourceKey({ kind: 'question', collection, question: q.id }),
          label: q.id,
          detail: q.prompt.replace(/\s+/g, ' ').slice(0, 80),
          source: { kind: 'question', collection, question: q.id },
        })),
      };
    }
    const builtIn = Object.values(games).map((g): Row => ({
      key: sourceKey({ kind: 'game', game: g.id }),
      label: g.id,
      detail: `${g.title} · ${g.levels.length} levels`,
      source: { kind: 'game', game: g.id },
    }));
    const served = (arc3.data?.games ?? [])
      .filter((g) => !g.error)
      .map((g): Row => ({
        key: sourceKey({ kind: 'game', game: g.id }),
        label: g.id,
        detail: `${g.title} · ${g.levels ?? '?'} levels · ${g.source}`,
        source: { kind: 'game', game: g.id },
      }));
    return { data: [...builtIn, ...served], isSuccess: true, isError: false, error: null };
  }, [origin, tasks, questions, arc3.data]);
}
