/**
 * Choosing a study's question: the collection's questions searchable by id, subset, subject or
 * text, and the chosen one shown as the participant will see it (typeset math, choices), without
 * its answer.
 */
import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { PublicQuestion } from '../../core/questions/schema';
import { MathText } from '../study/MathText';
import { PickerDialog } from './PickerDialog';
import { questionsQuery } from './queries';
import { QUESTION_TYPE_LABEL } from './questionTypes';

/** Questions listed at once; a search narrows the rest. */
const SHOWN = 200;

const firstLine = (q: PublicQuestion) => q.prompt.replace(/\s+/g, ' ').slice(0, 140);

export function QuestionPicker({
  collection,
  initial,
  onChoose,
  onClose,
}: {
  collection: string;
  initial: string;
  onChoose: (id: string) => void;
  onClose: () => void;
}) {
  const q = useQuery(questionsQuery(collection));
  const [filter, setFilter] = useState('');
  const [current, setCurrent] = useState(initial);
  const matches = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return (q.data ?? []).filter(
      (x) => !f || [x.id, x.subset ?? '', x.subject ?? '', x.prompt].some((s) => s.toLowerCase().includes(f)),
    );
  }, [q.data, filter]);
  const chosen = q.data?.find((x) => x.id === current);
  return (
    <PickerDialog
      name="question"
      title={
        <>
          Choose a question from <span className="font-mono">{collection}</span>
        </>
      }
      search={filter}
      onSearch={setFilter}
      searchLabel="Search questions"
      placeholder="Search by id, subset or text"
      count={q.isSuccess ? `${matches.length} of ${q.data.length} questions` : q.isError ? '' : 'Loading…'}
      confirmLabel="Use this question"
      canConfirm={!!chosen}
      onConfirm={() => onChoose(current)}
      onClose={onClose}
    >
      <div className="min-h-0 flex-1 overflow-y-auto p-3">
        {q.isError && (
          <p role="alert" className="text-sm text-rose-300">
            {(q.error as Error).message}
          </p>
        )}
        {q.isSuccess && matches.length === 0 && (
          <p className="text-sm text-slate-300">No question matches “{filter}”.</p>
        )}
        <ul className="flex flex-col gap-1" aria-label="Questions">
          {matches.slice(0, SHOWN).map((x) => (
            <li key={x.id}>
              <button
                type="button"
                onClick={() => setCurrent(x.id)}
                aria-pressed={x.id === current}
                className={`flex w-full flex-col gap-0.5 rounded-md border px-3 py-2 text-left ${x.id === current ? 'border-sky-400 bg-sky-500/10' : 'border-slate-800 bg-slate-900/60 hover:border-slate-600'}`}
              >
                <span className="flex gap-2 text-xs text-slate-300">
                  <span className="font-mono text-slate-100">{x.id}</span>
                  <span>
                    {QUESTION_TYPE_LABEL[x.type]}
                    {x.type === 'choice' && ` (${x.choices?.length ?? 0})`}
                  </span>
                  {x.subset && <span>· {x.subset}</span>}
                  {x.subject && <span>· {x.subject}</span>}
                </span>
                <span className="truncate text-sm text-slate-200">{firstLine(x)}</span>
              </button>
            </li>
          ))}
        </ul>
        {matches.length > SHOWN && (
          <p className="mt-2 text-xs text-slate-300">{matches.length - SHOWN} more: search to narrow the list.</p>
        )}
      </div>
      <aside
        className="min-h-0 overflow-y-auto border-t border-slate-800 p-4 md:w-[420px] md:border-l md:border-t-0"
        aria-label="Chosen question"
      >
        {chosen ? (
          <div className="flex flex-col gap-3 text-slate-100" data-testid="question-picker-chosen">
            <h3 className="font-mono text-sm text-white">{chosen.id}</h3>
            <MathText text={chosen.prompt} />
            {chosen.images?.map((im) => (
              <img key={im.src} src={im.src} alt={im.alt} className="max-w-full rounded border border-slate-800" />
            ))}
            {chosen.choices && (
              <ol className="flex flex-col gap-1 text-sm">
                {chosen.choices.map((c) => (
                  <li key={c.label}>
                    <span className="font-mono text-slate-300">{c.label}.</span> <MathText text={c.text} />
                  </li>
                ))}
              </ol>
            )}
            <p className="text-xs text-slate-300">The answer stays on the server; the participant sees this.</p>
          </div>
        ) : (
          <p className="text-sm text-slate-300">{q.isSuccess ? 'Choose a question on the left.' : ''}</p>
        )}
      </aside>
    </PickerDialog>
  );
}
