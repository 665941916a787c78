/**
 * A study's stages in the studio (docs/researchers.md, "Pilots"): the stage new sessions start in,
 * with one action to move the study to main (or to start a pilot), and the selector of the stage
 * the results and campaign pages count (main by default, a pilot's or every stage on request).
 */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { StageChange, StudyStages } from '../../core/protocol/api';
import { ALL_STAGES, MAIN_STAGE, PILOT_STAGE } from '../../core/study/stages';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { adminJson } from './auth';
import { studyStageQuery } from './queries';

const button =
  'h-8 rounded-md border border-slate-600 bg-slate-800 px-3 text-sm text-slate-100 hover:bg-slate-700 disabled:opacity-40';

/**
 * The stage a page counts: a stage's name, or null for every stage. `stages` (as the server
 * reports them) adds the stages the study's sessions are in, with their counts.
 */
export function StageSelect({
  value,
  onChange,
  stages,
}: {
  value: string | null;
  onChange: (stage: string | null) => void;
  stages: StudyStages | undefined;
}) {
  const counts = stages?.sessions ?? {};
  const names = [...new Set([MAIN_STAGE, PILOT_STAGE, ...Object.keys(counts), ...(value ? [value] : [])])];
  const label = (name: string) => `${name === MAIN_STAGE ? 'Main' : name === PILOT_STAGE ? 'Pilot' : name}`;
  const count = (name: string) => (counts[name] === undefined ? '' : ` (${counts[name]})`);
  return (
    <label className="flex items-center gap-2 text-sm text-slate-300">
      Stage
      <select
        value={value ?? ALL_STAGES}
        onChange={(e) => onChange(e.target.value === ALL_STAGES ? null : e.target.value)}
        className="h-8 rounded-md border border-slate-700 bg-slate-950 px-2 text-sm"
        aria-label="Stage counted"
      >
        {names.map((n) => (
          <option key={n} value={n}>
            {label(n)}
            {count(n)}
          </option>
        ))}
        <option value={ALL_STAGES}>All stages</option>
      </select>
    </label>
  );
}

/** The stage new sessions start in, and the one action that moves the study (to main, or to a pilot). */
export function StageControl({ studyId }: { studyId: string }) {
  const qc = useQueryClient();
  const q = useQuery(studyStageQuery(studyId));
  const [open, setOpen] = useState<'main' | 'pilot' | null>(null);
  const current = q.data;
  if (current === undefined) return null;
  const move = async (stage: string) => {
    await adminJson<StageChange>(`/api/admin/studies/${encodeURIComponent(studyId)}/stage`, {
      method: 'PUT',
      body: JSON.stringify({ stage }),
    });
    await Promise.all([
      qc.invalidateQueries({ queryKey: ['admin', 'stage', studyId] }),
      qc.invalidateQueries({ queryKey: ['admin', 'results', studyId] }),
      qc.invalidateQueries({ queryKey: ['admin', 'campaign', studyId] }),
      qc.invalidateQueries({ queryKey: ['admin', 'audit', studyId] }),
    ]);
  };
  return (
    <span className="flex items-center gap-2 text-sm text-slate-300">
      New sessions:{' '}
      <span
        data-testid="current-stage"
        className={`rounded px-1.5 py-0.5 font-mono text-xs ${current === MAIN_STAGE ? 'bg-emerald-900 text-emerald-100' : 'bg-amber-900 text-amber-100'}`}
      >
        {current}
      </span>
      {current === MAIN_STAGE ? (
        <button type="button" className={button} onClick={() => setOpen('pilot')}>
          Start a pilot
        </button>
      ) : (
        <button type="button" className={button} onClick={() => setOpen('main')}>
          Move to main
        </button>
      )}
      {open === 'main' && (
        <ConfirmDialog
          title="Move this study to main?"
          confirmLabel="Move to main"
          onConfirm={() => move(MAIN_STAGE)}
          onClose={() => setOpen(null)}
        >
          <p>
            Sessions started from now on are in the main stage and count in the results, baselines, campaign targets and
            payments. The {current} sessions keep their stage: they stay out of those counts, and the stage selector
            shows them.
          </p>
        </ConfirmDialog>
      )}
      {open === 'pilot' && (
        <ConfirmDialog
          title="Start a pilot?"
          confirmLabel="Start the pilot"
          onConfirm={() => move(PILOT_STAGE)}
          onClose={() => setOpen(null)}
        >
          <p>
            Sessions started from now on are pilot sessions: kept, but out of every count until you ask for the pilot
            stage. Move the study to main when the pilot is over.
          </p>
        </ConfirmDialog>
      )}
    </span>
  );
}
