/**
 * The study editor's survey item: a form per question (its prompt, answer type, id, whether it
 * must be answered, and the type's own settings: options, the ends of a scale, a number's range),
 * questions added, removed and moved, and beside it a preview drawn by the participants' own
 * component (`SurveyField`), checked by the participants' own rule (`checkSurveyAnswers`).
 *
 * It writes the study format's JSON (`SurveyItem` in core/study/schema.ts), so the editor's JSON
 * tab shows what is built here; each field's problem is the study's own check, in plain words
 * (`surveyFieldProblems`), shown beside the field as it is edited.
 */
import { useId, useMemo, useState, type ReactNode } from 'react';
import { surveyFieldProblems, type FieldProblem } from '../../core/study/fieldProblems';
import { SurveyQuestion } from '../../core/study/schema';
import { SURVEY_LONGTEXT_MAX, SURVEY_TEXT_MAX, checkSurveyAnswers, type SurveyValue } from '../../core/study/survey';
import { SurveyField } from '../study/SurveyItemView';
import { Button } from '../ui/Button';
import { Markdown } from '../ui/Markdown';
import { Labelled, area, input } from './editorFields';
import { freshQuestionId, retype, type QuestionInput, type QuestionType, type SurveyInput } from './surveyEdit';

/** The answer types, in the words of the form. */
export const QUESTION_TYPES: readonly { type: QuestionType; label: string }[] = [
  { type: 'text', label: 'Short text (one line)' },
  { type: 'longtext', label: 'Long text (a paragraph)' },
  { type: 'choice', label: 'One of several options' },
  { type: 'multi', label: 'Any of several options' },
  { type: 'scale', label: 'Scale (Likert)' },
  { type: 'number', label: 'Number' },
];

const numberOrUndefined = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

/** The survey item's fields; `index` is its place in the study, for the paths of its problems. */
export function SurveyBuilder({
  item,
  index,
  idField,
  onChange,
}: {
  item: SurveyInput;
  index: number;
  idField: ReactNode;
  onChange: (i: SurveyInput) => void;
}) {
  const path = `items[${index}]`;
  const problems = useMemo(() => surveyFieldProblems(item, index), [item, index]);
  const problemAt = (p: string) => problems.find((x) => x.path === p)?.message;
  const questions = item.questions;
  const setQuestions = (qs: QuestionInput[]) => onChange({ ...item, questions: qs });
  const move = (k: number, by: number) => {
    const qs = [...questions];
    const [q] = qs.splice(k, 1);
    qs.splice(k + by, 0, q);
    setQuestions(qs);
  };
  const listProblem = problemAt(`${path}.questions`);
  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(0,26rem)]" data-testid={`survey-builder-${item.id}`}>
      <div className="flex min-w-0 flex-col gap-3">
        <div className="grid gap-2 sm:grid-cols-[200px_1fr]">
          {idField}
          <Labelled
            small
            label="Survey title (participants see it at the top)"
            path={`${path}.title`}
            problem={problemAt(`${path}.title`)}
          >
            {(a) => (
              <input
                className={input}
                {...a}
                value={item.title ?? ''}
                onChange={(e) => onChange({ ...item, title: e.target.value })}
              />
            )}
          </Labelled>
        </div>
        <Labelled
          small
          label="Introduction (Markdown, optional)"
          path={`${path}.intro`}
          problem={problemAt(`${path}.intro`)}
        >
          {(a) => (
            <textarea
              className={`${area} min-h-16`}
              {...a}
              value={item.intro ?? ''}
              onChange={(e) => onChange({ ...item, intro: e.target.value || undefined })}
            />
          )}
        </Labelled>
        <ol className="flex flex-col gap-2" aria-label={`Questions of ${item.id}`}>
          {questions.map((q, k) => (
            <li key={k}>
              <QuestionForm
                q={q}
                k={k}
                count={questions.length}
                path={`${path}.questions[${k}]`}
                problems={problems}
                onChange={(next) => setQuestions(questions.map((x, j) => (j === k ? next : x)))}
                onMove={(by) => move(k, by)}
                onRemove={() => setQuestions(questions.filter((_, j) => j !== k))}
              />
            </li>
          ))}
        </ol>
        {listProblem && (
          <p className="text-xs text-rose-300" data-testid="field-problem" data-field={`${path}.questions`}>
            {listProblem}
          </p>
        )}
        <div>
          <Button
            onClick={() =>
              setQuestions([
                ...questions,
                { id: freshQuestionId(questions), prompt: '', type: 'text', required: false },
              ])
            }
          >
            Add a question
          </Button>
        </div>
      </div>
      <SurveyPreview item={item} />
    </div>
  );
}

