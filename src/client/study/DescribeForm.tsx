import { useEffect, useId, useRef, useState } from 'react';
import type { LogEvent } from '../../core/log/events';
import { DESCRIPTION_MAX } from '../../core/protocol/requests';
import { ApiError } from '../api';
import { Button } from '../ui/Button';
import { postResponse, type LogPosition } from './api';
import { pastedText } from './paste';

const INPUT_LOG_DELAY_MS = 600;

export interface DescribeLog extends LogPosition {
  append(kind: string, data: Record<string, unknown>): LogEvent;
}

/**
 * A written description of a task's or game's rule: `first` after the first submission on a task,
 * `last` when leaving it (a game's only one). Opening, typing (when it pauses) and saving are
 * logged; the text is stored on the server before `onSaved` runs.
 */
export function DescribeForm({
  log,
  sessionId,
  token,
  item,
  stage,
  prompt,
  resume,
  titleId,
  onSaved,
}: {
  log: DescribeLog;
  sessionId: string;
  token: string;
  item: string;
  stage: 'first' | 'last';
  prompt: string;
  resume: readonly LogEvent[];
  titleId?: string;
  onSaved: () => void;
}) {
  const ids = useId();
  const headingId = titleId ?? `${ids}-title`;
  const earlier = [...resume]
    .reverse()
    .find((e) => e.kind === 'description.input' && e.data.item === item && e.data.stage === stage);
  const [text, setText] = useState(typeof earlier?.data.text === 'string' ? earlier.data.text : '');
  const [state, setState] = useState<{ kind: 'editing' | 'sending' } | { kind: 'error'; message: string }>({
    kind: 'editing',
  });
  const [hint, setHint] = useState<string | null>(null);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef(text);

  useEffect(() => {
    log.append('description.open', { item, stage });
    return () => {
      if (pending.current) clearTimeout(pending.current);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const onType = (value: string) => {
    setText(value);
    setHint(null);
    latest.current = value;
    if (pending.current) clearTimeout(pending.current);
    pending.current = setTimeout(() => {
      pending.current = null;
      log.append('description.input', { item, stage, text: latest.current });
    }, INPUT_LOG_DELAY_MS);
  };

  const save = async () => {
    const value = text.trim();
    if (value === '') return setHint('Write a description first: a sentence or two is enough.');
    if (pending.current) {
      clearTimeout(pending.current);
      pending.current = null;
    }
    setState({ kind: 'sending' });
    try {
      await postResponse(sessionId, token, 'descriptions', { item, stage, text: value }, log);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'already_answered')) {
        setState({ kind: 'error', message: (e as Error).message });
        return;
      }
    }
    log.append('description.submit', { item, stage, text: value });
    onSaved();
  };

  return (
    <form
      className="flex flex-col gap-4"
      data-testid="describe-form"
      data-stage={stage}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2 id={headingId} className="text-xl font-semibold text-white">
        {prompt}
      </h2>
      <p className="text-sm text-slate-300">
        {stage === 'first'
          ? 'You made your first submission. Before you go on, write down the rule you think the task follows, as you would explain it to someone else.'
          : 'Before the next item, write down the rule as you understand it now, as you would explain it to someone else.'}
      </p>
      <label className="flex flex-col gap-2 text-sm text-slate-300">
        Your description
        <textarea
          className="min-h-40 w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2 text-slate-100 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500"
          value={text}
          maxLength={DESCRIPTION_MAX}
          disabled={state.kind === 'sending'}
          onChange={(e) => onType(e.target.value)}
          onPaste={(e) => {
            const data = pastedText(e, item, { field: 'description', stage });
            if (data) log.append('text.paste', data);
          }}
        />
      </label>
      <p className="text-xs text-slate-400">
        {text.length} of {DESCRIPTION_MAX} characters
      </p>
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
      <div className="flex justify-end">
        <Button tone="primary" type="submit" disabled={state.kind === 'sending'}>
          {state.kind === 'sending' ? 'Saving…' : 'Save description'}
        </Button>
      </div>
    </form>
  );
}
