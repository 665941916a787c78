import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { LogEvent } from '../../core/log/events';
import type { AnswerResult, SessionItem } from '../../core/protocol/api';
import { parseNumber } from '../../core/questions/judge';
import { ApiError, getJson } from '../api';
import { Button } from '../ui/Button';
import { MathText } from './MathText';

type QuestionSessionItem = Extract<SessionItem, { kind: 'question' }>;

/** What the view needs of the outbox: logging, and the last seq sent with the answer. */
export interface QuestionLog {
  append(kind: string, data: Record<string, unknown>): LogEvent;
  readonly lastSeq: number;
}

/** How long typing pauses before the answer box's text is logged. */
const INPUT_LOG_DELAY_MS = 600;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends the answer; the server judges it (the browser never has the answer). Retried with the
 * same key when the network fails or the events that reached this item are still on their way.
 */
async function submitAnswer(sessionId: string, token: string, item: string, answer: { choice: string } | { text: string }, lastSeq: number): Promise<AnswerResult> {
  const key = crypto.randomUUID();
  const body = JSON.stringify({ key, item, answer, lastSeq });
  for (let attempt = 0; ; attempt++) {
    try {
      return await getJson<AnswerResult>(`/api/sessions/${encodeURIComponent(sessionId)}/answers`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body });
    } catch (e) {
      const pending = e instanceof ApiError && e.code === 'events_pending';
      const retry = pending || (e instanceof ApiError && (e.status === 0 || e.status >= 500));
      if (!retry) throw e;
      if (attempt >= (pending ? 20 : 5)) throw new Error('The server cannot be reached, so your answer was not recorded. Check your connection and submit again.');
      await sleep(pending ? 500 : Math.min(8000, 400 * 2 ** attempt));
    }
  }
}

/**
 * A question item: the prompt with its math, then choices (radio buttons), a number box or a
 * free-text box. Choice changes, the box's text (after typing pauses), focus and blur, and the
 * submission are logged; the answer goes to the server once, and the participant moves on.
 */
