import { useId, useState } from 'react';
import { MAX_NOTE, type Grade, type GradeInput } from '../../core/grading/grade';
import type { GradingQuestion } from '../../core/protocol/grading';
import { MathText } from '../study/MathText';
import { Button } from '../ui/Button';

const inputClass =
  'rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-100 focus:border-sky-500 focus:outline-none';

/** A question as a grader reads it: the prompt with its math and images, the expected answer and the reference solution. */
export function GradingQuestionView({ q, compact = false }: { q: GradingQuestion; compact?: boolean }) {
  return (
    <div className="flex flex-col gap-3">
      <div
        data-testid="grading-prompt"
        className="flex flex-col gap-3 rounded-xl border border-slate-800 bg-slate-900/70 p-4 text-slate-100"
      >
        <MathText text={q.prompt} />
        {(q.images ?? []).map((im) => (
          <img key={im.src} src={im.src} alt={im.alt} className="max-h-64 max-w-full self-center rounded" />
        ))}
        {q.choices && (
          <ul className="flex flex-col gap-1 text-sm">
            {q.choices.map((c) => (
              <li key={c.label}>
                <span className="font-semibold text-slate-300">{c.label}.</span> <MathText text={c.text} />
              </li>
            ))}
          </ul>
        )}
      </div>
      {!compact && (q.expected !== undefined || q.rubric?.solution) && (
        <details className="rounded-lg border border-slate-800 bg-slate-900/40 px-4 py-2 text-sm text-slate-200" open>
          <summary className="cursor-pointer text-xs font-semibold uppercase tracking-wide text-slate-400">
            Reference
          </summary>
          <div className="mt-2 flex flex-col gap-2" data-testid="grading-reference">
            {q.expected !== undefined && (
              <div className="flex flex-wrap items-baseline gap-2">
                <span className="text-slate-400">Expected answer:</span>
                <MathText text={`$${q.expected}$`} />
              </div>
            )}
            {q.rubric?.solution && (
              <div>
                <span className="text-slate-400">Reference solution:</span>
                <MathText text={q.rubric.solution} />
              </div>
            )}
          </div>
        </details>
      )}
    </div>
  );
}

/** A grade being edited: points as typed per criterion (or correct / incorrect), notes. */
interface Draft {
  readonly points: string[];
  readonly notes: string[];
  readonly correct: boolean | null;
  readonly note: string;
}

function draftOf(q: GradingQuestion, g: Grade | null): Draft {
  const n = q.rubric?.criteria.length ?? 0;
  return {
    points: Array.from({ length: n }, (_, i) => (g?.criteria[i] ? String(g.criteria[i].points) : '')),
    notes: Array.from({ length: n }, (_, i) => g?.criteria[i]?.note ?? ''),
    correct: q.rubric ? null : g ? g.pass : null,
    note: g?.note ?? '',
  };
}

/** The grade to send, or what to fix first (checked again, and for good, on the server). */
function inputOf(q: GradingQuestion, d: Draft): { ok: true; input: GradeInput } | { ok: false; message: string } {
  if (!q.rubric) {
    if (d.correct === null) return { ok: false, message: 'Mark the answer correct or incorrect first.' };
    return { ok: true, input: { correct: d.correct, note: d.note } };
  }
  const criteria = [];
  for (let i = 0; i < q.rubric.criteria.length; i++) {
    const max = q.rubric.criteria[i].points;
    const text = d.points[i].trim();
    const x = Number(text);
    if (text === '' || !Number.isFinite(x) || x < 0 || x > max)
      return { ok: false, message: `Criterion ${i + 1}: give points from 0 to ${max}.` };
    // The server keeps points to two decimals, and refuses more rather than round a grader's figure.
    if (Math.abs(x * 100 - Math.round(x * 100)) > 1e-6)
      return {
        ok: false,
        message: `Criterion ${i + 1}: ${text} has more than two decimals; give at most two, e.g. ${Math.floor(x * 100) / 100} or ${Math.ceil(x * 100) / 100}.`,
      };
    criteria.push({ points: x, note: d.notes[i] });
  }
  return { ok: true, input: { criteria, note: d.note } };
}

/**
 * The grading form: each rubric criterion with its points (0 to the criterion's points) and a
 * note, or correct / incorrect for an item without a rubric, and a note on the whole answer.
 * `onSave` sends the grade; its error, if any, is shown.
 */
