/**
 * Choosing a study's game, as the task picker chooses a task: every game this server has (the
 * built-in ones, and the ARC-AGI-3 games it runs from arcengine folders or a remote server), each
 * with the frame it opens on, its levels, its source and tags, searchable by id, title or tag and
 * narrowed by source; the chosen game's details beside the list.
 */
import { useMemo, useState } from 'react';
import type { ServerGameInfo } from '../../core/game/serverGame';
import { games } from '../../games';
import { Arc3Thumbnail, GameThumbnail } from '../game/Thumbnails';
import { useArc3Games } from './Arc3Playtest';
import { PickerDialog } from './PickerDialog';

export type GameSource = 'built-in' | 'arcengine' | 'remote';

export const SOURCE_LABELS: Record<GameSource, string> = {
  'built-in': 'Built-in',
  arcengine: 'arcengine folder',
  remote: 'Remote server',
};

/** A game as the picker lists it, whichever engine runs it. */
export interface GameEntry {
  readonly id: string;
  readonly title: string;
  readonly levels: number | null;
  readonly source: GameSource;
  readonly tags: readonly string[];
  readonly summary?: string;
  /** Why an ARC-AGI-3 game cannot start; such a game cannot be chosen. */
  readonly error?: string;
  readonly engine?: string;
}

/** The built-in games, then the server's ARC-AGI-3 games, as one list. */
export function gameEntries(arc3: readonly ServerGameInfo[]): GameEntry[] {
  return [
    ...Object.values(games).map((g): GameEntry => ({
      id: g.id,
      title: g.title,
      levels: g.levels.length,
      source: 'built-in',
      tags: [],
      summary: g.summary,
    })),
    ...arc3.map((g): GameEntry => ({
      id: g.id,
      title: g.title,
      levels: g.levels,
      source: g.source,
      tags: g.tags,
      error: g.error,
      engine: g.engine,
    })),
  ];
}

/** Whether the game's id, title or one of its tags contains every word of `search`. */
export function matchesGame(g: GameEntry, search: string): boolean {
  const text = `${g.id} ${g.title} ${g.tags.join(' ')}`.toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => text.includes(w));
}

function Thumb({ entry, scale }: { entry: GameEntry; scale: number }) {
  if (entry.source === 'built-in') return <GameThumbnail game={games[entry.id]} scale={scale} />;
  if (entry.error) return <span className="flex h-16 items-center text-[11px] text-rose-300">cannot start</span>;
  return <Arc3Thumbnail id={entry.id} scale={scale} />;
}

