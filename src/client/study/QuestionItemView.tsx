import { useEffect, useRef, useState, type ClipboardEvent, type ReactNode } from 'react';
import type { LogEvent } from '../../core/log/events';
import type { SessionItem } from '../../core/protocol/api';
import { parseNumber } from '../../core/questions/judge';
import type { PublicQuestion } from '../../core/questions/schema';
import { ApiError } from '../api';
import { postResponse, type LogPosition } from './api';
import { pastedText } from './paste';
import { Button } from '../ui/Button';
import { MathText } from './MathText';

type QuestionSessionItem = Extract<SessionItem, { kind: 'question' }>;

/** What the view needs of the outbox: logging, and the last seq sent with the answer. */
export interface QuestionLog extends LogPosition {
  append(kind: string, data: Record<string, unknown>): LogEvent;
}

/** How long typing pauses before the answer box's text is logged. */
const INPUT_LOG_DELAY_MS = 600;

/**
 * A question item: one question, or a block of several on one screen, each answered and judged
 * on its own (its place in the block is the answer's `index`). The participant moves on once
 * every question is answered.
 */
export function QuestionItemView({
  log,
  sessionId,
  token,
  item,
  resume,
  notice,
  giveUp,
  onNext,
}: {
  log: QuestionLog;
  sessionId: string;
  token: string;
  item: QuestionSessionItem;
  resume: readonly LogEvent[];
  notice: ReactNode;
  giveUp: ReactNode;
  onNext: (reason: string) => void;
}) {
  const count = item.questions.length;
  const [sent, setSent] = useState<boolean[]>(() =>
    item.questions.map((_, i) => resume.some((e) => e.kind === 'question.submit' && Number(e.data.index ?? 0) === i)),
  );
  const allSent = sent.every(Boolean);
  const answered = sent.filter(Boolean).length;
  const title = item.title || (item.block ? 'Questions' : 'Question');
  return (
    <div className="flex h-full flex-col overflow-y-auto">
      {notice}
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-5 p-6">
        <div className="flex items-center gap-3">
          <h1 className="text-lg font-semibold text-white">{title}</h1>
          {item.practice && (
            <span className="rounded bg-amber-500/20 px-2 py-0.5 text-xs font-semibold text-amber-200">Practice</span>
          )}
          {item.block && (
            <span className="text-sm text-slate-400" data-testid="block-progress">
              {answered} of {count} answered
            </span>
          )}
          <div className="ml-auto">{!allSent && giveUp}</div>
        </div>
        {item.questions.map((q, i) => (
          <QuestionCard
            key={i}
            log={log}
            sessionId={sessionId}
            token={token}
            itemId={item.id}
            q={q}
            index={item.block ? i : null}
            count={count}
            resume={resume}
            onSent={() => setSent((s) => s.map((v, j) => v || j === i))}
          />
        ))}
        {(item.block || allSent) && (
          <div className="flex items-center gap-3">
            {allSent && (
              <p role="status" className="text-sm text-emerald-300">
                {item.block ? 'All your answers are recorded.' : 'Your answer is recorded.'}
              </p>
            )}
            {item.block && !allSent && <p className="text-sm text-slate-400">Answer every question to go on.</p>}
            <Button tone="primary" disabled={!allSent} onClick={() => onNext('answered')}>
              Next
            </Button>
          </div>
        )}
      </div>
    </div>
  );
}

/**
 * One question: the prompt with its math, then choices (radio buttons), a number box or a
 * free-text box. Choice changes, the box's text (after typing pauses), focus and blur, and the
 * submission are logged (with `index` in a block); the answer goes to the server once.
 */
