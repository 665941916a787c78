/**
 * A study's game levels beside the reference groups imported for the game (human runs recorded
 * elsewhere, `GET /api/admin/games/:id/references`): per level, the study's first-time players and
 * each group, with completion, actions and time, so a lab reads its participants against the
 * official pool on the results page itself. The game's own page has every study's figures.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import type { Dist } from '../../core/analysis/dist';
import type { LevelResultRow } from '../../core/analysis/resultTypes';
import type { ReferenceGroupsView } from '../../core/protocol/api';
import { adminJson } from './auth';

interface Figures {
  readonly reached: number;
  readonly completed: number;
  readonly actions: Dist;
  readonly timeMs: Dist;
}

/** A median time in seconds, one decimal; a dash for none. */
export const seconds = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`);
/** A median figure, one decimal at most; a dash for none. */
export const figure = (v: number | null) => (v === null ? '–' : String(Math.round(v * 10) / 10));

function Cells({ f }: { f: Figures | undefined }) {
  if (!f)
    return (
      <td className="px-3 py-1 text-slate-500" colSpan={4}>
        not reached
      </td>
    );
  return (
    <>
      <td className="px-3 py-1 text-right tabular-nums">{f.reached}</td>
      <td className="px-3 py-1 text-right tabular-nums" data-field="completed">
        {f.completed}
        {f.reached ? ` (${Math.round((100 * f.completed) / f.reached)}%)` : ''}
      </td>
      <td className="px-3 py-1 text-right tabular-nums" data-field="actions">
        {figure(f.actions.median)}
      </td>
      <td className="px-3 py-1 text-right tabular-nums">{seconds(f.timeMs.median)}</td>
    </>
  );
}

/**
 * The reference groups of `gameId` beside the study's `levels`; nothing when the game has none
 * (or the reader may not see them).
 */
export function ReferenceBeside({
  gameId,
  title,
  levels,
}: {
  gameId: string;
  title: string;
  levels: readonly LevelResultRow[];
}) {
  const refs = useQuery({
    queryKey: ['admin', 'game-references', gameId],
    queryFn: () => adminJson<ReferenceGroupsView>(`/api/admin/games/${encodeURIComponent(gameId)}/references`),
    retry: false,
  });
  const groups = refs.data?.groups ?? [];
  if (!groups.length) return null;
  const count = Math.max(levels.length, ...groups.map((g) => g.levels.length));
  return (
    <section aria-label={`Reference recordings, ${title}`} data-testid="reference-beside">
      <h3 className="mb-1 text-sm font-semibold text-slate-200">Beside the reference recordings</h3>
      <p className="mb-2 text-xs text-slate-400">
        Per level, this study&apos;s first-time players and each reference group imported for the game (human runs
        recorded elsewhere): who reached the level, who completed it, the completers&apos; median actions and time.{' '}
        <Link
          href={`/games/${encodeURIComponent(gameId)}/baselines`}
          className="text-violet-300 hover:underline"
          data-testid="reference-game-link"
        >
          Every study and group of this game →
        </Link>
      </p>
      <div className="overflow-x-auto rounded-lg border border-slate-800">
        <table className="w-full text-sm text-slate-300">
          <thead className="bg-slate-900 text-xs uppercase tracking-wide text-slate-400">
            <tr>
              <th className="px-3 py-2 text-left">Level</th>
              <th className="px-3 py-2 text-left">Source</th>
              <th className="px-3 py-2 text-right">Reached</th>
              <th className="px-3 py-2 text-right">Completed</th>
              <th className="px-3 py-2 text-right">Actions (median)</th>
              <th className="px-3 py-2 text-right">Time (median)</th>
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: count }, (_, k) => k + 1).flatMap((level) => [
              <tr
                key={`${level}\u0000study`}
                className="border-t border-slate-800"
                data-testid="reference-beside-row"
                data-level={level}
                data-kind="participants"
              >
                <td className="px-3 py-1">Level {level}</td>
                <td className="px-3 py-1 text-white">This study</td>
                <Cells f={levels.find((l) => l.level === level)} />
              </tr>,
              ...groups.map((g) => (
                <tr
                  key={`${level}\u0000${g.name}`}
                  data-testid="reference-beside-row"
                  data-level={level}
                  data-kind="reference"
                  data-source={g.name}
                >
                  <td className="px-3 py-1" />
                  <td className="px-3 py-1">
                    <span className="text-white">{g.name}</span>{' '}
                    <span className="text-xs text-slate-500">
                      (reference, {g.recordings} recording{g.recordings === 1 ? '' : 's'}
                      {g.current ? '' : `, checked on ${g.version}, not the version running now`})
                    </span>
                  </td>
                  <Cells f={g.levels.find((l) => l.level === level)} />
                </tr>
              )),
            ])}
          </tbody>
        </table>
      </div>
    </section>
  );
}
