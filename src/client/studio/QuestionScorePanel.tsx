import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { BesideRow } from '../../core/questions/beside';
import type { QuestionScoreResponse } from '../../core/protocol/questionScore';
import { downloadText } from '../log/sessionLog';
import { Button } from '../ui/Button';
import { adminJson } from './auth';
import { questionCollectionsQuery, studiesQuery } from './queries';
import { CiBar, ciText, pct1 } from './QuestionResults';

const FILE_INPUT =
  'mt-1 block w-full text-xs text-slate-400 file:mr-3 file:cursor-pointer file:rounded-md file:border file:border-slate-600 file:bg-slate-800 file:px-3 file:py-1.5 file:text-sm file:text-slate-100 hover:file:bg-slate-700';
const SELECT = 'mt-1 h-8 w-full rounded-md border border-slate-700 bg-slate-950 px-2 text-sm text-slate-100';

/**
 * The Score page's question part: a model's answers file (JSONL of `{"id", "response"}`) scored
 * on the server against a mounted question collection, beside a study's people per subset.
 */
export function QuestionScorePanel() {
  const collections = useQuery(questionCollectionsQuery);
  const studies = useQuery(studiesQuery);
  const [collection, setCollection] = useState('');
  const [study, setStudy] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [state, setState] = useState<
    | { kind: 'idle' }
    | { kind: 'scoring' }
    | { kind: 'error'; message: string }
    | { kind: 'done'; r: QuestionScoreResponse; file: string }
  >({ kind: 'idle' });
  const chosenCollection = collection || collections.data?.[0]?.id || '';

  const score = async () => {
    if (!file || !chosenCollection || !study) return;
    setState({ kind: 'scoring' });
    try {
      const r = await adminJson<QuestionScoreResponse>(
        `/api/admin/studies/${encodeURIComponent(study)}/question-scores?collection=${encodeURIComponent(chosenCollection)}&rule=mcpbr`,
        { method: 'POST', body: file },
      );
      setState({ kind: 'done', r, file: file.name });
    } catch (e) {
      setState({ kind: 'error', message: `${file.name}: ${(e as Error).message}` });
    }
  };

  return (
    <section
      className="flex flex-col gap-3 rounded-lg border border-slate-800 p-4"
      aria-labelledby="question-score-title"
    >
      <div>
        <h2 id="question-score-title" className="text-lg font-semibold text-white">
          Score a model&apos;s answers to questions beside a study&apos;s people
        </h2>
        <p className="mt-1 text-xs text-slate-400">
          Upload a model&apos;s answers as JSON Lines, one <span className="font-mono">{'{"id", "response"}'}</span> per
          line (at most 8 MiB). Choice answers are read by the mcpbr rule (the last standalone letter A-E or digit 1-5,
          any case), numbers by the last number in the response, within the question&apos;s tolerance.
        </p>
      </div>
      <div className="grid gap-3 md:grid-cols-3">
        <label className="text-sm text-slate-300">
          Question collection
          <select className={SELECT} value={chosenCollection} onChange={(e) => setCollection(e.target.value)}>
            {(collections.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} · {c.count} questions
              </option>
            ))}
            {collections.data?.length === 0 && <option value="">No collection mounted</option>}
          </select>
        </label>
        <label className="text-sm text-slate-300">
          Study
          <select className={SELECT} value={study} onChange={(e) => setStudy(e.target.value)}>
            <option value="">Choose a study…</option>
            {(studies.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.title} ({s.id})
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm text-slate-300">
          Model answers (.jsonl)
          <input
            type="file"
            accept=".jsonl,.json,.txt"
            className={FILE_INPUT}
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setState({ kind: 'idle' });
            }}
          />
        </label>
      </div>
      <div className="flex items-center gap-3">
        <Button
          tone="primary"
          disabled={!file || !chosenCollection || !study || state.kind === 'scoring'}
          onClick={() => void score()}
        >
          {state.kind === 'scoring' ? 'Scoring…' : 'Score answers'}
        </Button>
        {(!file || !study) && (
          <span className="text-xs text-slate-500">
            {!study ? 'Choose a study' : 'Choose the answers file'} to score.
          </span>
        )}
      </div>
      {state.kind === 'error' && (
        <p role="alert" className="whitespace-pre-line text-sm text-rose-300">
          {state.message}
        </p>
      )}
      {state.kind === 'done' && <BesideTable r={state.r} file={state.file} />}
    </section>
  );
}

function ModelCell({ a }: { a: BesideRow['model'] }) {
  return a.judged ? (
    <span>
      {pct1(a.accuracy)}{' '}
      <span className="text-xs text-slate-400">
        ({a.correct}/{a.judged})
      </span>
    </span>
  ) : (
    <span className="text-slate-500">–</span>
  );
}

