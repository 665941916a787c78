/**
 * Parts of the campaign page that read one candidate's record: its versions side by side and
 * the participants it (and the campaign) still needs, in words.
 */
import type { CampaignCandidateView, CampaignNeededView, CandidateNeedView } from './queries';
import { formatMs, formatPct } from './widgets';

/** Whom the campaign's funnels and figures count, said as the page and docs/researchers.md say it. */
export const FUNNEL_COUNTS =
  'Counted here: attempts that count under the study’s attempt rule, in sessions not excluded (claims settled ' +
  'solved or attempted). The results page counts every session not excluded, so its level figures can be larger.';

export const seconds = (s: number | null) => (s === null ? '–' : formatMs(s * 1000));

const range = (low: number, high: number | null) => (high === null ? `${low} or more` : `${low}–${high}`);

/** A candidate's need in words: a number with its 95% interval, or why there is none. */
export function candidateNeedText(n: CandidateNeedView): string {
  if (n.state === 'met') return '0';
  if (n.state === 'retired') return 'not drawn (revise)';
  if (n.state === 'unknown')
    return n.reason === 'thin_record'
      ? `cannot be estimated yet (${n.settled} settled)`
      : `cannot be estimated yet (no solve in ${n.settled})`;
  return `${n.participants} (${range(n.low, n.high)})`;
}

/** The campaign's need in words. */
export function neededText(n: CampaignNeededView): string {
  if (n.participants === null) return 'cannot be estimated yet';
  return n.low === null ? String(n.participants) : `${n.participants} (${range(n.low, n.high)})`;
}

/**
 * Each version of the candidate in its own columns, level by level: which one sessions play now and
 * when each was first played.
 */
export function Versions({ candidate: c }: { candidate: CampaignCandidateView }) {
  const vs = c.versions;
  if (vs.length === 0) return null;
  const levelNos = [...new Set(vs.flatMap((v) => (v.levels ?? []).map((l) => l.level)))].sort((a, b) => a - b);
  const cell = 'px-3 py-1.5 text-right tabular-nums';
  return (
    <div className="flex flex-col gap-1">
      <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-400">
        {vs.length === 1 ? 'One version so far' : `${vs.length} versions side by side, oldest first`}
      </h3>
      <div className="overflow-x-auto rounded-lg border border-slate-800">
        <table className="w-full text-sm" aria-label={`Versions of ${c.id}`}>
          <thead className="bg-slate-900 text-xs text-slate-400">
            <tr>
              <th className="px-3 py-2 text-left font-medium" scope="col">
                Figure
              </th>
              {vs.map((v) => (
                <th
                  key={v.version}
                  className="px-3 py-2 text-right font-medium"
                  scope="col"
                  data-testid="version-head"
                  data-mounted={v.mounted}
                >
                  <span className="block font-mono">{v.version}</span>
                  <span className="block font-normal text-slate-300">
                    {v.mounted ? 'mounted now · ' : ''}
                    {v.firstPlayedAt === null
                      ? 'not played yet'
                      : `first played ${new Date(v.firstPlayedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`}
                  </span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr className="border-t border-slate-800">
              <th scope="row" className="px-3 py-1.5 text-left font-normal text-slate-300">
                Attempts · solves
              </th>
              {vs.map((v) => (
                <td key={v.version} className={cell}>
                  {v.attempts} · {v.solves}
                </td>
              ))}
            </tr>
            <tr className="border-t border-slate-800">
              <th scope="row" className="px-3 py-1.5 text-left font-normal text-slate-300">
                Median actions · time
              </th>
              {vs.map((v) => (
                <td key={v.version} className={cell}>
                  {v.medianActions ?? '–'} · {seconds(v.medianSeconds)}
                </td>
              ))}
            </tr>
            {levelNos.map((n) => (
              <tr key={n} className="border-t border-slate-800">
                <th scope="row" className="px-3 py-1.5 text-left font-normal text-slate-300">
                  Level {n}: completed · actions · time
                </th>
                {vs.map((v) => {
                  const l = v.levels?.find((x) => x.level === n);
                  return (
                    <td key={v.version} className={`${cell} ${l?.dropOff ? 'text-amber-200' : ''}`}>
                      {l ? (
                        <>
                          {formatPct(l.reached ? l.completed / l.reached : null)} ({l.completed}/{l.reached}) ·{' '}
                          {l.medianActions ?? '–'} · {seconds(l.medianSeconds)}
                          {l.dropOff ? ' · drop-off' : ''}
                        </>
                      ) : (
                        '–'
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
