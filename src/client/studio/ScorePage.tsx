import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { readRecording, recordingAgentRuns } from '../../core/formats/recording';
import { parseBaselines, type Baselines } from '../../core/scoring/baselines';
import {
  SCORING_PRESETS,
  rhaeHeadline,
  scoreRuns,
  type AgentRun,
  type RhaeResult,
  type ScoringPresetName,
} from '../../core/scoring/rhae';
import { downloadText } from '../log/sessionLog';
import { Button } from '../ui/Button';
import { adminJson, signedIn, useResearcher } from './auth';
import { studiesQuery } from './queries';
import { QuestionScorePanel } from './QuestionScorePanel';
import type { ExportBody } from '../../core/protocol/requests';

/**
 * Scores agents against the humans (RHAE) in the browser: official `.recording.jsonl` files
 * against a baselines file, an official `metadata.json`, or a study's baselines on this server.
 * Below, for a researcher, a model's answers to a question collection beside a study's people.
 */
export function ScorePage() {
  const researcher = useResearcher(signedIn);
  const studies = useQuery({ ...studiesQuery, enabled: researcher });
  const [runs, setRuns] = useState<{ file: string; runs: AgentRun[]; skipped: number }[]>([]);
  // A baselines file is kept as text: a metadata.json without game_id is for the recordings' game.
  const [baselines, setBaselines] = useState<{ label: string; text: string } | { label: string; b: Baselines } | null>(
    null,
  );
  const [preset, setPreset] = useState<ScoringPresetName>('toolkit-2026-04');
  const [error, setError] = useState<string | null>(null);

  const readRecordings = async (files: File[]) => {
    setError(null);
    const out: { file: string; runs: AgentRun[]; skipped: number }[] = [];
    for (const f of files) {
      const read = readRecording(await f.text());
      out.push({ file: f.name, runs: recordingAgentRuns(read, f.name), skipped: read.skipped.length });
    }
    setRuns((r) => [...r, ...out]);
  };
  const readBaselinesFile = async (f: File) => {
    setError(null);
    try {
      const text = await f.text();
      // Read once now so a bad file is named at once; a metadata.json without game_id gets the
      // recordings' game when scoring (a placeholder id stands in for it here).
      parseBaselines(text, { defaultGameId: "(the recordings' game)" });
      setBaselines({ label: f.name, text });
    } catch (e) {
      setError(`${f.name}: ${(e as Error).message}`);
    }
  };
  const studyBaselines = async (id: string) => {
    setError(null);
    try {
      const r = await adminJson<{ url: string }>(`/api/admin/studies/${encodeURIComponent(id)}/exports`, {
        method: 'POST',
        body: JSON.stringify({ format: 'baselines-json' } satisfies ExportBody),
      });
      const text = await (await fetch(r.url)).text();
      setBaselines({ label: `study:${id}`, b: parseBaselines(text) });
    } catch (e) {
      setError(`study:${id}: ${(e as Error).message}`);
    }
  };

  const result = useMemo((): RhaeResult | string | null => {
    if (!baselines || runs.length === 0) return null;
    const all = runs.flatMap((r) => r.runs);
    const gameIds = [...new Set(all.map((r) => r.game))];
    try {
      const b =
        'b' in baselines
          ? baselines.b
          : parseBaselines(baselines.text, gameIds.length === 1 ? { defaultGameId: gameIds[0] } : {});
      return scoreRuns(all, b, preset);
    } catch (e) {
      return `${baselines.label}: ${(e as Error).message}`;
    }
  }, [runs, baselines, preset]);

  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto flex max-w-6xl flex-col gap-4 p-6">
        <h1 className="text-xl font-semibold text-white">Score agents against human baselines (RHAE)</h1>
        <div className="grid gap-3 md:grid-cols-3">
          <section className="rounded-lg border border-slate-800 bg-slate-900/60 p-3">
            <h2 className="text-sm font-semibold text-white">1. Agent recordings</h2>
            <p className="mt-1 text-xs text-slate-400">
              Official ARC-AGI-3 <span className="font-mono">.recording.jsonl</span> files; action ids may be numbers or
              names, non-frame lines are skipped.
            </p>
            <input
              type="file"
              multiple
              accept=".jsonl"
              aria-label="Recordings"
              className="mt-2 block w-full text-xs text-slate-400 file:mr-3 file:cursor-pointer file:rounded-md file:border file:border-slate-600 file:bg-slate-800 file:px-3 file:py-1.5 file:text-sm file:text-slate-100 hover:file:bg-slate-700"
              onChange={(e) => {
                void readRecordings([...(e.target.files ?? [])]);
                e.target.value = '';
              }}
            />
            <ul className="mt-2 text-xs text-slate-300">
              {runs.map((r) => (
                <li key={r.file}>
                  {r.file}: {r.runs.length} run{r.runs.length === 1 ? '' : 's'}
                  {r.skipped ? `, ${r.skipped} lines skipped` : ''}
                </li>
              ))}
            </ul>
            {runs.length > 0 && (
              <Button tone="ghost" onClick={() => setRuns([])}>
                Clear
              </Button>
            )}
          </section>
          <section className="rounded-lg border border-slate-800 bg-slate-900/60 p-3">
            <h2 className="text-sm font-semibold text-white">2. Human baselines</h2>
            <p className="mt-1 text-xs text-slate-400">
              A baselines JSON from ARC Studio, an official game <span className="font-mono">metadata.json</span>, or a
              study on this server.
            </p>
            <input
              type="file"
              accept=".json"
              aria-label="Baselines file"
              className="mt-2 block w-full text-xs text-slate-400 file:mr-3 file:cursor-pointer file:rounded-md file:border file:border-slate-600 file:bg-slate-800 file:px-3 file:py-1.5 file:text-sm file:text-slate-100 hover:file:bg-slate-700"
              onChange={(e) => {
                const f = e.target.files?.[0];
                if (f) void readBaselinesFile(f);
                e.target.value = '';
              }}
            />
            {researcher && (
              <select
                aria-label="Baselines from a study"
                className="mt-2 h-8 w-full rounded-md border border-slate-700 bg-slate-950 px-2 text-sm"
                value=""
                onChange={(e) => e.target.value && void studyBaselines(e.target.value)}
              >
                <option value="">…or from a study</option>
                {(studies.data ?? []).map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.title}
                  </option>
                ))}
              </select>
            )}
            {baselines && (
              <p className="mt-2 text-xs text-emerald-300">
                Using {baselines.label}
                {'b' in baselines
                  ? ` (${Object.keys(baselines.b.games).length} game${Object.keys(baselines.b.games).length === 1 ? '' : 's'})`
                  : ''}
              </p>
            )}
          </section>
          <section className="rounded-lg border border-slate-800 bg-slate-900/60 p-3">
            <h2 className="text-sm font-semibold text-white">3. Preset</h2>
            {(Object.keys(SCORING_PRESETS) as ScoringPresetName[]).map((p) => (
              <label key={p} className="mt-2 flex items-start gap-2 text-sm text-slate-300">
                <input
                  type="radio"
                  name="preset"
                  checked={preset === p}
                  onChange={() => setPreset(p)}
                  className="mt-1"
                />
                <span>
                  <span className="font-mono">{p}</span>
                  <span className="block text-xs text-slate-500">{SCORING_PRESETS[p].description}</span>
                </span>
              </label>
            ))}
          </section>
        </div>
        {error && (
          <p role="alert" className="text-sm text-rose-300">
            {error}
          </p>
        )}
        {typeof result === 'string' && (
          <p role="alert" className="text-sm text-rose-300">
            {result}
          </p>
        )}
        {result && typeof result !== 'string' && <ScoreTable result={result} />}
        {researcher && <QuestionScorePanel />}
      </div>
    </div>
  );
}