function BesideTable({ r, file }: { r: QuestionScoreResponse; file: string }) {
  const rows = [...r.beside.subsets, r.beside.overall];
  const { model } = r;
  return (
    <div className="flex flex-col gap-2" data-testid="question-score">
      <div className="flex flex-wrap items-baseline gap-3">
        <p className="text-sm text-slate-200">
          <span className="font-mono">{file}</span> on <span className="font-mono">{r.collection.name}</span> (rule{' '}
          {model.rule}): model accuracy{' '}
          <span className="font-semibold text-white" data-testid="model-accuracy">
            {pct1(model.overall.accuracy)}
          </span>{' '}
          over {model.overall.judged} judged questions; people of <span className="font-mono">{r.study.id}</span>:{' '}
          <span className="font-semibold text-white" data-testid="human-accuracy">
            {pct1(r.beside.overall.human.accuracy)}
          </span>{' '}
          over {r.beside.overall.human.judged} answers to {r.beside.overall.human.questions} questions.
        </p>
        <Button
          className="ml-auto"
          onClick={() =>
            downloadText(`${r.study.id}-${r.collection.id}-scores.json`, JSON.stringify(r, null, 2), 'application/json')
          }
        >
          Download JSON
        </Button>
      </div>
      <div className="overflow-x-auto rounded-lg border border-slate-800">
        <table className="w-full text-sm" aria-label="Model beside people, per subset">
          <thead className="bg-slate-900 text-xs uppercase tracking-wide text-slate-400">
            <tr>
              <th className="px-3 py-2 text-left">Subset</th>
              <th className="px-3 py-2 text-right">Questions</th>
              <th className="px-3 py-2 text-right">Model</th>
              <th className="px-3 py-2 text-right" title="The model on the questions the people answered">
                Model, same questions
              </th>
              <th className="px-3 py-2 text-right">People</th>
              <th className="px-3 py-2 text-right">95% CI</th>
              <th className="px-3 py-2 text-right" title="Counted answers (questions asked)">
                Answers
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={row.subset}
                className={`border-t border-slate-800 ${row === r.beside.overall ? 'bg-slate-900/60 font-semibold' : ''}`}
                data-testid={`beside-${row.subset}`}
              >
                <td className="px-3 py-2">{row === r.beside.overall ? 'All questions' : row.subset}</td>
                <td className="px-3 py-2 text-right tabular-nums">{row.questions}</td>
                <td className="px-3 py-2 text-right tabular-nums">
                  <ModelCell a={row.model} />
                </td>
                <td className="px-3 py-2 text-right tabular-nums">
                  <ModelCell a={row.modelOnShared} />
                </td>
                <td className="px-3 py-2 text-right tabular-nums">
                  <span className="inline-flex flex-col items-end">
                    {row.human.accuracy === null ? (
                      <span className="text-slate-500">–</span>
                    ) : (
                      <span>
                        {pct1(row.human.accuracy)}{' '}
                        <span className="text-xs text-slate-400">
                          ({row.human.correct}/{row.human.judged})
                        </span>
                      </span>
                    )}
                    <CiBar value={row.human.accuracy} ci={row.human.ci} />
                    {row.human.awaiting > 0 && (
                      <span className="mt-1 rounded bg-amber-500/15 px-1.5 py-0.5 text-xs text-amber-200">
                        {row.human.awaiting} awaiting grading
                      </span>
                    )}
                  </span>
                </td>
                <td className="whitespace-nowrap px-3 py-2 text-right tabular-nums">{ciText(row.human.ci)}</td>
                <td className="px-3 py-2 text-right tabular-nums">
                  {row.human.judged} <span className="text-xs text-slate-400">({row.human.questions})</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ul className="list-disc pl-5 text-xs text-slate-400">
        <li>
          People&apos;s accuracy pools their counted answers (practice, playtests and excluded sessions left out); the
          interval is a 95% Wilson interval. &quot;Model, same questions&quot; scores the model only on the questions
          people answered.
        </li>
        {model.missing.length > 0 && (
          <li>
            {model.missing.length} question{model.missing.length === 1 ? ' has' : 's have'} no answer in the file and
            count{model.missing.length === 1 ? 's' : ''} as wrong: {model.missing.slice(0, 10).join(', ')}
            {model.missing.length > 10 ? ` and ${model.missing.length - 10} more` : ''}.
          </li>
        )}
        {model.unknown.length > 0 && (
          <li>
            {model.unknown.length} answer{model.unknown.length === 1 ? ' is' : 's are'} to ids the collection does not
            have (ignored): {model.unknown.slice(0, 10).join(', ')}
            {model.unknown.length > 10 ? ` and ${model.unknown.length - 10} more` : ''}.
          </li>
        )}
        {model.overall.ungraded > 0 && (
          <li>
            {model.overall.ungraded} symbolic or free-response question{model.overall.ungraded === 1 ? ' is' : 's are'}{' '}
            not judged automatically and left out of the model&apos;s accuracy.
          </li>
        )}
      </ul>
    </div>
  );
}
