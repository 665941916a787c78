/** The study's items in the editor: added from one table of templates, moved, removed and edited. */
import { useContext, useMemo } from 'react';
import type { FieldProblem } from '../../../core/study/fieldProblems';
import { games } from '../../../games';
import { Button } from '../../ui/Button';
import type { DefItem as Item } from '../pool';
import { ProblemOf } from '../editorFields';
import { fieldName } from './fieldNames';
import { ItemFields } from './ItemFields';

/** Each kind of item the editor adds, and the item it starts as (`n`: its place, for a fresh id). */
export const ITEM_TEMPLATES: readonly { kind: Item['kind']; label: string; make: (n: number) => Item }[] = [
  { kind: 'task', label: 'task', make: (n) => ({ kind: 'task', id: `task-${n}`, collection: 'samples', task: '' }) },
  {
    kind: 'game',
    label: 'game',
    make: (n) => ({ kind: 'game', id: `game-${n}`, game: Object.keys(games)[0], seed: 0 }),
  },
  { kind: 'page', label: 'page', make: (n) => ({ kind: 'page', id: `page-${n}`, title: '', markdown: '' }) },
  {
    kind: 'question',
    label: 'question',
    make: (n) => ({ kind: 'question', id: `question-${n}`, collection: 'science', question: '' }),
  },
  {
    kind: 'pool',
    label: 'pool',
    make: (n) => ({ kind: 'pool', id: `pool-${n}`, title: '', candidates: [], draw: 5, target: { solves: 2 } }),
  },
  {
    kind: 'survey',
    label: 'survey',
    make: (n) => ({
      kind: 'survey',
      id: `survey-${n}`,
      title: 'About you',
      questions: [{ id: 'age', prompt: 'How old are you?', type: 'number', min: 18, max: 120 }],
    }),
  },
];

/**
 * The items, in order. `fieldProblems` are the page's problems; `own` those a pool or a survey
 * shows beside its own fields (the rest are listed under their item).
 */
export function ItemsSection({
  items,
  onChange,
  fieldProblems,
  own,
}: {
  items: readonly Item[];
  onChange: (items: Item[]) => void;
  fieldProblems: readonly FieldProblem[];
  own: readonly FieldProblem[];
}) {
  const problemOf = useContext(ProblemOf);
  const ids = useMemo(
    () => new Set(items.flatMap((x) => [x.id, ...(x.kind === 'pool' ? x.candidates.map((c) => c.id) : [])])),
    [items],
  );
  const move = (i: number, by: number) => {
    const next = [...items];
    const [x] = next.splice(i, 1);
    next.splice(Math.max(0, Math.min(next.length, i + by)), 0, x);
    onChange(next);
  };
  return (
    <section className="flex flex-col gap-2">
      <div className="flex items-center gap-2">
        <h2 className="font-semibold text-white">Items</h2>
        <span className="text-xs text-slate-500">{items.length}</span>
        <div className="ml-auto flex flex-wrap gap-1">
          {ITEM_TEMPLATES.map((t) => (
            <Button key={t.kind} onClick={() => onChange([...items, t.make(items.length + 1)])}>
              Add {t.label}
            </Button>
          ))}
        </div>
      </div>
      {items.length === 0 && (
        <p className="rounded-lg border border-dashed border-slate-700 p-4 text-sm text-slate-400">
          No items yet: add grid tasks, games and instruction pages.
        </p>
      )}
      {problemOf('items') && (
        <p className="text-xs text-rose-300" data-testid="field-problem" data-field="items">
          {problemOf('items')}
        </p>
      )}
      <ol className="flex flex-col gap-2">
        {items.map((item, i) => (
          <li
            key={i}
            className={`rounded-lg border bg-slate-900/60 p-3 ${fieldProblems.some((p) => p.path.startsWith(`items[${i}]`)) ? 'border-rose-700' : 'border-slate-800'}`}
          >
            <div className="mb-2 flex items-center gap-2 text-xs text-slate-400">
              <span className="rounded bg-slate-800 px-1.5 py-0.5 uppercase">{item.kind}</span>
              <span>#{i + 1}</span>
              <div className="ml-auto flex gap-1">
                <Button
                  tone="ghost"
                  aria-label={`Move item ${i + 1} up`}
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                >
                  ↑
                </Button>
                <Button
                  tone="ghost"
                  aria-label={`Move item ${i + 1} down`}
                  disabled={i === items.length - 1}
                  onClick={() => move(i, 1)}
                >
                  ↓
                </Button>
                <Button
                  tone="ghost"
                  aria-label={`Remove item ${i + 1}`}
                  onClick={() => onChange(items.filter((_, k) => k !== i))}
                >
                  Remove
                </Button>
              </div>
            </div>
            <ItemFields
              item={item}
              index={i}
              usedIds={ids}
              onChange={(x) => onChange(items.map((y, k) => (k === i ? x : y)))}
            />
            {/* A pool and a survey show their own problems beside their fields; the rest are listed under the item. */}
            <ItemProblems problems={fieldProblems.filter((p) => !own.some((o) => o.path === p.path))} index={i} />
          </li>
        ))}
      </ol>
    </section>
  );
}

/** An item's problems, under its fields, each named by the field it is about. */
function ItemProblems({ problems, index }: { problems: readonly FieldProblem[]; index: number }) {
  const mine = problems.filter((p) => p.path === `items[${index}]` || p.path.startsWith(`items[${index}].`));
  if (!mine.length) return null;
  return (
    <ul className="mt-2 flex flex-col gap-0.5 text-xs text-rose-300">
      {mine.map((p) => (
        <li key={p.path} data-testid="field-problem" data-field={p.path}>
          {fieldName(p.path).replace(/^Item \d+(, )?/, '') || 'This item'}: {p.message}
        </li>
      ))}
    </ul>
  );
}
