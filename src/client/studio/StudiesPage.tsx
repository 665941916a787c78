import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { Button } from '../ui/Button';
import { hasPool, studiesQuery, studyDefinitionQuery } from './queries';
import { RequireResearcher } from './RequireResearcher';
import { AgentKeysPanel } from './AgentsPanel';

/** Every study on this server, with its participant link. */
export function StudiesPage() {
  return (
    <RequireResearcher>
      <Studies />
    </RequireResearcher>
  );
}

function Studies() {
  const q = useQuery(studiesQuery);
  return (
    <div className="h-full overflow-y-auto p-6">
      <div className="mb-4 flex items-center gap-3">
        <h1 className="text-xl font-semibold text-white">Studies</h1>
        <Link
          href="/data-requests"
          className="ml-auto rounded-md border border-slate-700 px-3 py-1.5 text-sm text-slate-200 hover:bg-slate-800"
        >
          Data requests
        </Link>
        <Link
          href="/studies/new"
          className="rounded-md bg-emerald-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-emerald-800"
        >
          New study
        </Link>
      </div>
      {q.isError && (
        <p role="alert" className="text-rose-300">
          {(q.error as Error).message}
        </p>
      )}
      <ul className="grid gap-3" aria-label="Studies">
        {(q.data ?? []).map((s) => {
          const link = `${window.location.origin}/s/${s.id}`;
          return (
            <li
              key={s.id}
              className="flex flex-wrap items-center gap-4 rounded-xl border border-slate-800 bg-slate-900/60 p-4"
            >
              <div className="min-w-0 flex-1 basis-full sm:basis-0">
                <div className="flex flex-wrap items-center gap-2">
                  <Link
                    href={`/studies/${encodeURIComponent(s.id)}`}
                    className="text-lg font-semibold text-white hover:text-sky-300"
                  >
                    {s.title}
                  </Link>
                  {s.pools > 0 && (
                    <span
                      className="max-w-full truncate rounded-full border border-emerald-600 px-2 py-0.5 text-xs whitespace-nowrap text-emerald-200"
                      data-testid="campaign-badge"
                    >
                      Campaign{s.campaignId ? ` ${s.campaignId}` : ''} · {s.pools} pool{s.pools === 1 ? '' : 's'}
                    </span>
                  )}
                </div>
                <p className="mt-1 text-xs text-slate-400">
                  <span className="font-mono">{s.id}</span> · version {s.version} · {s.sessions} session
                  {s.sessions === 1 ? '' : 's'} · {s.source === 'file' ? 'from data/studies' : 'edited in the studio'}
                </p>
                <p className="mt-1 text-xs text-slate-500">
                  Participant link:{' '}
                  <span className="select-all font-mono text-slate-300">
                    {link}?PROLIFIC_PID={'{{%PROLIFIC_PID%}}'}
                  </span>
                </p>
              </div>
              <Button onClick={() => void navigator.clipboard?.writeText(link)}>Copy link</Button>
              <Link
                href={`/studies/${encodeURIComponent(s.id)}/edit`}
                className="rounded-md border border-slate-600 px-3 py-1.5 text-sm text-slate-200 hover:bg-slate-800"
              >
                Edit
              </Link>
              <CampaignLink studyId={s.id} pools={s.pools} />
              <Link
                href={`/studies/${encodeURIComponent(s.id)}`}
                className="rounded-md border border-sky-500 px-3 py-1.5 text-sm text-sky-200 hover:bg-sky-500/10"
              >
                Results
              </Link>
            </li>
          );
        })}
      </ul>
      <div className="mt-6">
        <AgentKeysPanel />
      </div>
    </div>
  );
}

/**
 * A link to the study's campaign view, for a study that draws from a pool: `pools` from the study
 * list when the caller has it, else read from the study's definition.
 */
export function CampaignLink({ studyId, pools }: { studyId: string; pools?: number }) {
  const def = useQuery({ ...studyDefinitionQuery(studyId), enabled: pools === undefined });
  if (pools === undefined ? !hasPool(def.data) : pools === 0) return null;
  return (
    <Link
      href={`/studies/${encodeURIComponent(studyId)}/campaign`}
      aria-label={`Campaign of ${studyId}`}
      className="rounded-md border border-emerald-500 px-3 py-1.5 text-sm text-emerald-200 hover:bg-emerald-500/10"
    >
      Campaign
    </Link>
  );
}