function QuestionCard({
  log,
  sessionId,
  token,
  itemId,
  q,
  index,
  count,
  resume,
  onSent,
}: {
  log: QuestionLog;
  sessionId: string;
  token: string;
  itemId: string;
  q: PublicQuestion;
  index: number | null;
  count: number;
  resume: readonly LogEvent[];
  onSent: () => void;
}) {
  const at = index ?? 0;
  const mine = resume.filter((e) => e.kind.startsWith('question.') && Number(e.data.index ?? 0) === at);
  const earlier = mine.find((e) => e.kind === 'question.submit');
  const lastChoice = [...mine].reverse().find((e) => e.kind === 'question.choice');
  const lastInput = [...mine].reverse().find((e) => e.kind === 'question.input');
  const [choice, setChoice] = useState<string | null>(
    typeof lastChoice?.data.label === 'string' ? lastChoice.data.label : null,
  );
  const [text, setText] = useState(typeof lastInput?.data.text === 'string' ? lastInput.data.text : '');
  const [state, setState] = useState<
    { kind: 'editing' } | { kind: 'sending' } | { kind: 'sent' } | { kind: 'error'; message: string }
  >(earlier ? { kind: 'sent' } : { kind: 'editing' });
  const [hint, setHint] = useState<string | null>(null);
  const pending = useRef<{ timer: ReturnType<typeof setTimeout>; text: string } | null>(null);
  const where = index === null ? { item: itemId } : { item: itemId, index };
  const name = index === null ? `q-${itemId}` : `q-${itemId}-${index}`;

  const flushInput = () => {
    const p = pending.current;
    if (!p) return;
    clearTimeout(p.timer);
    pending.current = null;
    log.append('question.input', { ...where, text: p.text });
  };
  // Typing not yet logged is logged when the item goes away.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => () => flushInput(), []);

  const onType = (value: string) => {
    setText(value);
    setHint(null);
    if (pending.current) clearTimeout(pending.current.timer);
    pending.current = { text: value, timer: setTimeout(flushInput, INPUT_LOG_DELAY_MS) };
  };
  const onPaste = (e: ClipboardEvent<HTMLElement>) => {
    const data = pastedText(e, itemId, index === null ? { field: 'answer' } : { field: 'answer', index });
    if (data) log.append('text.paste', data);
  };
  const focusEvents = {
    onFocus: () => log.append('question.focus', where),
    onBlur: () => {
      flushInput();
      log.append('question.blur', where);
    },
  };

  const submit = async () => {
    let answer: { choice: string } | { text: string };
    if (q.answerKind === 'choice') {
      if (choice === null) return setHint('Pick an answer first.');
      answer = { choice };
    } else {
      if (q.answerKind === 'number' && parseNumber(text) === undefined)
        return setHint('Enter one number, like 4.95, -0.5 or 6.02e23 (no units).');
      if (text.trim() === '') return setHint('Write your answer first.');
      answer = { text };
    }
    flushInput();
    setState({ kind: 'sending' });
    try {
      const r = await postResponse(
        sessionId,
        token,
        'answers',
        { item: itemId, ...(index === null ? {} : { index }), answer },
        log,
      );
      log.append('question.submit', { ...where, ...answer, verdict: r.verdict });
      setState({ kind: 'sent' });
      onSent();
    } catch (e) {
      if (e instanceof ApiError && e.code === 'already_answered') {
        setState({ kind: 'sent' });
        onSent();
        return;
      }
      setState({ kind: 'error', message: (e as Error).message });
    }
  };

  const sent = state.kind === 'sent';
  const busy = sent || state.kind === 'sending';
  const headingId = `${name}-heading`;
  const content = (
    <>
      {index !== null && (
        <h2 id={headingId} className="text-sm font-semibold uppercase tracking-wider text-slate-400">
          Question {index + 1} of {count}
        </h2>
      )}
      <div
        data-testid="question-prompt"
        className="flex flex-col gap-4 rounded-xl border border-slate-800 bg-slate-900/70 p-5 text-slate-100"
      >
        <MathText text={q.prompt} />
        {(q.images ?? []).map((im) => (
          <img key={im.src} src={im.src} alt={im.alt} className="max-h-80 max-w-full self-center rounded" />
        ))}
      </div>
      <AnswerInput
        q={q}
        name={name}
        choice={choice}
        text={text}
        busy={busy}
        onChoose={(label) => {
          setChoice(label);
          setHint(null);
          log.append('question.choice', { ...where, label });
        }}
        onType={onType}
        onPaste={onPaste}
        focusEvents={focusEvents}
      />
      {hint && (
        <p role="alert" className="text-sm text-amber-300">
          {hint}
        </p>
      )}
      {state.kind === 'error' && (
        <p role="alert" className="text-sm text-rose-300">
          {state.message}
        </p>
      )}
      {index !== null && sent ? (
        <p role="status" className="text-sm text-emerald-300">
          Answer {index + 1} is recorded.
        </p>
      ) : (
        !sent && (
          <div className="flex items-center gap-3">
            <Button tone="primary" disabled={state.kind === 'sending'} onClick={() => void submit()}>
              {state.kind === 'sending' ? 'Sending…' : index === null ? 'Submit answer' : `Submit answer ${index + 1}`}
            </Button>
          </div>
        )
      )}
    </>
  );
  if (index === null) return content;
  return (
    <section
      aria-labelledby={headingId}
      data-testid="block-question"
      data-index={index}
      className="flex flex-col gap-4 border-t border-slate-800 pt-5 first-of-type:border-t-0 first-of-type:pt-0"
    >
      {content}
    </section>
  );
}

