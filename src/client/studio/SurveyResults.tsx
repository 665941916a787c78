import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { surveySummariesQuery, type SurveyQuestionSummary, type SurveySummary, type TextAnswer } from './queries';
import { Stat } from './widgets';
import { Button } from '../ui/Button';

const TYPE_LABEL: Record<SurveyQuestionSummary['type'], string> = {
  text: 'short text',
  longtext: 'long text',
  choice: 'one choice',
  multi: 'several choices',
  scale: 'scale',
  number: 'number',
};

/** Text answers shown a page at a time. */
export const TEXT_PAGE = 10;

/** A figure with at most two decimals, without trailing zeros; a dash for none. */
const figure = (x: number | null): string => (x === null ? '–' : String(Math.round(x * 100) / 100));
/** A share as a percentage with at most one decimal. */
const percent = (x: number): string => `${Math.round(x * 1000) / 10}%`;

/**
 * The Surveys tab of a study's results: each survey question summarised across the counted
 * participants (docs/researchers.md, "Survey summaries"), computed on the server.
 */
export function SurveyResults({
  studyId,
  version,
  stage,
}: {
  studyId: string;
  version: number | null;
  /** The stage counted (null: every stage). */
  stage: string | null;
}) {
  const q = useQuery(surveySummariesQuery(studyId, version, stage));
  if (q.isPending) return <p className="text-slate-400">Summarising the survey answers…</p>;
  if (q.isError)
    return (
      <p role="alert" className="text-rose-300">
        {(q.error as Error).message}
      </p>
    );
  if (q.data.surveys.length === 0)
    return (
      <p className="rounded-lg border border-slate-800 p-4 text-sm text-slate-400">
        This study has no survey{version === null ? '' : ` in version ${version}`}.
      </p>
    );
  return (
    <div className="flex flex-col gap-8">
      {q.data.surveys.map((s) => (
        <Survey key={`${s.item}\u0000${s.versions.join(',')}`} survey={s} />
      ))}
    </div>
  );
}

function Survey({ survey }: { survey: SurveySummary }) {
  const headingId = `survey-${survey.item}-${survey.versions.join('-')}`;
  return (
    <section
      aria-labelledby={headingId}
      data-testid={`survey-${survey.item}`}
      data-versions={survey.versions.join(',')}
    >
      <div className="mb-3 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h2 id={headingId} className="text-lg font-semibold text-white">
          {survey.title || survey.item}
        </h2>
        <span className="font-mono text-xs text-slate-400">{survey.item}</span>
        <span className="text-xs text-slate-400">
          version{survey.versions.length === 1 ? '' : 's'} {survey.versions.join(', ')}
        </span>
        <span className="text-sm text-slate-300" data-testid="respondents">
          {survey.respondents} respondent{survey.respondents === 1 ? '' : 's'}
        </span>
      </div>
      {survey.respondents === 0 && (
        <p className="mb-3 text-sm text-slate-400">No counted participant has submitted this survey yet.</p>
      )}
      <ol className="grid items-start gap-3 lg:grid-cols-2">
        {survey.questions.map((question, i) => (
          <Question key={question.id} q={question} n={i + 1} respondents={survey.respondents} />
        ))}
      </ol>
    </section>
  );
}

function Question({ q, n, respondents }: { q: SurveyQuestionSummary; n: number; respondents: number }) {
  return (
    <li
      className="min-w-0 rounded-lg border border-slate-800 bg-slate-900/60 p-3"
      data-testid={`survey-question-${q.id}`}
      data-answered={q.answered}
    >
      <h3 className="text-sm font-semibold text-slate-100">
        <span className="text-slate-400">{n}. </span>
        {q.prompt}
      </h3>
      <p className="mb-2 mt-0.5 text-xs text-slate-400">
        <span className="font-mono">{q.id}</span> · {TYPE_LABEL[q.type]}
        {q.required ? ' · required' : ''} · {q.answered} of {respondents} answered
        {q.skipped > 0 ? `, ${q.skipped} left it empty` : ''}
        {q.unreadable > 0 ? `, ${q.unreadable} stored answers do not fit the question` : ''}
      </p>
      {q.summary === 'choice' && <Choices q={q} />}
      {q.summary === 'numeric' && <Numbers q={q} />}
      {q.summary === 'text' && <Texts q={q} />}
    </li>
  );
}

/** One bar per option: its count and share. */
function Choices({ q }: { q: Extract<SurveyQuestionSummary, { summary: 'choice' }> }) {
  return (
    <>
      <ul className="flex flex-col gap-1" aria-label={`Answers to ${q.id}`}>
        {q.options.map((o) => (
          <li
            key={o.option}
            className="grid grid-cols-[minmax(0,1fr)_6rem_4.5rem] items-center gap-2 text-sm sm:grid-cols-[minmax(0,1fr)_10rem_5rem]"
            data-option={o.option}
            data-count={o.count}
          >
            <span className="truncate text-slate-200" title={o.option}>
              {o.option}
            </span>
            <span aria-hidden className="h-2.5 overflow-hidden rounded bg-slate-800">
              <span className="block h-full bg-sky-400" style={{ width: `${o.share * 100}%` }} />
            </span>
            <span className="text-right tabular-nums text-slate-200">
              {o.count} <span className="text-xs text-slate-400">({percent(o.share)})</span>
            </span>
          </li>
        ))}
      </ul>
      {q.type === 'multi' && q.answered > 0 && (
        <p className="mt-1 text-xs text-slate-400">Several options per answer: shares add up to more than 100%.</p>
      )}
    </>
  );
}

