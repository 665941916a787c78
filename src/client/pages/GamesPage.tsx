import { Link } from 'wouter';
import { games } from '../../games';
import { GameThumbnail, Arc3Thumbnail } from '../game/Thumbnails';
import { signedIn, useResearcher } from '../studio/auth';
import { useArc3Games } from '../studio/Arc3Playtest';

const ACTION_NAMES: Record<number, string> = {
  1: 'up',
  2: 'down',
  3: 'left',
  4: 'right',
  5: 'action',
  6: 'click',
  7: 'undo',
};

/** The games this studio has, to play and playtest. */
export function GamesPage() {
  return (
    <div className="h-full overflow-y-auto p-6">
      <h1 className="mb-4 text-xl font-semibold text-white">Games</h1>
      <ul className="grid grid-cols-[repeat(auto-fill,minmax(240px,1fr))] gap-4">
        {Object.values(games).map((g) => (
          <li key={g.id} className="relative">
            <Link
              href={`/games/${g.id}/playtest`}
              className="absolute right-3 top-3 z-10 rounded bg-violet-600/30 px-2 py-0.5 text-xs text-violet-100 hover:bg-violet-600/60"
            >
              Playtest
            </Link>
            <Link
              href={`/games/${g.id}`}
              className="flex flex-col gap-3 rounded-xl border border-slate-800 bg-slate-900/60 p-4 hover:border-sky-500"
            >
              <GameThumbnail game={g} />
              <div>
                <p className="font-semibold text-white">
                  {g.title} <span className="font-mono text-xs text-slate-500">{g.id}</span>
                </p>
                {g.summary && <p className="mt-1 text-sm text-slate-400">{g.summary}</p>}
                <p className="mt-2 text-xs text-slate-500">
                  {g.levels.length} levels ·{' '}
                  {[...g.actions, ...(g.undo === false ? [] : [7])].map((a) => ACTION_NAMES[a]).join(', ')}
                </p>
              </div>
            </Link>
          </li>
        ))}
      </ul>
      <Arc3Games />
    </div>
  );
}

/** The ARC-AGI-3 games the server runs, for a logged-in researcher to playtest. */
function Arc3Games() {
  const researcher = useResearcher(signedIn);
  const arc3 = useArc3Games();
  if (!researcher) return null;
  const games = arc3.data?.games ?? [];
  return (
    <section className="mt-8" aria-labelledby="arc3-games">
      <h2 id="arc3-games" className="mb-1 text-lg font-semibold text-white">
        ARC-AGI-3 games
      </h2>
      <p className="mb-4 text-sm text-slate-400">
        {arc3.error
          ? (arc3.error as Error).message
          : arc3.data && !arc3.data.engine.ok
            ? arc3.data.engine.message
            : games.length
              ? `Run by the official engine on the server (${arc3.data?.engine.message}).`
              : arc3.data
                ? "None: start the server with --arc3-games DIR (a folder in the toolkit's layout) or --arc3-server URL."
                : 'Looking for games…'}
      </p>
      {games.length > 0 && (
        <ul className="grid grid-cols-[repeat(auto-fill,minmax(240px,1fr))] gap-4">
          {games.map((g) => (
            <li key={g.id}>
              <Link
                href={`/games/${g.id}/playtest`}
                className="flex flex-col gap-2 rounded-xl border border-slate-800 bg-slate-900/60 p-4 hover:border-violet-500"
              >
                {!g.error && <Arc3Thumbnail id={g.id} />}
                <p className="font-semibold text-white">
                  {g.title} <span className="font-mono text-xs text-slate-500">{g.id}</span>
                </p>
                <p className="text-xs text-slate-400">
                  {g.levels ?? '?'} levels · {g.source === 'remote' ? 'remote server' : 'arcengine folder'}
                  {g.tags.length ? ` · ${g.tags.join(', ')}` : ''}
                </p>
                {g.codeHash && (
                  <p className="text-xs text-slate-400" data-testid="code-version">
                    Code{' '}
                    <span className="font-mono text-slate-300" title={g.version}>
                      @{g.codeHash}
                    </span>
                    : new runs play it
                  </p>
                )}
                {(g.olderVersions ?? []).map((o) => (
                  <p key={o.codeHash} className="text-xs text-amber-200" data-testid="older-version">
                    {o.runs} open run{o.runs === 1 ? ' keeps' : 's keep'}{' '}
                    <span className="font-mono" title={o.version}>
                      @{o.codeHash}
                    </span>
                    , the code {o.runs === 1 ? 'it was' : 'they were'} opened on
                  </p>
                ))}
                {g.error ? (
                  <p className="text-xs text-rose-300">{g.error}</p>
                ) : (
                  <span className="self-start rounded bg-violet-600/30 px-2 py-0.5 text-xs text-violet-100">
                    Playtest
                  </span>
                )}
              </Link>
              <Link
                href={`/games/${g.id}/baselines`}
                className="mt-1 inline-block text-xs text-violet-300 hover:underline"
                data-testid="game-baselines-link"
              >
                Human figures and reference recordings
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
