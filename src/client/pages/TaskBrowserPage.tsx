import { useEffect, useEffectEvent, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { collectionsQuery, taskIdsOf, taskOf, type CollectionInfo } from '../tasks/queries';
import { signedIn, useResearcher } from '../studio/auth';
import { GridCanvas } from '../grid/GridCanvas';
import {
  IMPORTED,
  filesFromDrop,
  importTaskTexts,
  importTaskUrl,
  importedListQuery,
  readTaskFiles,
  type ImportOutcome,
} from '../tasks/imported';
import { Button } from '../ui/Button';
import { taskHref } from './TaskPlayerPage';
import { isTyping } from '../player/actions';

/**
 * Collections, search by id, keyboard navigation, and import of task files. Practice collections
 * and imported tasks are open to everyone; a sealed collection lists its tasks only to the
 * researcher (docs/api.md, "Sealing").
 */
export function TaskBrowserPage() {
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const researcher = useResearcher(signedIn);
  const collectionsQ = useQuery(collectionsQuery);
  const importedQ = useQuery(importedListQuery);
  const collections = collectionsQ.data ?? [];
  // A visitor starts on a collection they can play; the researcher on the first one.
  const selected =
    search.get('c') ??
    (collections.find((c) => researcher || c.access === 'practice') ?? collections[0])?.id ??
    IMPORTED;
  const imported = selected === IMPORTED;
  const selectedInfo = collections.find((c) => c.id === selected);
  const closed = !researcher && selectedInfo?.access === 'sealed';
  const idsQ = useQuery({ ...taskIdsOf(selected), enabled: imported || (collectionsQ.isSuccess && !closed) });
  const [filter, setFilter] = useState('');
  const [cursor, setCursor] = useState(0);
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLDivElement>(null);

  const ids = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return (idsQ.data ?? []).filter((id) => id.toLowerCase().includes(f));
  }, [idsQ.data, filter]);
  const current = ids[Math.min(cursor, ids.length - 1)];

  const select = (c: string) => {
    setCursor(0);
    navigate(`/?c=${encodeURIComponent(c)}`, { replace: true });
  };

  // Registered in the commit that shows the list: a key pressed once it is on screen moves through
  // the tasks shown, not the list before it.
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === '/' && !isTyping(e)) {
        e.preventDefault();
        searchRef.current?.focus();
        return;
      }
      if (isTyping(e) && e.target !== searchRef.current) return;
      if (e.key === 'Escape' && e.target === searchRef.current) {
        e.preventDefault();
        searchRef.current?.blur();
        return;
      }
      const cols = Math.max(1, Math.floor((listRef.current?.clientWidth ?? 600) / 208));
      const move = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: cols, ArrowUp: -cols }[e.key];
      if (move !== undefined && !(isTyping(e) && (e.key === 'ArrowLeft' || e.key === 'ArrowRight'))) {
        e.preventDefault();
        setCursor((c) => Math.max(0, Math.min(ids.length - 1, c + move)));
      } else if (e.key === 'Enter' && current) {
        e.preventDefault();
        navigate(taskHref(selected, current));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ids, current, selected, navigate]);

  useEffect(() => {
    listRef.current?.querySelector('[data-current="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [cursor]);

  return (
    <div className="flex h-full min-h-0">
      <h1 className="sr-only">Task browser</h1>
      <aside className="flex w-64 shrink-0 flex-col gap-4 border-r border-slate-800 p-3">
        <div>
          <h2 className="mb-2 px-2 text-xs font-semibold uppercase tracking-wider text-slate-400">Collections</h2>
          {collectionsQ.isError && (
            <p role="alert" className="px-2 text-sm text-rose-300">
              {(collectionsQ.error as Error).message}
            </p>
          )}
          <ul className="flex flex-col gap-0.5" aria-label="Collections">
            {collections.map((c) => (
              <li key={c.id}>
                <button
                  type="button"
                  onClick={() => select(c.id)}
                  aria-current={selected === c.id}
                  className={`flex w-full items-center justify-between rounded-md px-2 py-1.5 text-left text-sm ${selected === c.id ? 'bg-slate-800 text-white' : 'text-slate-300 hover:bg-slate-900'}`}
                >
                  <span className="truncate">{c.name}</span>
                  <span className="flex items-center gap-1.5 text-xs tabular-nums text-slate-500">
                    {c.access === 'sealed' && (
                      <span
                        className="rounded bg-slate-800 px-1 text-[10px] uppercase tracking-wide text-amber-300"
                        title="Sealed: tasks and answers for the researcher only; studies use these"
                      >
                        sealed
                      </span>
                    )}
                    {c.count}
                  </span>
                </button>
              </li>
            ))}
            <li>
              <button
                type="button"
                onClick={() => select(IMPORTED)}
                aria-current={imported}
                className={`flex w-full items-center justify-between rounded-md px-2 py-1.5 text-left text-sm ${imported ? 'bg-slate-800 text-white' : 'text-slate-300 hover:bg-slate-900'}`}
              >
                <span>Imported in this browser</span>
                <span className="text-xs tabular-nums text-slate-500">{importedQ.data?.length ?? 0}</span>
              </button>
            </li>
          </ul>
        </div>
        <ImportPanel onImported={() => select(IMPORTED)} />
      </aside>

      <section className="flex min-w-0 flex-1 flex-col">
        <div className="flex h-12 shrink-0 items-center gap-3 border-b border-slate-800 px-4">
          <input
            ref={searchRef}
            type="search"
            value={filter}
            placeholder="Search by task id   ( / )"
            aria-label="Search tasks by id"
            onChange={(e) => {
              setFilter(e.target.value);
              setCursor(0);
            }}
            className="h-8 w-72 rounded-md border border-slate-700 bg-slate-950 px-3 text-sm focus:outline-none focus:ring-2 focus:ring-sky-500"
          />
          <span className="whitespace-nowrap text-xs text-slate-500" data-testid="task-count">
            {closed ? `${selectedInfo?.count ?? 0} sealed` : `${ids.length} task${ids.length === 1 ? '' : 's'}`}
          </span>
          <span
            className="ml-auto truncate text-xs text-slate-500"
            title="/ searches · Esc leaves the search · arrow keys move · Enter opens · [ and ] step through tasks in the player"
          >
            / search · arrows move · Enter opens · [ ] step in the player
          </span>
        </div>
        <div className="flex min-h-0 flex-1">
          <div ref={listRef} className="min-h-0 flex-1 overflow-y-auto p-4">
            {closed && selectedInfo && <SealedNotice collection={selectedInfo} />}
            {idsQ.isError && (
              <p role="alert" className="text-rose-300">
                {(idsQ.error as Error).message}
              </p>
            )}
            {idsQ.isSuccess && ids.length === 0 && (
              <p className="text-slate-400">
                {imported && !filter
                  ? 'No tasks imported yet. Use Import on the left, or drop task files or a folder anywhere on this page.'
                  : 'No task id matches this search.'}
              </p>
            )}
            <ul className="grid grid-cols-[repeat(auto-fill,minmax(200px,1fr))] gap-2" aria-label="Tasks">
              {ids.map((id, i) => (
                <li key={id}>
                  <a
                    href={taskHref(selected, id)}
                    data-current={i === cursor}
                    onClick={(e) => {
                      e.preventDefault();
                      navigate(taskHref(selected, id));
                    }}
                    onMouseEnter={() => setCursor(i)}
                    className={`block truncate rounded-md border px-3 py-2 font-mono text-sm ${i === cursor ? 'border-sky-400 bg-sky-500/10 text-white' : 'border-slate-800 bg-slate-900/60 text-slate-300 hover:border-slate-600'}`}
                  >
                    {id.includes('/') && (
                      <span className="text-xs text-slate-500">{id.slice(0, id.lastIndexOf('/') + 1)}</span>
                    )}
                    {id.slice(id.lastIndexOf('/') + 1)}
                  </a>
                </li>
              ))}
            </ul>
          </div>
          <aside className="hidden w-[380px] shrink-0 border-l border-slate-800 p-4 lg:block">
            {current ? <TaskPreview collection={selected} taskId={current} /> : null}
          </aside>
        </div>
      </section>
    </div>
  );
}

function TaskPreview({ collection, taskId }: { collection: string; taskId: string }) {
  const q = useQuery(taskOf(collection, taskId));
  const [, navigate] = useLocation();
  if (q.isError)
    return (
      <p role="alert" className="text-sm text-rose-300">
        {(q.error as Error).message}
      </p>
    );
  if (!q.data) return <p className="text-sm text-slate-500">Loading {taskId}…</p>;
  const t = q.data.task;
  const pair = t.train[0];
  const cell = (g: readonly (readonly number[])[]) =>
    Math.max(3, Math.min(16, Math.floor(160 / Math.max(g.length, g[0].length))));
  return (
    <div className="flex flex-col gap-3">
      <h3 className="font-mono text-lg text-white">{taskId}</h3>
      <p className="text-xs text-slate-400">
        {t.train.length} demonstration{t.train.length === 1 ? '' : 's'} · {t.test.length} test input
        {t.test.length === 1 ? '' : 's'} ·{' '}
        {q.data.answers === 'server'
          ? 'answers checked on the server'
          : collection === IMPORTED
            ? 'answers checked in this browser'
            : 'researcher preview, answers included'}
      </p>
      <div className="flex items-center gap-2">
        <GridCanvas grid={pair.input} cell={cell(pair.input)} label="First example input" />
        <span className="text-slate-500">→</span>
        <GridCanvas grid={pair.output} cell={cell(pair.output)} label="First example output" />
      </div>
      <Button tone="primary" className="self-start" onClick={() => navigate(taskHref(collection, taskId))} kbd="Enter">
        Open task
      </Button>
    </div>
  );
}

function SealedNotice({ collection }: { collection: CollectionInfo }) {
  return (
    <div
      role="note"
      data-testid="sealed-notice"
      className="max-w-xl rounded-lg border border-amber-500/40 bg-amber-950/30 p-4 text-sm text-amber-100"
    >
      <p className="font-semibold">{collection.name} is sealed</p>
      <p className="mt-1 text-amber-100/80">
        Its {collection.count} task{collection.count === 1 ? '' : 's'} are for studies: participants meet them in a
        study and the server judges their answers, so neither the tasks nor their answers are shown here. Log in as
        researcher to preview them, or play a practice collection.
      </p>
      <Link href="/login" className="mt-3 inline-block text-sky-300 underline">
        Log in as researcher to preview
      </Link>
    </div>
  );
}

function ImportPanel({ onImported }: { onImported: () => void }) {
  const qc = useQueryClient();
  const [result, setResult] = useState<(ImportOutcome & { skipped?: { file: string; reason: string }[] }) | null>(null);
  const [busy, setBusy] = useState(false);
  const [url, setUrl] = useState('');
  const [dragging, setDragging] = useState(false);
  const filesRef = useRef<HTMLInputElement>(null);
  const folderRef = useRef<HTMLInputElement>(null);

  const finish = async (r: ImportOutcome, skipped: { file: string; reason: string }[] = []) => {
    setResult({ ...r, rejected: [...skipped, ...r.rejected] });
    await qc.invalidateQueries({ queryKey: ['imported'] });
    if (r.added.length + r.replaced.length > 0) onImported();
  };
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (e) {
      setResult({ added: [], replaced: [], rejected: [{ file: 'import', reason: (e as Error).message }] });
    } finally {
      setBusy(false);
    }
  };
  const fromFiles = (files: File[], relative?: (f: File) => string) =>
    run(async () => {
      const { texts, skipped } = await readTaskFiles(files, relative);
      await finish(await importTaskTexts(texts), skipped);
    });

  // An effect event: the drop listener below always uses this render's `run` and `finish`.
  const importDropped = useEffectEvent((pending: Promise<{ file: File; path: string }[]>) => {
    void run(async () => {
      const found = await pending;
      const paths = new Map(found.map((f) => [f.file, f.path]));
      const { texts, skipped } = await readTaskFiles(
        found.map((f) => f.file),
        (f) => paths.get(f) ?? f.name,
      );
      await finish(await importTaskTexts(texts), skipped);
    });
  });

  useEffect(() => {
    // The whole page is a drop target: files and folders alike.
    const over = (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) {
        e.preventDefault();
        setDragging(true);
      }
    };
    const leave = (e: DragEvent) => {
      if (!e.relatedTarget) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      setDragging(false);
      const items = e.dataTransfer.items;
      const pending = items
        ? filesFromDrop(items)
        : Promise.resolve([...(e.dataTransfer.files ?? [])].map((file) => ({ file, path: file.name })));
      importDropped(pending);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, []);

  return (
    <div className="flex flex-col gap-2">
      <h2 className="px-2 text-xs font-semibold uppercase tracking-wider text-slate-400">Import</h2>
      <div className="flex gap-1.5 px-2">
        <Button onClick={() => filesRef.current?.click()} disabled={busy}>
          Files…
        </Button>
        <Button onClick={() => folderRef.current?.click()} disabled={busy}>
          Folder…
        </Button>
      </div>
      <input
        ref={filesRef}
        type="file"
        accept=".json,application/json"
        multiple
        hidden
        data-testid="import-files"
        onChange={(e) => {
          const f = [...(e.target.files ?? [])];
          e.target.value = '';
          void fromFiles(f);
        }}
      />
      <input
        ref={folderRef}
        type="file"
        multiple
        hidden
        data-testid="import-folder"
        {...({ webkitdirectory: '', directory: '' } as Record<string, string>)}
        onChange={(e) => {
          const f = [...(e.target.files ?? [])];
          e.target.value = '';
          void fromFiles(f);
        }}
      />
      <form
        className="flex gap-1.5 px-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (url.trim()) void run(async () => finish(await importTaskUrl(url)));
        }}
      >
        <input
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="URL of a task .json"
          aria-label="Task URL"
          className="h-8 min-w-0 flex-1 rounded-md border border-slate-700 bg-slate-950 px-2 text-sm focus:outline-none focus:ring-2 focus:ring-sky-500"
        />
        <Button type="submit" disabled={busy || !url.trim()}>
          Fetch
        </Button>
      </form>
      <p className="px-2 text-xs text-slate-500">Or drop task files or folders anywhere on this page.</p>
      {busy && <p className="px-2 text-xs text-slate-400">Importing…</p>}
      {result && <ImportResult result={result} />}
      {dragging && (
        <div className="pointer-events-none fixed inset-0 z-50 flex items-center justify-center bg-sky-500/10 ring-4 ring-inset ring-sky-400">
          <p className="rounded-lg bg-slate-900 px-6 py-4 text-lg text-white shadow-xl">
            Drop ARC task files or folders to import them
          </p>
        </div>
      )}
    </div>
  );
}

function ImportResult({ result }: { result: ImportOutcome }) {
  const ok = result.added.length + result.replaced.length;
  return (
    <div
      role="status"
      className="mx-2 max-h-64 overflow-y-auto rounded-md border border-slate-700 bg-slate-900 p-2 text-xs"
      data-testid="import-result"
    >
      <p className={ok ? 'text-emerald-300' : 'text-slate-300'}>
        {ok} imported{result.replaced.length ? ` (${result.replaced.length} replaced)` : ''}, {result.rejected.length}{' '}
        rejected
      </p>
      {result.rejected.length > 0 && (
        <ul className="mt-1 flex flex-col gap-1 text-rose-200">
          {result.rejected.map((r, i) => (
            <li key={i}>
              <span className="font-mono">{r.file}</span>: {r.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