export function QuestionItemView({ log, sessionId, token, item, resume, notice, giveUp, onNext }: {
  log: QuestionLog; sessionId: string; token: string; item: QuestionSessionItem; resume: readonly LogEvent[];
  notice: ReactNode; giveUp: ReactNode; onNext: (reason: string) => void;
}) {
  const q = item.question;
  const earlier = resume.find((e) => e.kind === 'question.submit');
  const lastChoice = [...resume].reverse().find((e) => e.kind === 'question.choice');
  const lastInput = [...resume].reverse().find((e) => e.kind === 'question.input');
  const [choice, setChoice] = useState<string | null>(typeof lastChoice?.data.label === 'string' ? lastChoice.data.label : null);
  const [text, setText] = useState(typeof lastInput?.data.text === 'string' ? lastInput.data.text : '');
  const [state, setState] = useState<{ kind: 'editing' } | { kind: 'sending' } | { kind: 'sent' } | { kind: 'error'; message: string }>(earlier ? { kind: 'sent' } : { kind: 'editing' });
  const [hint, setHint] = useState<string | null>(null);
  const pending = useRef<{ timer: ReturnType<typeof setTimeout>; text: string } | null>(null);

  const flushInput = () => {
    const p = pending.current;
    if (!p) return;
    clearTimeout(p.timer);
    pending.current = null;
    log.append('question.input', { item: item.id, text: p.text });
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
  const focusEvents = {
    onFocus: () => log.append('question.focus', { item: item.id }),
    onBlur: () => { flushInput(); log.append('question.blur', { item: item.id }); },
  };

  const submit = async () => {
    let answer: { choice: string } | { text: string };
    if (q.answerKind === 'choice') {
      if (choice === null) return setHint('Pick an answer first.');
      answer = { choice };
    } else {
      if (q.answerKind === 'number' && parseNumber(text) === undefined) return setHint('Enter one number, like 4.95, -0.5 or 6.02e23 (no units).');
      if (text.trim() === '') return setHint('Write your answer first.');
      answer = { text };
    }
    flushInput();
    setState({ kind: 'sending' });
    try {
      const r = await submitAnswer(sessionId, token, item.id, answer, log.lastSeq);
      log.append('question.submit', { item: item.id, ...answer, verdict: r.verdict });
      setState({ kind: 'sent' });
    } catch (e) {
      if (e instanceof ApiError && e.code === 'already_answered') return setState({ kind: 'sent' });
      setState({ kind: 'error', message: (e as Error).message });
    }
  };

  const sent = state.kind === 'sent';
  const inputClass = 'w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2 text-slate-100 focus:border-sky-500 focus:outline-none';
  return (
    <div className="flex h-full flex-col overflow-y-auto">
      {notice}
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-5 p-6">
        <div className="flex items-center gap-3">
          <h1 className="text-lg font-semibold text-white">Question</h1>
          {item.practice && <span className="rounded bg-amber-500/20 px-2 py-0.5 text-xs font-semibold text-amber-200">Practice</span>}
          <div className="ml-auto">{!sent && giveUp}</div>
        </div>
        <div data-testid="question-prompt" className="flex flex-col gap-4 rounded-xl border border-slate-800 bg-slate-900/70 p-5 text-slate-100">
          <MathText text={q.prompt} />
          {(q.images ?? []).map((im) => <img key={im.src} src={im.src} alt={im.alt} className="max-h-80 max-w-full self-center rounded" />)}
        </div>
        {q.answerKind === 'choice' && (
          <fieldset className="flex flex-col gap-2" disabled={sent || state.kind === 'sending'}>
            <legend className="mb-2 text-sm text-slate-400">Choose one answer</legend>
            {(q.choices ?? []).map((c) => (
              <label key={c.label} className={`flex cursor-pointer items-start gap-3 rounded-lg border px-4 py-3 ${choice === c.label ? 'border-sky-500 bg-sky-950/50' : 'border-slate-800 bg-slate-900/50 hover:border-slate-600'}`}>
                <input type="radio" name={`q-${item.id}`} value={c.label} checked={choice === c.label} className="mt-1"
                  onChange={() => { setChoice(c.label); setHint(null); log.append('question.choice', { item: item.id, label: c.label }); }} {...focusEvents} />
                <span className="font-semibold text-slate-300">{c.label}.</span>
                <span className="text-slate-100"><MathText text={c.text} /></span>
              </label>
            ))}
          </fieldset>
        )}
        {q.answerKind === 'number' && (
          <label className="flex flex-col gap-2 text-sm text-slate-300">Your answer (a number)
            <input className={`${inputClass} max-w-xs`} inputMode="decimal" autoComplete="off" value={text} disabled={sent || state.kind === 'sending'} onChange={(e) => onType(e.target.value)} {...focusEvents} />
          </label>
        )}
        {q.answerKind === 'text' && (
          <label className="flex flex-col gap-2 text-sm text-slate-300">Your answer (write your reasoning; math between $ signs, like $x^2$)
            <textarea className={`${inputClass} min-h-48 font-mono text-sm`} value={text} disabled={sent || state.kind === 'sending'} onChange={(e) => onType(e.target.value)} {...focusEvents} />
          </label>
        )}
        {hint && <p role="alert" className="text-sm text-amber-300">{hint}</p>}
        {state.kind === 'error' && <p role="alert" className="text-sm text-rose-300">{state.message}</p>}
        <div className="flex items-center gap-3">
          {sent
            ? <><p role="status" className="text-sm text-emerald-300">Your answer is recorded.</p><Button tone="primary" onClick={() => onNext('answered')}>Next</Button></>
            : <Button tone="primary" disabled={state.kind === 'sending'} onClick={() => void submit()}>{state.kind === 'sending' ? 'Sending…' : 'Submit answer'}</Button>}
        </div>
      </div>
    </div>
  );
}