/** The picker as a modal dialog; `onChoose` gets the game's id. */
export function GamePicker({
  initial,
  onChoose,
  onClose,
}: {
  initial: string;
  onChoose: (id: string) => void;
  onClose: () => void;
}) {
  const arc3 = useArc3Games();
  const [search, setSearch] = useState('');
  const [source, setSource] = useState<GameSource | ''>('');
  const [current, setCurrent] = useState(initial);
  const all = useMemo(() => gameEntries(arc3.data?.games ?? []), [arc3.data]);
  const matches = all.filter((g) => (source === '' || g.source === source) && matchesGame(g, search));
  const chosen = all.find((g) => g.id === current) ?? null;
  const sources = (Object.keys(SOURCE_LABELS) as GameSource[]).filter((s) => all.some((g) => g.source === s));
  return (
    <PickerDialog
      name="game"
      title="Choose a game"
      search={search}
      onSearch={setSearch}
      searchLabel="Search games by id, title or tag"
      placeholder="Search by id, title or tag"
      count={`${matches.length} of ${all.length} games${arc3.isPending ? ' (looking for ARC-AGI-3 games…)' : ''}`}
      toolbar={
        <select
          aria-label="Source"
          value={source}
          onChange={(e) => setSource(e.target.value as GameSource | '')}
          className="h-8 rounded-md border border-slate-700 bg-slate-900 px-2 text-sm"
        >
          <option value="">All sources</option>
          {sources.map((s) => (
            <option key={s} value={s}>
              {SOURCE_LABELS[s]}
            </option>
          ))}
        </select>
      }
      confirmLabel="Use this game"
      canConfirm={!!chosen && !chosen.error}
      onConfirm={() => onChoose(current)}
      onClose={onClose}
    >
      <div className="min-h-0 flex-1 overflow-y-auto p-3">
        {arc3.isError && (
          <p role="alert" className="mb-2 text-sm text-amber-300">
            The server's ARC-AGI-3 games cannot be listed: {(arc3.error as Error).message} The built-in games are below.
          </p>
        )}
        {arc3.data && !arc3.data.engine.ok && <p className="mb-2 text-sm text-slate-300">{arc3.data.engine.message}</p>}
        {matches.length === 0 && (
          <p className="text-sm text-slate-300">
            No game matches “{search}”{source ? ` among ${SOURCE_LABELS[source]} games` : ''}.
          </p>
        )}
        <ul className="grid grid-cols-[repeat(auto-fill,minmax(190px,1fr))] gap-2" aria-label="Games">
          {matches.map((g) => (
            <li key={g.id}>
              <button
                type="button"
                onClick={() => setCurrent(g.id)}
                aria-pressed={g.id === current}
                className={`flex w-full flex-col gap-1.5 rounded-md border p-2 text-left ${g.id === current ? 'border-sky-400 bg-sky-500/10' : 'border-slate-800 bg-slate-900/60 hover:border-slate-600'}`}
              >
                <Thumb entry={g} scale={2} />
                <span className="text-sm font-semibold text-white">{g.title}</span>
                <span className="truncate font-mono text-xs text-slate-300">{g.id}</span>
                <span className="text-xs text-slate-300">
                  {g.levels ?? '?'} level{g.levels === 1 ? '' : 's'} · {SOURCE_LABELS[g.source]}
                </span>
                {g.tags.length > 0 && (
                  <span className="flex flex-wrap gap-1">
                    {g.tags.map((t) => (
                      <span key={t} className="rounded bg-slate-800 px-1.5 text-[11px] text-slate-200">
                        {t}
                      </span>
                    ))}
                  </span>
                )}
              </button>
            </li>
          ))}
        </ul>
      </div>
      <aside
        tabIndex={0}
        className="max-h-[45%] min-h-0 overflow-y-auto border-t border-slate-800 p-3 md:max-h-none md:w-[340px] md:border-l md:border-t-0"
        aria-label="Chosen game"
      >
        {chosen ? (
          <GameDetail entry={chosen} />
        ) : (
          <p className="text-sm text-slate-300">
            {current
              ? `"${current}" is not on this server: choose another game on the left.`
              : 'Choose a game on the left.'}
          </p>
        )}
      </aside>
    </PickerDialog>
  );
}

function GameDetail({ entry }: { entry: GameEntry }) {
  return (
    <div className="flex flex-col gap-3" data-testid="game-picker-chosen" data-game={entry.id}>
      <h3 className="text-sm font-semibold text-white">
        {entry.title} <span className="font-mono text-xs text-slate-300">{entry.id}</span>
      </h3>
      <Thumb entry={entry} scale={3} />
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-400">Levels</dt>
        <dd className="text-slate-100">{entry.levels ?? 'known once played'}</dd>
        <dt className="text-slate-400">Source</dt>
        <dd className="text-slate-100">
          {SOURCE_LABELS[entry.source]}
          {entry.engine ? ` (${entry.engine})` : ''}
        </dd>
        {entry.tags.length > 0 && (
          <>
            <dt className="text-slate-400">Tags</dt>
            <dd className="text-slate-100">{entry.tags.join(', ')}</dd>
          </>
        )}
      </dl>
      {entry.summary && <p className="text-sm text-slate-300">{entry.summary}</p>}
      {entry.error && (
        <p role="alert" className="text-sm text-rose-300">
          This game cannot start, so a study cannot use it: {entry.error}
        </p>
      )}
    </div>
  );
}