export function GradeForm({
  q,
  grade,
  onSave,
  saveLabel = 'Save grade',
  extra,
}: {
  q: GradingQuestion;
  grade: Grade | null;
  onSave: (input: GradeInput) => Promise<void>;
  saveLabel?: string;
  extra?: React.ReactNode;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(q, grade));
  const [state, setState] = useState<{ kind: 'idle' | 'saving' | 'saved' } | { kind: 'error'; message: string }>({
    kind: 'idle',
  });
  const id = useId();
  const set = (f: (d: Draft) => Draft) => {
    setDraft(f);
    if (state.kind === 'saved') setState({ kind: 'idle' });
  };
  const total = q.rubric
    ? draft.points.reduce((s, p) => s + (Number.isFinite(Number(p)) ? Number(p) : 0), 0)
    : draft.correct
      ? 1
      : 0;
  const save = async () => {
    const made = inputOf(q, draft);
    if (!made.ok) return setState({ kind: 'error', message: made.message });
    setState({ kind: 'saving' });
    try {
      await onSave(made.input);
      setState({ kind: 'saved' });
    } catch (e) {
      setState({ kind: 'error', message: (e as Error).message });
    }
  };
  return (
    <form
      className="flex flex-col gap-3"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      aria-label="Grade"
    >
      {q.rubric ? (
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-semibold text-slate-200">
            Rubric{' '}
            <span className="font-normal text-slate-400">
              ({q.maxPoints} points; passes at {q.passMark})
            </span>
          </legend>
          {q.rubric.criteria.map((c, i) => (
            <div
              key={i}
              className="grid grid-cols-1 gap-2 rounded-lg border border-slate-800 bg-slate-900/50 p-3 sm:grid-cols-[1fr_auto]"
            >
              <div className="flex gap-2 text-sm text-slate-100" id={`${id}-c${i}`}>
                <span className="text-slate-400">{i + 1}.</span>
                <MathText text={c.text} />
              </div>
              <label className="flex items-center gap-2 text-sm text-slate-300">
                Points
                <input
                  type="number"
                  min={0}
                  max={c.points}
                  step="any"
                  inputMode="decimal"
                  className={`${inputClass} w-20`}
                  aria-describedby={`${id}-c${i}`}
                  aria-label={`Criterion ${i + 1} points (0 to ${c.points}): ${criterionName(c.text)}`}
                  value={draft.points[i]}
                  onChange={(e) => {
                    const v = e.target.value;
                    set((d) => ({ ...d, points: d.points.map((p, j) => (j === i ? v : p)) }));
                  }}
                />
                <span className="text-slate-400">of {c.points}</span>
              </label>
              <input
                className={`${inputClass} sm:col-span-2`}
                aria-label={`Criterion ${i + 1} note: ${criterionName(c.text)}`}
                placeholder="Note (optional)"
                value={draft.notes[i]}
                maxLength={MAX_NOTE}
                onChange={(e) => {
                  const v = e.target.value;
                  set((d) => ({ ...d, notes: d.notes.map((p, j) => (j === i ? v : p)) }));
                }}
              />
            </div>
          ))}
        </fieldset>
      ) : (
        <fieldset className="flex flex-wrap gap-3">
          <legend className="mb-1 text-sm font-semibold text-slate-200">No rubric: is the answer correct?</legend>
          {([true, false] as const).map((v) => (
            <label
              key={String(v)}
              className={`flex cursor-pointer items-center gap-2 rounded-lg border px-3 py-2 text-sm ${draft.correct === v ? 'border-sky-500 bg-sky-950/50' : 'border-slate-700'}`}
            >
              <input
                type="radio"
                name={`${id}-correct`}
                checked={draft.correct === v}
                onChange={() => set((d) => ({ ...d, correct: v }))}
              />
              {v ? 'Correct' : 'Incorrect'}
            </label>
          ))}
        </fieldset>
      )}
      <label className="flex flex-col gap-1 text-sm text-slate-300">
        Note on the answer (optional)
        <textarea
          className={`${inputClass} min-h-16`}
          value={draft.note}
          maxLength={MAX_NOTE}
          onChange={(e) => {
            const v = e.target.value;
            set((d) => ({ ...d, note: v }));
          }}
        />
      </label>
      {extra}
      <div className="flex flex-wrap items-center gap-3">
        <Button tone="primary" type="submit" disabled={state.kind === 'saving'}>
          {state.kind === 'saving' ? 'Saving…' : saveLabel}
        </Button>
        <span className="text-sm tabular-nums text-slate-300" data-testid="grade-total">
          Total {Math.round(total * 100) / 100} of {q.maxPoints}
        </span>
        {state.kind === 'saved' && (
          <span role="status" className="text-sm text-emerald-300">
            Saved.
          </span>
        )}
        {state.kind === 'error' && (
          <span role="alert" className="text-sm text-rose-300">
            {state.message}
          </span>
        )}
      </div>
    </form>
  );
}

/**
 * A criterion's text as the name of its fields, so a screen reader says which criterion a points
 * field grades: one line, cut at a word near 80 characters.
 */
function criterionName(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= 80) return line;
  const cut = line.slice(0, 80);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 40))}…`;
}
