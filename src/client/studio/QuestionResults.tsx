import type { Interval, QuestionGroupResult, QuestionResult, StudyResults } from './queries';
import { SortableTable, formatMs, type Column } from './widgets';
import { QUESTION_TYPE_LABEL } from './questionTypes';

/** A percentage with one decimal, as the question results show accuracy. */
export const pct1 = (x: number | null | undefined): string =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(1)}%`;

/** "20.8–93.9%", or a dash. */
export const ciText = (ci: Interval | null): string =>
  ci ? `${(ci.low * 100).toFixed(1)}–${(ci.high * 100).toFixed(1)}%` : '–';

/**
 * Accuracy drawn on a 0-100% track: the interval as a band, the accuracy as a tick. The figures
 * are in the text beside it; the drawing is hidden from screen readers.
 */
export function CiBar({
  value,
  ci,
  tone = 'sky',
}: {
  value: number | null;
  ci: Interval | null;
  tone?: 'sky' | 'violet';
}) {
  if (value === null || !ci) return null;
  const band = tone === 'sky' ? 'bg-sky-500/40' : 'bg-violet-500/40';
  const tick = tone === 'sky' ? 'bg-sky-200' : 'bg-violet-200';
  return (
    <span aria-hidden className="relative mt-1 block h-2 w-24 rounded bg-slate-800">
      <span
        className={`absolute inset-y-0 rounded ${band}`}
        style={{ left: `${ci.low * 100}%`, width: `${Math.max(1, (ci.high - ci.low) * 100)}%` }}
      />
      <span className={`absolute -top-0.5 h-3 w-0.5 ${tick}`} style={{ left: `calc(${value * 100}% - 1px)` }} />
    </span>
  );
}

/** Accuracy, its count, and answers awaiting grading. */
function Accuracy({
  correct,
  judged,
  accuracy,
  ci,
  awaiting,
  testId,
}: {
  correct: number;
  judged: number;
  accuracy: number | null;
  ci: Interval | null;
  awaiting: number;
  testId?: string;
}) {
  return (
    <span className="inline-flex flex-col items-end" data-testid={testId} data-accuracy={accuracy ?? ''}>
      {accuracy === null ? (
        <span className="text-slate-500">–</span>
      ) : (
        <span>
          <span className="font-semibold text-white">{pct1(accuracy)}</span>{' '}
          <span className="text-xs text-slate-400">
            ({correct}/{judged})
          </span>
        </span>
      )}
      <CiBar value={accuracy} ci={ci} />
      {awaiting > 0 && (
        <span className="mt-1 rounded bg-amber-500/15 px-1.5 py-0.5 text-xs text-amber-200">
          {awaiting} awaiting grading
        </span>
      )}
    </span>
  );
}

/** Points as grades give them: at most two decimals, no trailing zeros. */
const points = (x: number): string => String(Math.round(x * 100) / 100);

const TYPE_LABEL: Record<string, string> = QUESTION_TYPE_LABEL;
const FIELD_LABEL: Record<QuestionGroupResult['field'], string> = {
  all: 'All',
  subset: 'Subset',
  subject: 'Subject',
  type: 'Type',
};

/** Which options people picked: one bar per option, the answer key marked. */
function Options({ q }: { q: QuestionResult }) {
  if (q.options.length === 0)
    return (
      <span className="text-xs text-slate-500">{q.type === null ? 'collection not mounted' : TYPE_LABEL[q.type]}</span>
    );
  const picks = q.options.reduce((n, o) => n + o.count, 0) + q.otherPicks;
  return (
    <ul
      className="flex min-w-44 flex-col gap-0.5"
      aria-label={`Options picked, ${q.item}${q.testIndex ? ` question ${q.testIndex + 1}` : ''}`}
      data-testid={`question-options-${q.item}-${q.testIndex}`}
    >
      {q.options.map((o) => (
        <li
          key={o.label}
          className="flex items-center gap-2 text-xs"
          title={o.text}
          data-label={o.label}
          data-count={o.count}
          data-correct={o.correct}
        >
          <span className={`w-5 shrink-0 font-semibold ${o.correct ? 'text-emerald-300' : 'text-slate-300'}`}>
            {o.label}
          </span>
          <span aria-hidden className="h-2 w-24 shrink-0 overflow-hidden rounded bg-slate-800">
            <span
              className={`block h-full ${o.correct ? 'bg-emerald-400' : 'bg-slate-400'}`}
              style={{ width: `${picks ? (100 * o.count) / picks : 0}%` }}
            />
          </span>
          <span className="tabular-nums text-slate-200">{o.count}</span>
          {o.correct && (
            <span className="text-emerald-300">
              ✓<span className="sr-only"> correct answer</span>
            </span>
          )}
        </li>
      ))}
      {q.otherPicks > 0 && (
        <li className="text-xs text-amber-200">{q.otherPicks} picked a label the question no longer has</li>
      )}
    </ul>
  );
}

/**
 * The Questions tab of a study's results: accuracy per subset, subject and type, then per
 * question the answers, accuracy with its 95% interval, time on the item, answer changes and
 * the options picked.
 */
export function QuestionResults({ results }: { results: StudyResults }) {
  const { questions, questionGroups } = results;
  if (questions.length === 0)
    return (
      <p className="rounded-lg border border-slate-800 p-4 text-sm text-slate-400">This study has no question item.</p>
    );
  const groupColumns: Column<QuestionGroupResult>[] = [
    {
      key: 'group',
      label: 'Group',
      value: (g) => `${g.field}:${g.value}`,
      render: (g) => (
        <span>
          <span className="text-xs text-slate-400">{FIELD_LABEL[g.field]}</span>
          {g.field !== 'all' && (
            <span className="ml-2 text-slate-100">
              {g.field === 'type' ? (TYPE_LABEL[g.value] ?? g.value) : g.value}
            </span>
          )}
        </span>
      ),
    },
    { key: 'questions', label: 'Questions', value: (g) => g.questions, align: 'right' },
    { key: 'answered', label: 'Answers', value: (g) => g.answered, align: 'right' },
    {
      key: 'accuracy',
      label: 'Accuracy',
      value: (g) => g.accuracy,
      align: 'right',
      render: (g) => (
        <Accuracy
          correct={g.correct}
          judged={g.correct + g.wrong}
          accuracy={g.accuracy}
          ci={g.ci}
          awaiting={g.awaiting}
          testId={`group-accuracy-${g.field}-${g.value}`}
        />
      ),
    },
    { key: 'ci', label: '95% CI', value: (g) => g.ci?.low ?? null, align: 'right', render: (g) => ciText(g.ci) },
  ];
  const questionColumns: Column<QuestionResult>[] = [
    {
      key: 'question',
      label: 'Question',
      value: (q) => `${q.item}\u0000${q.testIndex}`,
      render: (q) => (
        <span className="flex flex-col">
          <span className="font-mono text-slate-100">
            {q.item}
            {q.testIndex > 0 || questions.some((x) => x.item === q.item && x.testIndex > 0)
              ? ` · ${q.testIndex + 1}`
              : ''}
          </span>
          <span className="font-mono text-xs text-slate-500">
            {q.collection}/{q.question}
          </span>
          <span className="mt-0.5 flex flex-wrap gap-1">
            {q.subset !== null && (
              <span className="rounded bg-slate-800 px-1.5 text-xs text-slate-300">{q.subset}</span>
            )}
            {q.subject !== null && (
              <span className="rounded bg-slate-800 px-1.5 text-xs text-slate-400">{q.subject}</span>
            )}
          </span>
        </span>
      ),
    },
    {
      key: 'answered',
      label: 'Answered',
      value: (q) => q.answered,
      align: 'right',
      render: (q) => (
        <span title={`${q.opened} of ${q.participants} participants opened the item`}>
          {q.answered}
          <span className="text-xs text-slate-500">/{q.participants}</span>
        </span>
      ),
    },
    {
      key: 'accuracy',
      label: 'Accuracy (95% CI)',
      value: (q) => q.accuracy,
      align: 'right',
      render: (q) => (
        <span className="inline-flex flex-col items-end">
          <Accuracy
            correct={q.correct}
            judged={q.correct + q.wrong}
            accuracy={q.accuracy}
            ci={q.ci}
            awaiting={q.awaiting}
            testId={`question-accuracy-${q.item}-${q.testIndex}`}
          />
          {q.ci && <span className="text-xs text-slate-400">{ciText(q.ci)}</span>}
          {q.graded > 0 && <span className="text-xs text-slate-400">{q.graded} by grading</span>}
          {q.points.mean !== null && q.maxPoints !== null && (
            <span
              className="text-xs text-slate-300"
              data-testid={`question-score-${q.item}-${q.testIndex}`}
              title={`Points of the ${q.points.n} graded answers: ${q.points.values.join(', ')}`}
            >
              mean score {points(q.points.mean)} / {points(q.maxPoints)}
            </span>
          )}
        </span>
      ),
    },
    {
      key: 'time',
      label: 'Median time',
      value: (q) => q.timeMs.median,
      align: 'right',
      render: (q) => <span data-testid={`question-time-${q.item}-${q.testIndex}`}>{formatMs(q.timeMs.median)}</span>,
    },
    {
      key: 'changed',
      label: 'Changed answer',
      value: (q) => q.changed,
      align: 'right',
      render: (q) => (
        <span
          title={`${q.changes.values.reduce((a, b) => a + b, 0)} changes in all`}
          data-testid={`question-changed-${q.item}-${q.testIndex}`}
        >
          {q.changed}
          <span className="text-xs text-slate-500">/{q.answered}</span>
        </span>
      ),
    },
    { key: 'options', label: 'Options picked', value: (q) => q.options.length, render: (q) => <Options q={q} /> },
  ];
  return (
    <section className="flex flex-col gap-4" aria-label="Question results">
      <p className="text-xs text-slate-400">
        Accuracy is correct answers over answers judged by the server (or graded); the interval is a 95% Wilson
        interval. Free responses and symbolic answers are <span className="text-amber-200">awaiting grading</span> until
        graded, and left out of accuracy. Once an answer has a final grade (Grading tab) it counts as correct when it
        passes, and its points make the question&apos;s mean score. Groups pool the answers to their questions, as if
        independent. Time runs from the item&apos;s start to its end; a change is a pick or typed answer that differs
        from the one before. Practice items, playtests and excluded sessions are left out.
      </p>
      <h2 className="text-sm font-semibold uppercase tracking-wide text-slate-300">
        Accuracy by subset, subject and type
      </h2>
      <SortableTable
        label="Accuracy by subset, subject and type"
        columns={groupColumns}
        rows={questionGroups}
        rowKey={(g) => `${g.field}\u0000${g.value}`}
        empty="No question answered yet."
      />
      <h2 className="text-sm font-semibold uppercase tracking-wide text-slate-300">Per question</h2>
      <SortableTable
        label="Questions"
        columns={questionColumns}
        rows={questions}
        rowKey={(q) => `${q.item}\u0000${q.testIndex}`}
        empty="This study has no question item."
      />
    </section>
  );
}
