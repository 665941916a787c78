import { useState } from 'react';
import { Button } from '../ui/Button';
import { adminJson } from './auth';
import type { ExportBody } from '../../core/protocol/requests';

const FORMATS: { id: string; title: string; what: string }[] = [
  {
    id: 'zip',
    title: 'Study bundle (ZIP)',
    what: 'Every file below, plus the game versions the study started with and each run played, with a README, a JSON Schema per file and SHA-256 sums.',
  },
  {
    id: 'jsonl',
    title: 'Raw events (JSONL)',
    what: 'Every stored event of every session, one JSON object per line, in order.',
  },
  { id: 'csv', title: 'Attempts (CSV)', what: 'One row per participant and item: actions, time, outcome, flags.' },
  {
    id: 'baselines-json',
    title: 'Human baselines (JSON)',
    what: 'Per game level, the best, second-best, median and upper-median baselines with completer counts.',
  },
  { id: 'baselines-csv', title: 'Human baselines (CSV)', what: 'The same baselines, one row per level and preset.' },
  {
    id: 'grid-actions',
    title: 'Grid-task actions (CSV)',
    what: 'One row per action, with H-ARC column names where they map.',
  },
  {
    id: 'grades',
    title: 'Grades (CSV)',
    what: 'One row per grade of a free-response answer: criterion scores, total, pass, note, grader; adjudications and final grades marked.',
  },
  {
    id: 'responses',
    title: 'Responses (CSV)',
    what: 'One row per participant and question, survey answer, written description and withdrawal: answer, verdict, time on the item, answer changes.',
  },
  {
    id: 'surveys',
    title: 'Survey summaries (JSON)',
    what: "Per survey question, as the Surveys tab shows it: each option's count and share, the distribution of values, or every text answer.",
  },
  { id: 'recordings', title: 'ARC-AGI-3 recordings (ZIP)', what: 'One official .recording.jsonl per game run.' },
  {
    id: 'archive',
    title: 'Archive (ZIP)',
    what: 'Every stored row of the study, all versions, with checksums: "arc-studio restore" makes the study again from it on any server.',
  },
];

/**
 * Downloads of a study's data. The server hands out a one-time link, so the browser saves the
 * file straight to disk while the server streams it; nothing is held whole in memory.
 */
export function ExportsPanel({ studyId, version }: { studyId: string; version: number | null }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const download = async (format: string) => {
    setBusy(format);
    setError(null);
    try {
      const r = await adminJson<{ url: string; fileName: string }>(
        `/api/admin/studies/${encodeURIComponent(studyId)}/exports`,
        {
          method: 'POST',
          // An archive is of the whole study, whatever version is shown.
          body: JSON.stringify(
            (version === null || format === 'archive' ? { format } : { format, version }) satisfies ExportBody,
          ),
        },
      );
      const a = document.createElement('a');
      a.href = r.url;
      a.download = r.fileName;
      document.body.appendChild(a);
      a.click();
      a.remove();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-slate-400">
        {version === null ? 'All versions of the study.' : `Sessions of version ${version} only.`} Formats are described
        in <span className="font-mono">docs/formats</span>; the same files come from{' '}
        <span className="font-mono">arc-studio export</span>.
      </p>
      {error && (
        <p role="alert" className="text-sm text-rose-300">
          {error}
        </p>
      )}
      <ul className="grid gap-3 md:grid-cols-2" aria-label="Exports">
        {FORMATS.map((f) => (
          <li key={f.id} className="flex items-start gap-3 rounded-lg border border-slate-800 bg-slate-900/60 p-3">
            <div className="flex-1">
              <p className="font-semibold text-white">{f.title}</p>
              <p className="mt-0.5 text-sm text-slate-400">{f.what}</p>
            </div>
            <Button onClick={() => void download(f.id)} disabled={busy !== null} aria-label={`Download ${f.title}`}>
              {busy === f.id ? 'Preparing…' : 'Download'}
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}