/** More distinct values than this are drawn in ranges. */
const MAX_BARS = 12;

/** The count of each value, or of ranges of values when there are many; a scale shows every point. */
function valueBars(q: Extract<SurveyQuestionSummary, { summary: 'numeric' }>): { label: string; count: number }[] {
  if (q.counts.length <= MAX_BARS || q.scale) return q.counts.map((c) => ({ label: figure(c.value), count: c.count }));
  const min = q.counts[0].value;
  const max = q.counts[q.counts.length - 1].value;
  const width = (max - min) / 10;
  const bins = Array.from({ length: 10 }, (_, i) => ({
    label: `${figure(min + i * width)}–${figure(min + (i + 1) * width)}`,
    count: 0,
  }));
  for (const c of q.counts) bins[Math.min(9, Math.floor((c.value - min) / width))].count += c.count;
  return bins;
}

function Numbers({ q }: { q: Extract<SurveyQuestionSummary, { summary: 'numeric' }> }) {
  const bars = valueBars(q);
  const most = Math.max(1, ...bars.map((b) => b.count));
  return (
    <>
      <div className="mb-2 grid grid-cols-2 gap-2 sm:grid-cols-4">
        <Stat label="n" value={q.dist.n} />
        <Stat label="Mean" value={figure(q.dist.mean)} />
        <Stat label="Median" value={figure(q.dist.median)} />
        <Stat label="Range" value={q.dist.n ? `${figure(q.dist.min)}–${figure(q.dist.max)}` : '–'} />
      </div>
      {q.scale?.labels && (
        <p className="mb-1 flex justify-between text-xs text-slate-400">
          <span>
            {q.scale.min}: {q.scale.labels[0]}
          </span>
          <span>
            {q.scale.max}: {q.scale.labels[1]}
          </span>
        </p>
      )}
      <ul className="flex flex-col gap-0.5" aria-label={`Distribution of ${q.id}`}>
        {bars.map((b) => (
          <li
            key={b.label}
            className="grid grid-cols-[5.5rem_minmax(0,1fr)_2.5rem] items-center gap-2 text-xs"
            data-value={b.label}
            data-count={b.count}
          >
            <span className="truncate text-right tabular-nums text-slate-300">{b.label}</span>
            <span aria-hidden className="h-2 overflow-hidden rounded bg-slate-800">
              <span className="block h-full bg-violet-400" style={{ width: `${(100 * b.count) / most}%` }} />
            </span>
            <span className="tabular-nums text-slate-200">{b.count}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** The text answers with who gave them: searchable, a page at a time. */
function Texts({ q }: { q: Extract<SurveyQuestionSummary, { summary: 'text' }> }) {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(0);
  const needle = search.trim().toLowerCase();
  const found: TextAnswer[] = needle
    ? q.answers.filter((a) => a.text.toLowerCase().includes(needle) || a.participant.toLowerCase().includes(needle))
    : q.answers;
  const pages = Math.max(1, Math.ceil(found.length / TEXT_PAGE));
  const at = Math.min(page, pages - 1);
  const shown = found.slice(at * TEXT_PAGE, (at + 1) * TEXT_PAGE);
  if (q.answers.length === 0) return <p className="text-sm text-slate-400">No answer yet.</p>;
  return (
    <div className="flex flex-col gap-2">
      <input
        type="search"
        className="h-8 w-full rounded-md border border-slate-700 bg-slate-950 px-2 text-sm text-slate-100 sm:w-64"
        placeholder="Search answers or participants"
        aria-label={`Search the answers to ${q.id}`}
        value={search}
        onChange={(e) => {
          setSearch(e.target.value);
          setPage(0);
        }}
      />
      <p className="text-xs text-slate-400" role="status" data-testid={`text-count-${q.id}`}>
        {found.length === 0
          ? `No answer contains "${search.trim()}".`
          : `${at * TEXT_PAGE + 1}–${at * TEXT_PAGE + shown.length} of ${found.length} answer${found.length === 1 ? '' : 's'}`}
      </p>
      <ul className="flex flex-col gap-1.5" aria-label={`Answers to ${q.id}`}>
        {shown.map((a) => (
          <li
            key={a.sessionId}
            className="rounded-md bg-slate-950/60 px-2 py-1.5 text-sm"
            data-participant={a.participant}
          >
            <span className="block break-all font-mono text-xs text-slate-400">{a.participant}</span>
            <span className="whitespace-pre-wrap break-words text-slate-100">{a.text}</span>
          </li>
        ))}
      </ul>
      {pages > 1 && (
        <nav className="flex items-center gap-2" aria-label={`Pages of the answers to ${q.id}`}>
          <Button disabled={at === 0} onClick={() => setPage(at - 1)}>
            Previous
          </Button>
          <span className="text-xs text-slate-400">
            Page {at + 1} of {pages}
          </span>
          <Button disabled={at >= pages - 1} onClick={() => setPage(at + 1)}>
            Next
          </Button>
        </nav>
      )}
    </div>
  );
}
