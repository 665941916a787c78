/** An item's fields in the study editor, by kind: task, game, page, question, pool, survey. */
import { useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { DEFAULT_DESCRIBE_PROMPT } from '../../../core/study/schema';
import { useArc3Games } from '../Arc3Playtest';
import { collectionsQuery } from '../../tasks/queries';
import { TaskPicker } from '../TaskPicker';
import { QuestionPicker } from '../QuestionPicker';
import { Button } from '../../ui/Button';
import { questionCollectionsQuery } from '../queries';
import { PoolFields } from '../PoolFields';
import type { DefItem as Item } from '../pool';
import { area, input } from '../editorFields';
import { SurveyBuilder } from '../SurveyBuilder';
import { GamePicker, gameEntries } from '../GamePicker';

/** An item's fields; `index` is where the item sits in the study (`items[2]`), for its fields' problems. */
export function ItemFields({
  item,
  index,
  usedIds,
  onChange,
}: {
  item: Item;
  index: number;
  usedIds: ReadonlySet<string>;
  onChange: (i: Item) => void;
}) {
  const path = `items[${index}]`;
  const collections = useQuery(collectionsQuery);
  const arc3 = useArc3Games();
  const questionCollections = useQuery({ ...questionCollectionsQuery, enabled: item.kind === 'question' });
  /** A game's name on its button: title, id and levels, or the id alone when this server does not have it. */
  const gameLabel = (id: string) => {
    if (!id) return 'Choose a game…';
    const entry = gameEntries(arc3.data?.games ?? []).find((g) => g.id === id);
    return entry ? `${entry.title} (${entry.id}) · ${entry.levels ?? '?'} levels` : `${id} (not on this server)`;
  };
  const idField = (
    <label className="flex flex-col gap-1 text-xs text-slate-400">
      Item id
      <input className={input} value={item.id} onChange={(e) => onChange({ ...item, id: e.target.value })} />
    </label>
  );
  if (item.kind === 'pool')
    return <PoolFields item={item} path={path} idField={idField} usedIds={usedIds} onChange={onChange} />;
  if (item.kind === 'page') {
    return (
      <div className="grid gap-2 md:grid-cols-[200px_1fr]">
        <div className="flex flex-col gap-2">
          {idField}
          <label className="flex flex-col gap-1 text-xs text-slate-400">
            Page title
            <input
              className={input}
              value={item.title ?? ''}
              onChange={(e) => onChange({ ...item, title: e.target.value })}
            />
          </label>
        </div>
        <textarea
          className={area}
          aria-label="Page text (Markdown)"
          value={item.markdown}
          onChange={(e) => onChange({ ...item, markdown: e.target.value })}
        />
      </div>
    );
  }
  if (item.kind === 'survey') return <SurveyBuilder item={item} index={index} idField={idField} onChange={onChange} />;
  const practice = (
    <label className="flex items-center gap-2 pt-5 text-xs text-slate-300">
      <input
        type="checkbox"
        checked={item.practice ?? false}
        onChange={(e) => onChange({ ...item, practice: e.target.checked })}
      />{' '}
      Practice (never counts)
    </label>
  );
  const describe =
    item.kind === 'task' || item.kind === 'game' ? (
      <label className="flex items-center gap-2 pt-5 text-xs text-slate-300">
        <input
          type="checkbox"
          checked={!!item.describe}
          onChange={(e) =>
            onChange({ ...item, describe: e.target.checked ? { prompt: DEFAULT_DESCRIBE_PROMPT } : undefined })
          }
        />
        Ask for a written description
      </label>
    ) : null;
  if (item.kind === 'game')
    return (
      <GameFields
        item={item}
        idField={idField}
        practice={practice}
        describe={describe}
        gameLabel={gameLabel}
        onChange={onChange}
      />
    );
  if (item.kind === 'question' && item.questions)
    return (
      <QuestionBlockFields
        item={item}
        questions={item.questions}
        idField={idField}
        practice={practice}
        onChange={onChange}
      />
    );
  if (item.kind === 'question')
    return (
      <QuestionFields
        item={item}
        idField={idField}
        practice={practice}
        collections={questionCollections.data}
        onChange={onChange}
      />
    );
  return (
    <TaskFields
      item={item}
      idField={idField}
      practice={practice}
      describe={describe}
      collections={collections.data ?? []}
      onChange={onChange}
    />
  );
}

type KindOf<K extends Item['kind']> = Extract<Item, { kind: K }>;

/** A game item: the game (chosen in the game picker), its seed, practice and the written description. */
function GameFields({
  item,
  idField,
  practice,
  describe,
  gameLabel,
  onChange,
}: {
  item: KindOf<'game'>;
  idField: ReactNode;
  practice: ReactNode;
  describe: ReactNode;
  gameLabel: (id: string) => string;
  onChange: (i: Item) => void;
}) {
  const [picking, setPicking] = useState(false);
  return (
    <div className="grid gap-2 md:grid-cols-5">
      {idField}
      <div className="flex flex-col gap-1 text-xs text-slate-400 md:col-span-2">
        <span id={`game-of-${item.id}`}>Game</span>
        <button
          type="button"
          onClick={() => setPicking(true)}
          aria-labelledby={`game-of-${item.id} game-choice-${item.id} game-action-${item.id}`}
          className={`${input} flex items-center justify-between gap-2 text-left`}
        >
          <span id={`game-choice-${item.id}`} className={`truncate ${item.game ? 'text-slate-100' : 'text-slate-300'}`}>
            {gameLabel(item.game)}
          </span>
          {/* A space between the choice and the action, so the visible words read as the name does. */}{' '}
          <span id={`game-action-${item.id}`} className="text-slate-300">
            {item.game ? 'Change' : 'Browse'}
          </span>
        </button>
      </div>
      <label className="flex flex-col gap-1 text-xs text-slate-400">
        Seed
        <input
          type="number"
          className={input}
          value={item.seed ?? 0}
          onChange={(e) => onChange({ ...item, seed: Number(e.target.value) })}
        />
      </label>
      {practice}
      {describe}
      {picking && (
        <GamePicker
          initial={item.game}
          onClose={() => setPicking(false)}
          onChoose={(game) => onChange({ ...item, game })}
        />
      )}
    </div>
  );
}

/** A block of questions on one screen: its title and its questions, in order, each removable. */
function QuestionBlockFields({
  item,
  questions,
  idField,
  practice,
  onChange,
}: {
  item: KindOf<'question'>;
  questions: NonNullable<KindOf<'question'>['questions']>;
  idField: ReactNode;
  practice: ReactNode;
  onChange: (i: Item) => void;
}) {
  const [picking, setPicking] = useState(false);
  const refs = questions;
  const collection = refs[refs.length - 1]?.collection ?? 'science';
  return (
    <div className="flex flex-col gap-2">
      <div className="grid gap-2 md:grid-cols-4">
        {idField}
        <label className="flex flex-col gap-1 text-xs text-slate-400">
          Block title (optional)
          <input
            className={input}
            value={item.title ?? ''}
            onChange={(e) => onChange({ ...item, title: e.target.value || undefined })}
          />
        </label>
        {practice}
      </div>
      <ol className="flex flex-col gap-1 text-sm" aria-label={`Questions of ${item.id}`}>
        {refs.map((r, k) => (
          <li
            key={`${r.collection}/${r.question}`}
            className="flex items-center gap-2 rounded border border-slate-800 px-2 py-1"
          >
            <span className="text-slate-400">{k + 1}.</span>
            <span className="font-mono text-slate-100">
              {r.collection} / {r.question}
            </span>
            <Button
              tone="ghost"
              className="ml-auto"
              aria-label={`Remove question ${r.question} from ${item.id}`}
              onClick={() =>
                onChange(
                  refs.length === 2
                    ? {
                        ...item,
                        questions: undefined,
                        collection: refs[1 - k].collection,
                        question: refs[1 - k].question,
                      }
                    : { ...item, questions: refs.filter((_, j) => j !== k) },
                )
              }
            >
              Remove
            </Button>
          </li>
        ))}
      </ol>
      <div>
        <Button onClick={() => setPicking(true)}>Add a question to the block</Button>
      </div>
      {picking && (
        <QuestionPicker
          collection={collection}
          initial=""
          onClose={() => setPicking(false)}
          onChoose={(id) => {
            setPicking(false);
            onChange({ ...item, questions: [...refs, { collection, question: id }] });
          }}
        />
      )}
    </div>
  );
}

/** One question: its collection and the question (chosen in the question picker), or a block begun from it. */
function QuestionFields({
  item,
  idField,
  practice,
  collections,
  onChange,
}: {
  item: KindOf<'question'>;
  idField: ReactNode;
  practice: ReactNode;
  collections: readonly { id: string; name: string; count: number }[] | undefined;
  onChange: (i: Item) => void;
}) {
  const [picking, setPicking] = useState(false);
  /** The picker adds a question to make a block (else it replaces the item's question). */
  const [blocking, setBlocking] = useState(false);
  const single = { collection: item.collection ?? '', question: item.question ?? '' };
  return (
    <div className="grid gap-2 md:grid-cols-4">
      {idField}
      <label className="flex flex-col gap-1 text-xs text-slate-400">
        Question collection
        <select
          aria-label="Question collection"
          className={input}
          value={single.collection}
          onChange={(e) => onChange({ ...item, collection: e.target.value, question: '' })}
        >
          {(collections ?? []).map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} · {c.count}
            </option>
          ))}
          {!collections?.some((c) => c.id === single.collection) && (
            <option value={single.collection}>{item.collection} (not on this server)</option>
          )}
        </select>
      </label>
      <div className="flex flex-col gap-1 text-xs text-slate-400">
        <span id={`question-of-${item.id}`}>Question</span>
        <button
          type="button"
          onClick={() => setPicking(true)}
          aria-labelledby={`question-of-${item.id} question-choice-${item.id} question-action-${item.id}`}
          className={`${input} flex items-center justify-between gap-2 text-left`}
        >
          <span
            id={`question-choice-${item.id}`}
            className={item.question ? 'font-mono text-slate-100' : 'text-slate-300'}
          >
            {item.question || 'Choose a question…'}
          </span>
          {/* A space between the choice and the action, so the visible words read as the name does. */}{' '}
          <span id={`question-action-${item.id}`} className="text-slate-300">
            {item.question ? 'Change' : 'Browse'}
          </span>
        </button>
      </div>
      {practice}
      {single.question && (
        <div className="md:col-span-4">
          <Button
            onClick={() => {
              setBlocking(true);
              setPicking(true);
            }}
          >
            Add another question (a block on one screen)
          </Button>
        </div>
      )}
      {picking && (
        <QuestionPicker
          collection={single.collection}
          initial={single.question}
          onClose={() => {
            setPicking(false);
            setBlocking(false);
          }}
          onChoose={(id) => {
            // The item may turn into a block, whose own picker must not open in this one's place.
            setPicking(false);
            setBlocking(false);
            onChange(
              blocking
                ? {
                    ...item,
                    collection: undefined,
                    question: undefined,
                    questions: [single, { collection: single.collection, question: id }],
                  }
                : { ...item, question: id },
            );
          }}
        />
      )}
    </div>
  );
}