/** A problem in plain words under a field that has no label of its own around it. */
function ProblemText({ id, path, children }: { id: string; path: string; children: ReactNode }) {
  return (
    <p id={id} className="text-xs text-rose-300" data-testid="field-problem" data-field={path}>
      {children}
    </p>
  );
}

/** The fields of one question; `path` is its place in the study (`items[2].questions[0]`). */
function QuestionForm({
  q,
  k,
  count,
  path,
  problems,
  onChange,
  onMove,
  onRemove,
}: {
  q: QuestionInput;
  k: number;
  count: number;
  path: string;
  problems: readonly FieldProblem[];
  onChange: (q: QuestionInput) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
}) {
  const problemAt = (field: string) => problems.find((x) => x.path === `${path}.${field}`)?.message;
  const shown = new Set(
    [
      'prompt',
      'type',
      'id',
      'required',
      'options',
      'min',
      'max',
      'labels',
      'labels[0]',
      'labels[1]',
      ...(q.options ?? []).map((_, n) => `options[${n}]`),
    ].map((f) => `${path}.${f}`),
  );
  const others = problems.filter((p) => (p.path === path || p.path.startsWith(`${path}.`)) && !shown.has(p.path));
  const n = k + 1;
  const choice = q.type === 'choice' || q.type === 'multi';
  const range = (which: 'min' | 'max', label: string, placeholder: string) => (
    <Labelled small label={label} path={`${path}.${which}`} problem={problemAt(which)}>
      {(a) => (
        <input
          type="number"
          className={input}
          {...a}
          value={q[which] ?? ''}
          placeholder={placeholder}
          step={q.type === 'scale' ? 1 : 'any'}
          onChange={(e) => onChange({ ...q, [which]: numberOrUndefined(e.target.value) })}
        />
      )}
    </Labelled>
  );
  const endLabel = (end: 0 | 1, label: string) => (
    <Labelled small label={label} path={`${path}.labels[${end}]`} problem={problemAt(`labels[${end}]`)}>
      {(a) => (
        <input
          className={input}
          {...a}
          value={q.labels?.[end] ?? ''}
          placeholder={end === 0 ? 'e.g. Very easy' : 'e.g. Very hard'}
          onChange={(e) => {
            const labels: [string, string] = [q.labels?.[0] ?? '', q.labels?.[1] ?? ''];
            labels[end] = e.target.value;
            onChange({ ...q, labels: labels[0] || labels[1] ? labels : undefined });
          }}
        />
      )}
    </Labelled>
  );
  return (
    <fieldset
      className={`flex flex-col gap-2 rounded-md border p-3 ${problems.some((p) => p.path === path || p.path.startsWith(`${path}.`)) ? 'border-rose-700' : 'border-slate-700'}`}
      data-testid="survey-question-form"
    >
      <legend className="px-1 text-xs font-semibold text-slate-300">Question {n}</legend>
      <div className="flex flex-wrap items-end gap-2">
        <Labelled
          small
          label="Prompt"
          path={`${path}.prompt`}
          problem={problemAt('prompt')}
          className="min-w-0 flex-1 basis-64"
        >
          {(a) => (
            <input
              className={input}
              {...a}
              value={q.prompt}
              placeholder="e.g. How old are you?"
              onChange={(e) => onChange({ ...q, prompt: e.target.value })}
            />
          )}
        </Labelled>
        <div className="flex gap-1">
          <Button tone="ghost" aria-label={`Move question ${n} up`} disabled={k === 0} onClick={() => onMove(-1)}>
            ↑
          </Button>
          <Button
            tone="ghost"
            aria-label={`Move question ${n} down`}
            disabled={k === count - 1}
            onClick={() => onMove(1)}
          >
            ↓
          </Button>
          <Button tone="ghost" aria-label={`Remove question ${n}`} onClick={onRemove}>
            Remove
          </Button>
        </div>
      </div>
      <div className="grid gap-2 sm:grid-cols-[minmax(13rem,1fr)_minmax(8rem,11rem)] sm:items-end">
        <Labelled small label="Answer type" path={`${path}.type`} problem={problemAt('type')}>
          {(a) => (
            <select
              className={input}
              {...a}
              value={q.type}
              onChange={(e) => onChange(retype(q, e.target.value as QuestionType))}
            >
              {QUESTION_TYPES.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.label}
                </option>
              ))}
            </select>
          )}
        </Labelled>
        <Labelled small label="Question id (in exports)" path={`${path}.id`} problem={problemAt('id')}>
          {(a) => (
            <input
              className={`${input} font-mono`}
              {...a}
              value={q.id}
              onChange={(e) => onChange({ ...q, id: e.target.value.trim() })}
            />
          )}
        </Labelled>
        <label className="flex h-8 items-center gap-2 text-sm text-slate-200 sm:col-span-2">
          <input
            type="checkbox"
            checked={q.required ?? false}
            onChange={(e) => onChange({ ...q, required: e.target.checked })}
          />{' '}
          Must be answered
        </label>
      </div>
      {(q.type === 'text' || q.type === 'longtext') && (
        <p className="text-xs text-slate-400">
          {q.type === 'text'
            ? `One line, up to ${SURVEY_TEXT_MAX} characters.`
            : `Up to ${SURVEY_LONGTEXT_MAX.toLocaleString('en')} characters.`}
        </p>
      )}
      {choice && <OptionsFields q={q} path={path} problemAt={problemAt} onChange={onChange} />}
      {q.type === 'scale' && (
        <div className="grid gap-2 sm:grid-cols-4">
          {range('min', 'From', '1')}
          {range('max', 'To', '7')}
          {endLabel(0, 'Label of the low end')}
          {endLabel(1, 'Label of the high end')}
        </div>
      )}
      {q.type === 'number' && (
        <div className="grid gap-2 sm:grid-cols-4">
          {range('min', 'Smallest answer (optional)', 'none')}
          {range('max', 'Largest answer (optional)', 'none')}
        </div>
      )}
      {others.length > 0 && (
        <ul className="flex flex-col gap-0.5 text-xs text-rose-300">
          {others.map((p) => (
            <li key={p.path} data-testid="field-problem" data-field={p.path}>
              {p.message}
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

/** The options of a choice question, each with its problem, and the button that adds one. */
function OptionsFields({
  q,
  path,
  problemAt,
  onChange,
}: {
  q: QuestionInput;
  path: string;
  /** The problem of one of the question's fields (`options`, `options[2]`), if it has one. */
  problemAt: (field: string) => string | undefined;
  onChange: (q: QuestionInput) => void;
}) {
  const uid = useId();
  const options = q.options ?? [];
  const setOptions = (next: string[]) => onChange({ ...q, options: next });
  const optionsProblem = problemAt('options');
  return (
    <fieldset
      className="flex flex-col gap-1.5"
      aria-describedby={optionsProblem ? `${uid}-options-problem` : undefined}
    >
      <legend className="mb-1 text-xs text-slate-400">
        Options ({q.type === 'choice' ? 'participants pick one' : 'participants pick any'})
      </legend>
      {options.map((o, m) => {
        const problem = problemAt(`options[${m}]`);
        return (
          <div key={m} className="flex flex-col gap-0.5">
            <div className="flex items-center gap-1">
              <input
                className={`${input} min-w-0 flex-1`}
                aria-label={`Option ${m + 1}`}
                value={o}
                aria-invalid={problem ? true : undefined}
                aria-describedby={problem ? `${uid}-option-${m}-problem` : undefined}
                onChange={(e) => setOptions(options.map((x, j) => (j === m ? e.target.value : x)))}
              />
              <Button
                tone="ghost"
                aria-label={`Remove option ${m + 1}`}
                onClick={() => setOptions(options.filter((_, j) => j !== m))}
              >
                Remove
              </Button>
            </div>
            {problem && (
              <ProblemText id={`${uid}-option-${m}-problem`} path={`${path}.options[${m}]`}>
                {problem}
              </ProblemText>
            )}
          </div>
        );
      })}
      {optionsProblem && (
        <ProblemText id={`${uid}-options-problem`} path={`${path}.options`}>
          {optionsProblem}
        </ProblemText>
      )}
      <div>
        <Button
          onClick={() => setOptions([...options, `Option ${options.length + 1}`])}
          disabled={options.length >= 50}
        >
          Add an option
        </Button>
      </div>
    </fieldset>
  );
}

/**
 * The survey as a participant sees it, drawn by the participants' component; "Check these
 * answers" applies the rule the server applies, and nothing is recorded.
 */
function SurveyPreview({ item }: { item: SurveyInput }) {
  const [values, setValues] = useState<Record<string, SurveyValue | null>>({});
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [verdict, setVerdict] = useState<string | null>(null);
  const parsed = item.questions.map((q) => SurveyQuestion.safeParse(q));
  const ready = parsed.flatMap((r) => (r.success ? [r.data] : []));
  const check = () => {
    const answers = Object.fromEntries(
      Object.entries(values).filter(([id, v]) => v !== null && v !== '' && ready.some((q) => q.id === id)),
    );
    const r = checkSurveyAnswers({ questions: ready }, answers);
    setProblems(r.ok ? {} : Object.fromEntries(r.problems.map((p) => [p.question, p.message])));
    setVerdict(
      r.ok
        ? 'These answers would be accepted.'
        : `${r.problems.length === 1 ? 'One answer needs' : `${r.problems.length} answers need`} a change (marked above).`,
    );
  };
  return (
    <section
      aria-label={`Preview of ${item.id}`}
      className="flex min-w-0 flex-col gap-4 rounded-lg border border-slate-700 bg-slate-950 p-4"
      data-testid="survey-preview"
    >
      <p className="text-xs font-semibold uppercase tracking-wide text-slate-400">Preview: what participants see</p>
      <h3 className="text-xl font-semibold text-white">{item.title || 'A few questions'}</h3>
      {item.intro && (
        <div className="text-slate-200">
          <Markdown text={item.intro} />
        </div>
      )}
      {parsed.map((r, k) =>
        r.success ? (
          <SurveyField
            key={k}
            q={r.data}
            n={k + 1}
            value={values[r.data.id] ?? null}
            problem={problems[r.data.id]}
            disabled={false}
            idPrefix={`preview-${item.id}-${k}`}
            onChange={(v) => {
              setValues((x) => ({ ...x, [r.data.id]: v }));
              setVerdict(null);
              setProblems((p) => {
                const { [r.data.id]: _gone, ...rest } = p;
                return rest;
              });
            }}
          />
        ) : (
          <p key={k} className="rounded-md border border-dashed border-slate-700 p-2 text-sm text-slate-400">
            Question {k + 1} is not finished yet: its form says what to change.
          </p>
        ),
      )}
      <div className="flex flex-wrap items-center gap-3">
        <Button onClick={check} disabled={ready.length === 0}>
          Check these answers
        </Button>
        {verdict && (
          <p
            role="status"
            className={`text-sm ${Object.keys(problems).length ? 'text-amber-300' : 'text-emerald-300'}`}
          >
            {verdict}
          </p>
        )}
      </div>
      <p className="text-xs text-slate-400">Nothing typed here is recorded.</p>
    </section>
  );
}