const inputClass =
  'w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2 text-slate-100 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500';

/** The answer's control by the question's kind: choices as radio buttons, a number box, or a free-text box. */
function AnswerInput({
  q,
  name,
  choice,
  text,
  busy,
  onChoose,
  onType,
  onPaste,
  focusEvents,
}: {
  q: PublicQuestion;
  /** The radio group's name, one per question on the page. */
  name: string;
  choice: string | null;
  text: string;
  busy: boolean;
  onChoose: (label: string) => void;
  onType: (value: string) => void;
  onPaste: (e: ClipboardEvent<HTMLElement>) => void;
  focusEvents: { onFocus: () => void; onBlur: () => void };
}) {
  return (
    <>
      {q.answerKind === 'choice' && (
        <fieldset className="flex flex-col gap-2" disabled={busy}>
          <legend className="mb-2 text-sm text-slate-400">Choose one answer</legend>
          {(q.choices ?? []).map((c) => (
            <label
              key={c.label}
              className={`flex cursor-pointer items-start gap-3 rounded-lg border px-4 py-3 ${choice === c.label ? 'border-sky-500 bg-sky-950/50' : 'border-slate-800 bg-slate-900/50 hover:border-slate-600'}`}
            >
              <input
                type="radio"
                name={name}
                value={c.label}
                checked={choice === c.label}
                className="mt-1"
                onChange={() => onChoose(c.label)}
                {...focusEvents}
              />
              <span className="font-semibold text-slate-300">{c.label}.</span>
              <span className="text-slate-100">
                <MathText text={c.text} />
              </span>
            </label>
          ))}
        </fieldset>
      )}
      {q.answerKind === 'number' && (
        <label className="flex flex-col gap-2 text-sm text-slate-300">
          Your answer (a number)
          <input
            className={`${inputClass} max-w-xs`}
            inputMode="decimal"
            autoComplete="off"
            value={text}
            disabled={busy}
            onChange={(e) => onType(e.target.value)}
            onPaste={onPaste}
            {...focusEvents}
          />
        </label>
      )}
      {q.answerKind === 'text' && (
        <label className="flex flex-col gap-2 text-sm text-slate-300">
          Your answer (write your reasoning; math between $ signs, like $x^2$)
          <textarea
            className={`${inputClass} min-h-48 font-mono text-sm`}
            value={text}
            disabled={busy}
            onChange={(e) => onType(e.target.value)}
            onPaste={onPaste}
            {...focusEvents}
          />
        </label>
      )}
    </>
  );
}