/** A grid task: its collection and the task with its tests (chosen in the task picker). */
function TaskFields({
  item,
  idField,
  practice,
  describe,
  collections,
  onChange,
}: {
  item: KindOf<'task'>;
  idField: ReactNode;
  practice: ReactNode;
  describe: ReactNode;
  collections: readonly { id: string; name: string }[];
  onChange: (i: Item) => void;
}) {
  const [picking, setPicking] = useState(false);
  return (
    <div className="grid gap-2 md:grid-cols-5">
      {idField}
      <label className="flex flex-col gap-1 text-xs text-slate-400">
        Collection
        <select
          aria-label="Collection"
          className={input}
          value={item.collection}
          onChange={(e) => onChange({ ...item, collection: e.target.value, task: '' })}
        >
          {(collections ?? []).map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </label>
      <div className="flex flex-col gap-1 text-xs text-slate-400 md:col-span-2">
        <span id={`task-of-${item.id}`}>Task</span>
        <button
          type="button"
          onClick={() => setPicking(true)}
          aria-labelledby={`task-of-${item.id} task-choice-${item.id} task-action-${item.id}`}
          className={`${input} flex items-center justify-between gap-2 text-left`}
        >
          <span id={`task-choice-${item.id}`} className={item.task ? 'font-mono text-slate-100' : 'text-slate-300'}>
            {item.task
              ? `${item.task}${item.tests ? ` · test${item.tests.length === 1 ? '' : 's'} ${item.tests.map((t) => t + 1).join(', ')}` : ''}`
              : 'Choose a task…'}
          </span>
          {/* A space between the choice and the action, so the visible words read as the name does. */}{' '}
          <span id={`task-action-${item.id}`} className="text-slate-300">
            {item.task ? 'Change' : 'Browse'}
          </span>
        </button>
      </div>
      {practice}
      {describe}
      {picking && (
        <TaskPicker
          collection={item.collection}
          initial={{ task: item.task, tests: item.tests }}
          onClose={() => setPicking(false)}
          onChoose={(c) => onChange({ ...item, task: c.task, tests: c.tests })}
        />
      )}
    </div>
  );
}
