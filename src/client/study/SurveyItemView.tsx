import { useEffect, useRef, useState } from 'react';
import type { LogEvent } from '../../core/log/events';
import type { SessionItem } from '../../core/protocol/api';
import type { SurveyQuestion } from '../../core/study/schema';
import {
  SURVEY_LONGTEXT_MAX,
  SURVEY_TEXT_MAX,
  checkSurveyAnswers,
  scaleRange,
  type SurveyValue,
} from '../../core/study/survey';
import { ApiError } from '../api';
import { Button } from '../ui/Button';
import { Markdown } from '../ui/Markdown';
import { postResponse, type LogPosition } from './api';

type SurveySessionItem = Extract<SessionItem, { kind: 'survey' }>;
type Value = SurveyValue | null;

export interface SurveyLog extends LogPosition {
  append(kind: string, data: Record<string, unknown>): LogEvent;
}

const INPUT_LOG_DELAY_MS = 600;
const field =
  'w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2 text-slate-100 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500';

/**
 * A survey on one screen. Each answer's change is logged (`survey.answer`; text once typing
 * pauses); Submit checks the answers with the server's rule (`core/study/survey.ts`), names any
 * problem beside its question, and sends them once.
 */
export function SurveyItemView({
  log,
  sessionId,
  token,
  item,
  resume,
  onNext,
}: {
  log: SurveyLog;
  sessionId: string;
  token: string;
  item: SurveySessionItem;
  resume: readonly LogEvent[];
  onNext: (reason: string) => void;
}) {
  const [values, setValues] = useState<Record<string, Value>>(() => {
    const out: Record<string, Value> = {};
    for (const e of resume)
      if (e.kind === 'survey.answer' && typeof e.data.question === 'string')
        out[e.data.question] = e.data.value as Value;
    return out;
  });
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [state, setState] = useState<{ kind: 'editing' | 'sending' | 'sent' } | { kind: 'error'; message: string }>(
    resume.some((e) => e.kind === 'survey.submit') ? { kind: 'sent' } : { kind: 'editing' },
  );
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const latest = useRef(values);
  latest.current = values;

  const logAnswer = (question: string) => {
    const t = timers.current.get(question);
    if (t) clearTimeout(t);
    timers.current.delete(question);
    log.append('survey.answer', { item: item.id, question, value: latest.current[question] ?? null });
  };
  useEffect(
    () => () => {
      for (const q of [...timers.current.keys()]) logAnswer(q);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  );

  const set = (q: SurveyQuestion, value: Value, typed = false) => {
    latest.current = { ...latest.current, [q.id]: value };
    setValues(latest.current);
    setProblems((p) => {
      const { [q.id]: _gone, ...rest } = p;
      return rest;
    });
    if (!typed) {
      logAnswer(q.id);
      return;
    }
    const t = timers.current.get(q.id);
    if (t) clearTimeout(t);
    timers.current.set(
      q.id,
      setTimeout(() => logAnswer(q.id), INPUT_LOG_DELAY_MS),
    );
  };

  const submit = async () => {
    for (const q of [...timers.current.keys()]) logAnswer(q);
    const answers = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== ''));
    const checked = checkSurveyAnswers(item, answers);
    if (!checked.ok) {
      setProblems(Object.fromEntries(checked.problems.map((p) => [p.question, p.message])));
      return;
    }
    setState({ kind: 'sending' });
    try {
      await postResponse(sessionId, token, 'survey', { item: item.id, answers: checked.answers }, log);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'already_answered')) {
        setState({ kind: 'error', message: (e as Error).message });
        return;
      }
    }
    log.append('survey.submit', { item: item.id, answers: checked.answers });
    setState({ kind: 'sent' });
    onNext('answered');
  };

  const done = state.kind === 'sent';
  const count = Object.keys(problems).length;
  return (
    <div className="flex h-full flex-col overflow-y-auto">
      <form
        className="mx-auto flex w-full max-w-3xl flex-col gap-5 p-6"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        data-testid="survey"
      >
        <h1 className="text-2xl font-semibold text-white">{item.title || 'A few questions'}</h1>
        {item.intro && (
          <div className="text-slate-200">
            <Markdown text={item.intro} />
          </div>
        )}
        {item.questions.map((q, i) => (
          <SurveyField
            key={q.id}
            q={q}
            n={i + 1}
            value={values[q.id] ?? null}
            problem={problems[q.id]}
            disabled={done || state.kind === 'sending'}
            onChange={(v, typed) => set(q, v, typed)}
          />
        ))}
        {count > 0 && (
          <p role="alert" className="text-sm text-amber-300">
            {count === 1 ? 'One answer needs' : `${count} answers need`} your attention (marked above).
          </p>
        )}
        {state.kind === 'error' && (
          <p role="alert" className="text-sm text-rose-300">
            {state.message}
          </p>
        )}
        <div className="flex items-center gap-3">
          {done ? (
            <>
              <p role="status" className="text-sm text-emerald-300">
                Your answers are recorded.
              </p>
              <Button tone="primary" onClick={() => onNext('answered')}>
                Next
              </Button>
            </>
          ) : (
            <Button tone="primary" type="submit" disabled={state.kind === 'sending'}>
              {state.kind === 'sending' ? 'Sending…' : 'Submit answers'}
            </Button>
          )}
        </div>
      </form>
    </div>
  );
}