const fmt = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? '–' : x.toFixed(d));

function ScoreTable({ result }: { result: RhaeResult }) {
  return (
    <section className="flex flex-col gap-3" aria-label="RHAE">
      <div className="flex items-baseline gap-3">
        <p className="text-lg text-white">
          Total RHAE{' '}
          <span className="font-semibold tabular-nums" data-testid="rhae-total">
            {fmt(result.total)}
          </span>
          {!result.complete && (
            <span className="ml-2 text-base font-semibold text-amber-300" data-testid="rhae-incomplete">
              not over every level
            </span>
          )}
        </p>
        <p className="text-xs text-slate-400">
          preset {result.preset} v{result.version} · human baseline{' '}
          {result.baselineSource === 'metadata'
            ? 'from official metadata'
            : `${result.baselinePreset} v${result.baselineVersion}`}
        </p>
        <Button
          className="ml-auto"
          onClick={() => downloadText('rhae.json', JSON.stringify(result, null, 2), 'application/json')}
        >
          Download JSON
        </Button>
      </div>
      {!result.complete && (
        <div
          role="alert"
          aria-label="Baselines coverage"
          className="rounded-lg border border-amber-600/60 bg-amber-950/40 px-3 py-2 text-sm text-amber-100"
        >
          <p className="font-semibold">{rhaeHeadline(result)[0]}</p>
          <ul className="mt-1 list-disc pl-5">
            {result.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </div>
      )}
      {result.games.map((g) => (
        <div key={g.game} className="overflow-x-auto rounded-lg border border-slate-800">
          <table className="w-full text-sm" aria-label={`Game ${g.game}`}>
            <caption className="bg-slate-900 px-3 py-2 text-left text-slate-200">
              {g.game}: score <span className="font-semibold tabular-nums">{fmt(g.score)}</span>{' '}
              <span className="text-xs text-slate-500">
                (
                {!g.hasBaselines
                  ? 'no baselines for this game id'
                  : g.participants === null
                    ? 'official baselines'
                    : `${g.participants} first-time players`}
                ; run {g.counted + 1} of {g.runs.length} counts
                {g.runs[g.counted].zeroBecause ? `; scores 0: ${g.runs[g.counted].zeroBecause}` : ''})
              </span>
            </caption>
            <thead className="text-xs uppercase tracking-wide text-slate-400">
              <tr>
                <th className="px-3 py-1 text-left">Level</th>
                <th className="px-3 py-1 text-right">Weight</th>
                <th className="px-3 py-1 text-right">Human baseline</th>
                <th className="px-3 py-1 text-right">Agent actions</th>
                <th className="px-3 py-1 text-right">Level score</th>
              </tr>
            </thead>
            <tbody>
              {g.runs[g.counted].levels.map((l) => (
                <tr key={l.level} className="border-t border-slate-800">
                  <td className="px-3 py-1">{l.level}</td>
                  <td className="px-3 py-1 text-right tabular-nums">{l.weight}</td>
                  <td className="px-3 py-1 text-right tabular-nums">
                    {l.human.value ?? '–'}{' '}
                    <span className="text-xs text-slate-500">
                      {l.human.completers !== null ? `(n=${l.human.completers})` : ''}
                    </span>
                  </td>
                  <td className="px-3 py-1 text-right tabular-nums">
                    {l.agentActions ?? '–'}
                    {l.completed ? '' : <span className="text-xs text-slate-500"> (not completed)</span>}
                  </td>
                  <td className="px-3 py-1 text-right tabular-nums">{fmt(l.score)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      {result.notes.length > 0 && (
        <ul className="list-disc pl-5 text-xs text-slate-400">
          {result.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