/**
 * One question as participants see it; the study editor's preview renders the same component
 * (`idPrefix` keeps its element ids apart from the editor's other surveys).
 */
export function SurveyField({
  q,
  n,
  value,
  problem,
  disabled,
  onChange,
  idPrefix = 'survey',
}: {
  q: SurveyQuestion;
  n: number;
  value: Value;
  problem?: string;
  disabled: boolean;
  onChange: (v: Value, typed?: boolean) => void;
  idPrefix?: string;
}) {
  const id = `${idPrefix}-${q.id}`;
  const errorId = `${id}-problem`;
  const described = problem ? { 'aria-describedby': errorId, 'aria-invalid': true } : {};
  const label = (
    <>
      {n}. {q.prompt}
      {q.required ? (
        <span className="text-rose-300" aria-hidden>
          {' '}
          *
        </span>
      ) : (
        <span className="text-slate-400"> (optional)</span>
      )}
    </>
  );
  let control: React.ReactNode;
  if (q.type === 'text' || q.type === 'longtext' || q.type === 'number') {
    const props = {
      id,
      disabled,
      ...described,
      'aria-required': q.required,
      value: value === null ? '' : String(value),
    };
    control =
      q.type === 'longtext' ? (
        <textarea
          {...props}
          className={`${field} min-h-28`}
          maxLength={SURVEY_LONGTEXT_MAX}
          onChange={(e) => onChange(e.target.value, true)}
        />
      ) : q.type === 'text' ? (
        <input
          {...props}
          className={field}
          maxLength={SURVEY_TEXT_MAX}
          autoComplete="off"
          onChange={(e) => onChange(e.target.value, true)}
        />
      ) : (
        <input
          {...props}
          className={`${field} max-w-xs`}
          inputMode="decimal"
          autoComplete="off"
          onChange={(e) => {
            const t = e.target.value.trim();
            onChange(t === '' ? null : Number.isFinite(Number(t)) ? Number(t) : e.target.value, true);
          }}
        />
      );
    return (
      <div className="flex flex-col gap-2">
        <label htmlFor={id} className="text-slate-100">
          {label}
        </label>
        {control}
        {problem && (
          <p id={errorId} className="text-sm text-amber-300">
            {q.type === 'number' && typeof value === 'string' ? 'must be a number' : problem}
          </p>
        )}
      </div>
    );
  }
  let options: { value: string | number; text: string }[];
  if (q.type === 'scale') {
    const { min, max } = scaleRange(q);
    options = Array.from({ length: max - min + 1 }, (_, i) => ({ value: min + i, text: String(min + i) }));
  } else options = (q.options ?? []).map((o) => ({ value: o, text: o }));
  const multi = q.type === 'multi';
  const picked = (v: string | number) => (multi ? Array.isArray(value) && value.includes(v as string) : value === v);
  return (
    <fieldset className="flex flex-col gap-2" disabled={disabled} {...described}>
      <legend className="mb-2 text-slate-100">
        {label}
        {multi && <span className="text-sm text-slate-400"> — pick any</span>}
      </legend>
      <div className={q.type === 'scale' ? 'flex flex-wrap items-center gap-2' : 'flex flex-col gap-2'}>
        {q.type === 'scale' && q.labels && <span className="text-sm text-slate-400">{q.labels[0]}</span>}
        {options.map((o) => (
          <label
            key={o.value}
            className={`flex cursor-pointer items-center gap-2 rounded-lg border px-3 py-2 ${picked(o.value) ? 'border-sky-500 bg-sky-950/50' : 'border-slate-800 bg-slate-900/50 hover:border-slate-600'}`}
          >
            <input
              type={multi ? 'checkbox' : 'radio'}
              name={id}
              value={String(o.value)}
              checked={picked(o.value)}
              onChange={() => {
                if (!multi) return onChange(o.value);
                const list = Array.isArray(value) ? value : [];
                const next = list.includes(o.value as string)
                  ? list.filter((x) => x !== o.value)
                  : [...list, o.value as string];
                onChange(next.length ? next : null);
              }}
            />
            <span className="text-slate-100">{o.text}</span>
          </label>
        ))}
        {q.type === 'scale' && q.labels && <span className="text-sm text-slate-400">{q.labels[1]}</span>}
      </div>
      {problem && (
        <p id={errorId} className="text-sm text-amber-300">
          {problem}
        </p>
      )}
    </fieldset>
  );
}
