import { useEffect, useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useParams } from 'wouter';
import { DEFAULT_DESCRIBE_PROMPT, StudyId, parseStudy } from '../../core/study/schema';
import { DEVICE_CLASSES, DEVICE_LABELS, type DeviceClass } from '../../core/study/devices';
import { studyFieldProblems, type FieldProblem } from '../../core/study/fieldProblems';
import { games } from '../../games';
import { useArc3Games } from './Arc3Playtest';
import { collectionsQuery } from '../tasks/queries';
import { TaskPicker } from './TaskPicker';
import { QuestionPicker } from './QuestionPicker';
import { ApiError } from '../api';
import { Button } from '../ui/Button';
import { Tabs } from './widgets';
import { Markdown } from '../ui/Markdown';
import { adminJson } from './auth';
import { RequireResearcher } from './RequireResearcher';
import { DeleteStudy } from './Curation';
import { questionCollectionsQuery, studiesQuery } from './queries';
import { PaymentFields, PoolFields } from './PoolFields';
import { editorFieldProblems, type DefItem, type EditorDefinition } from './pool';
import { Labelled, ProblemOf, area, input } from './editorFields';
import { SurveyBuilder } from './SurveyBuilder';
import { GamePicker, gameEntries } from './GamePicker';
import type { SaveStudyBody } from '../../core/protocol/requests';

type Item = DefItem;

const BLANK: EditorDefinition = {
  title: '',
  consent: '',
  instructions: '',
  items: [],
  order: 'fixed',
  trials: 3,
  limits: { itemSoftMinutes: 20, itemHardMinutes: 30, sessionMinutes: 90 },
  allowLevelReset: true,
  completion: { code: '' },
};

/** Creates a study, or edits one: a new version once a participant has run the current one. */
export function StudyEditorPage() {
  return (
    <RequireResearcher>
      <Editor />
    </RequireResearcher>
  );
}

/** What a field is called on this page, for the summary of problems above the Save button. */
const FIELD_NAMES: Record<string, string> = {
  id: 'Study id',
  title: 'Study title',
  consent: 'Consent',
  instructions: 'Instructions',
  items: 'Items',
  trials: 'Trials per test input',
  'limits.itemSoftMinutes': 'Soft limit per item',
  'limits.itemHardMinutes': 'Hard limit per item',
  'limits.sessionMinutes': 'Session limit',
  'completion.code': 'Completion code',
  'completion.redirectUrl': 'Redirect URL',
  'decline.code': 'Code for those who do not consent',
  'decline.message': 'Message for those who do not consent',
  'campaign.id': 'Campaign id',
  'payment.currency': 'Currency',
  'payment.fee': 'Fixed fee',
  'payment.bonus.perSolve': 'Bonus per candidate solved',
  'payment.bonus.perLevel': 'Bonus per game level completed',
  'payment.bonus.max': 'Most bonus per session',
};
const ITEM_FIELD_NAMES: Record<string, string> = {
  id: 'Item id',
  task: 'Task',
  collection: 'Collection',
  tests: 'Test inputs',
  game: 'Game',
  seed: 'Seed',
  title: 'Title',
  markdown: 'Page text',
  question: 'Question',
  questions: 'Questions',
  softMinutes: 'Soft limit',
  hardMinutes: 'Hard limit',
  'describe.prompt': 'Description prompt',
  candidates: 'Candidates',
  draw: 'Candidates per participant',
  target: 'Target per candidate',
  minMinutesLeft: 'Minimum minutes left',
};

/** The study's on/off settings, with their defaults, as the editor offers them. */
const SWITCHES: readonly {
  key: 'allowLevelReset' | 'showActionCounter' | 'showTimeLeft';
  on: boolean;
  label: string;
}[] = [
  { key: 'allowLevelReset', on: true, label: 'Players may reset a game level' },
  { key: 'showActionCounter', on: true, label: 'Show game players their action counter' },
  { key: 'showTimeLeft', on: false, label: 'Show participants the time left on each item' },
];

/** Where a problem is, in the page's own words: "Study title", "Item 2, Task". */
function fieldName(path: string): string {
  const item = /^items\[(\d+)\](?:\.(.*))?$/.exec(path);
  if (!item) return FIELD_NAMES[path] ?? path;
  const field = item[2] ?? '';
  const name = ITEM_FIELD_NAMES[field] ?? ITEM_FIELD_NAMES[field.split(/[.[]/)[0]] ?? field;
  return `Item ${Number(item[1]) + 1}${name ? `, ${name}` : ''}`;
}

function Editor() {
  const params = useParams<{ studyId?: string }>();
  const editing = params.studyId ?? null;
  const [, navigate] = useLocation();
  const qc = useQueryClient();
  const [id, setId] = useState(editing ?? '');
  const [def, setDef] = useState<EditorDefinition>(BLANK);
  const [view, setView] = useState<'form' | 'json'>('form');
  const [loaded, setLoaded] = useState(editing === null);
  const [problems, setProblems] = useState<string[]>([]);
  /** The server's sealing problems: counted answers a practice collection would give away. */
  const [sealing, setSealing] = useState<string[]>([]);
  const [saved, setSaved] = useState<string | null>(null);
  const studies = useQuery({ ...studiesQuery, enabled: editing !== null });

  useEffect(() => {
    if (!editing) return;
    adminJson<{ definition: EditorDefinition }>(`/api/admin/studies/${encodeURIComponent(editing)}`)
      .then((r) => {
        setDef(r.definition);
        setLoaded(true);
      })
      .catch((e: Error) => setProblems([e.message]));
  }, [editing]);

  const local = useMemo(() => parseStudy(def), [def]);
  /** The pools' and the payment's own rules: their problems show beside their fields as they are edited. */
  const own = useMemo(() => editorFieldProblems(def), [def]);
  const ids = useMemo(
    () => new Set(def.items.flatMap((x) => [x.id, ...(x.kind === 'pool' ? x.candidates.map((c) => c.id) : [])])),
    [def.items],
  );
  const idProblem = editing
    ? null
    : StudyId.safeParse(id).success
      ? null
      : 'Use 1-64 lower-case letters, digits or "-": it becomes the link /s/<id>.';
  /** Set by the first Save: from then on each field shows its problem, kept current as it is edited. */
  const [tried, setTried] = useState(false);
  const fieldProblems = useMemo<FieldProblem[]>(
    () =>
      tried
        ? [
            ...(idProblem ? [{ path: 'id', message: idProblem }] : []),
            ...own,
            ...studyFieldProblems(def).filter((p) => !own.some((o) => o.path === p.path)),
          ]
        : [],
    [tried, idProblem, own, def],
  );
  const problemOf = useMemo(
    () => (path: string) => fieldProblems.find((p) => p.path === path)?.message,
    [fieldProblems],
  );
  const set = <K extends keyof EditorDefinition>(k: K, v: EditorDefinition[K]) => {
    setDef((d) => ({ ...d, [k]: v }));
    setSaved(null);
  };
  const setItem = (i: number, item: Item) =>
    set(
      'items',
      def.items.map((x, k) => (k === i ? item : x)),
    );
  const move = (i: number, by: number) => {
    const items = [...def.items];
    const [x] = items.splice(i, 1);
    items.splice(Math.max(0, Math.min(items.length, i + by)), 0, x);
    set('items', items);
  };

  const save = async () => {
    setProblems([]);
    setSealing([]);
    setTried(true);
    if (idProblem || own.length > 0 || !local.ok) return;
    try {
      const r = await adminJson<{ id: string; version: number; created: boolean }>(
        `/api/admin/studies/${encodeURIComponent(id)}`,
        {
          method: editing ? 'PUT' : 'POST',
          body: JSON.stringify({ definition: def } satisfies SaveStudyBody),
        },
      );
      await qc.invalidateQueries({ queryKey: ['admin'] });
      setSaved(r.created ? `Saved as version ${r.version}.` : `Saved: version ${r.version} updated.`);
      if (!editing) navigate(`/studies/${encodeURIComponent(id)}/edit`, { replace: true });
    } catch (e) {
      // Answers a practice collection would give away get their own heading; the rest are listed as the server said them.
      const details = e instanceof ApiError ? e.details : undefined;
      const leaks = Array.isArray(details?.sealing)
        ? details.sealing.filter((p): p is string => typeof p === 'string')
        : [];
      const rest = Array.isArray(details?.problems)
        ? details.problems.filter((p): p is string => typeof p === 'string' && !leaks.includes(p))
        : [];
      setSealing(leaks);
      setProblems(leaks.length ? rest : [(e as Error).message]);
    }
  };

  if (!loaded) return <p className="p-6 text-slate-400">{problems[0] ?? 'Loading the study…'}</p>;
  return (
    <ProblemOf.Provider value={problemOf}>
      <div className="h-full overflow-y-auto">
        <div className="mx-auto flex max-w-5xl flex-col gap-5 p-6">
          <div className="text-sm">
            <Link href="/studies" className="text-slate-400 hover:text-white">
              Studies
            </Link>
          </div>
          <h1 className="text-xl font-semibold text-white">{editing ? `Edit study ${editing}` : 'New study'}</h1>
          <p className="text-sm text-slate-400">
            Once a participant has run a version, saving makes a new version; sessions keep the version they ran.
          </p>

          <section className="grid gap-3 md:grid-cols-2">
            <Labelled label="Study id (its link is /s/<id>)" path="id">
              {(a) => (
                <input
                  className={input}
                  {...a}
                  value={id}
                  disabled={!!editing}
                  onChange={(e) => setId(e.target.value.trim())}
                  placeholder="e.g. pilot-1"
                />
              )}
            </Labelled>
            <Labelled label="Study title" path="title">
              {(a) => (
                <input className={input} {...a} value={def.title} onChange={(e) => set('title', e.target.value)} />
              )}
            </Labelled>
          </section>

          <Tabs<'form' | 'json'>
            value={view}
            onChange={setView}
            tabs={[
              { id: 'form', label: 'Form' },
              { id: 'json', label: 'JSON' },
            ]}
          />
          {view === 'json' ? (
            <JsonView
              def={def}
              onChange={(d) => {
                setDef(d);
                setSaved(null);
              }}
            />
          ) : (
            <>
              <MarkdownField
                label="Consent (Markdown)"
                path="consent"
                value={def.consent}
                onChange={(v) => set('consent', v)}
              />
              <MarkdownField
                label="Instructions (Markdown)"
                path="instructions"
                value={def.instructions ?? ''}
                onChange={(v) => set('instructions', v)}
              />

              <section className="flex flex-col gap-2">
                <div className="flex items-center gap-2">
                  <h2 className="font-semibold text-white">Items</h2>
                  <span className="text-xs text-slate-500">{def.items.length}</span>
                  <div className="ml-auto flex gap-1">
                    <Button
                      onClick={() =>
                        set('items', [
                          ...def.items,
                          { kind: 'task', id: `task-${def.items.length + 1}`, collection: 'samples', task: '' },
                        ])
                      }
                    >
                      Add task
                    </Button>
                    <Button
                      onClick={() =>
                        set('items', [
                          ...def.items,
                          { kind: 'game', id: `game-${def.items.length + 1}`, game: Object.keys(games)[0], seed: 0 },
                        ])
                      }
                    >
                      Add game
                    </Button>
                    <Button
                      onClick={() =>
                        set('items', [
                          ...def.items,
                          { kind: 'page', id: `page-${def.items.length + 1}`, title: '', markdown: '' },
                        ])
                      }
                    >
                      Add page
                    </Button>
                    <Button
                      onClick={() =>
                        set('items', [
                          ...def.items,
                          {
                            kind: 'question',
                            id: `question-${def.items.length + 1}`,
                            collection: 'science',
                            question: '',
                          },
                        ])
                      }
                    >
                      Add question
                    </Button>
                    <Button
                      onClick={() =>
                        set('items', [
                          ...def.items,
                          {
                            kind: 'pool',
                            id: `pool-${def.items.length + 1}`,
                            title: '',
                            candidates: [],
                            draw: 5,
                            target: { solves: 2 },
                          },
                        ])
                      }
                    >
                      Add pool
                    </Button>
                    <Button
                      onClick={() =>
                        set('items', [
                          ...def.items,
                          {
                            kind: 'survey',
                            id: `survey-${def.items.length + 1}`,
                            title: 'About you',
                            questions: [{ id: 'age', prompt: 'How old are you?', type: 'number', min: 18, max: 120 }],
                          },
                        ])
                      }
                    >
                      Add survey
                    </Button>
                  </div>
                </div>
                {def.items.length === 0 && (
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
                  {def.items.map((item, i) => (
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
                            disabled={i === def.items.length - 1}
                            onClick={() => move(i, 1)}
                          >
                            ↓
                          </Button>
                          <Button
                            tone="ghost"
                            aria-label={`Remove item ${i + 1}`}
                            onClick={() =>
                              set(
                                'items',
                                def.items.filter((_, k) => k !== i),
                              )
                            }
                          >
                            Remove
                          </Button>
                        </div>
                      </div>
                      <ItemFields item={item} index={i} usedIds={ids} onChange={(x) => setItem(i, x)} />
                      {/* A pool and a survey show their own problems beside their fields; the rest are listed under the item. */}
                      <ItemProblems
                        problems={fieldProblems.filter((p) => !own.some((o) => o.path === p.path))}
                        index={i}
                      />
                    </li>
                  ))}
                </ol>
              </section>

              <section className="grid gap-3 md:grid-cols-3">
                <label className="flex flex-col gap-1 text-sm text-slate-300">
                  Order
                  <select
                    aria-label="Order"
                    className={input}
                    value={def.order ?? 'fixed'}
                    onChange={(e) => set('order', e.target.value as 'fixed' | 'shuffled')}
                  >
                    <option value="fixed">Fixed</option>
                    <option value="shuffled">Shuffled per participant (pages and practice stay)</option>
                  </select>
                </label>
                <NumberField
                  label="Trials per test input"
                  path="trials"
                  value={def.trials ?? 3}
                  onChange={(v) => set('trials', v)}
                />
                <label className="flex flex-col gap-1 text-sm text-slate-300">
                  Devices
                  <select
                    aria-label="Devices"
                    className={input}
                    value={def.devices ?? 'tablet'}
                    onChange={(e) => set('devices', e.target.value as DeviceClass)}
                  >
                    {DEVICE_CLASSES.map((d) => (
                      <option key={d} value={d}>
                        {DEVICE_LABELS[d]}
                      </option>
                    ))}
                  </select>
                </label>
                <div className="flex flex-col gap-1 pt-5 text-sm text-slate-300">
                  {SWITCHES.map(({ key, on, label }) => (
                    <label key={key} className="flex items-center gap-2">
                      <input type="checkbox" checked={def[key] ?? on} onChange={(e) => set(key, e.target.checked)} />{' '}
                      {label}
                    </label>
                  ))}
                </div>
                <NumberField
                  label="Soft limit per item (min)"
                  path="limits.itemSoftMinutes"
                  value={def.limits?.itemSoftMinutes ?? 20}
                  onChange={(v) => set('limits', { ...def.limits, itemSoftMinutes: v })}
                />
                <NumberField
                  label="Hard limit per item (min)"
                  path="limits.itemHardMinutes"
                  value={def.limits?.itemHardMinutes ?? 30}
                  onChange={(v) => set('limits', { ...def.limits, itemHardMinutes: v })}
                />
                <NumberField
                  label="Session limit (min)"
                  path="limits.sessionMinutes"
                  value={def.limits?.sessionMinutes ?? 90}
                  onChange={(v) => set('limits', { ...def.limits, sessionMinutes: v })}
                />
                <Labelled label="Completion code" path="completion.code">
                  {(a) => (
                    <input
                      className={input}
                      {...a}
                      value={def.completion.code}
                      onChange={(e) => set('completion', { ...def.completion, code: e.target.value })}
                    />
                  )}
                </Labelled>
                <Labelled
                  label="Redirect URL at the end (optional)"
                  path="completion.redirectUrl"
                  className="md:col-span-2"
                >
                  {(a) => (
                    <input
                      className={input}
                      {...a}
                      value={def.completion.redirectUrl ?? ''}
                      placeholder="https://app.prolific.com/submissions/complete?cc=CODE"
                      onChange={(e) =>
                        set('completion', { ...def.completion, redirectUrl: e.target.value || undefined })
                      }
                    />
                  )}
                </Labelled>
                <Labelled label="Code for those who do not consent (optional)" path="decline.code">
                  {(a) => (
                    <input
                      className={input}
                      {...a}
                      value={def.decline?.code ?? ''}
                      placeholder="NOCONSENT"
                      onChange={(e) => set('decline', { ...def.decline, code: e.target.value || undefined })}
                    />
                  )}
                </Labelled>
                <Labelled
                  label="Message for those who do not consent (optional, Markdown)"
                  path="decline.message"
                  className="md:col-span-2"
                >
                  {(a) => (
                    <input
                      className={input}
                      {...a}
                      value={def.decline?.message ?? ''}
                      placeholder="Thank you for considering the study."
                      onChange={(e) => set('decline', { ...def.decline, message: e.target.value || undefined })}
                    />
                  )}
                </Labelled>
              </section>
              <PaymentFields
                def={def}
                onChange={(payment, campaign) => {
                  setDef((d) => ({ ...d, payment, campaign }));
                  setSaved(null);
                }}
              />
            </>
          )}

          {(problems.length > 0 || fieldProblems.length > 0) && (
            <div
              role="alert"
              className="rounded-lg border border-rose-500/50 bg-rose-950/60 p-3 text-sm text-rose-100"
              data-testid="save-problems"
            >
              <p className="font-semibold">
                {problems.length
                  ? 'The server did not save the study:'
                  : `Not saved yet: ${fieldProblems.length === 1 ? '1 field needs' : `${fieldProblems.length} fields need`} a change (each is marked where it is).`}
              </p>
              <ul className="ml-5 mt-1 list-disc">
                {problems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
                {!problems.length &&
                  fieldProblems.map((p) => (
                    <li key={p.path}>
                      {fieldName(p.path)}: {p.message}
                    </li>
                  ))}
              </ul>
            </div>
          )}
          {sealing.length > 0 && (
            <div
              role="alert"
              className="rounded-lg border border-amber-500/50 bg-amber-950/60 p-3 text-sm text-amber-100"
              data-testid="sealing-problems"
            >
              <h2 className="font-semibold">
                Not saved: counted answers would be open to anyone through a practice collection
              </h2>
              <p className="mt-1">
                Anyone may check a practice collection's answers without limit, so a counted task must come from a
                sealed collection only. This happens when the task is in a folder mounted with{' '}
                <span className="font-mono">--practice-tasks</span>, or when one folder is mounted both as practice and
                as sealed (<span className="font-mono">--tasks</span>). Mount the folder only with{' '}
                <span className="font-mono">--tasks</span>, remove the task from the practice folder, or tick "Practice
                (never counts)" on the item.
              </p>
              <ul className="ml-5 mt-1 list-disc">
                {sealing.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            </div>
          )}
          {saved && (
            <p role="status" className="text-sm text-emerald-300">
              {saved} Participant link:{' '}
              <span className="select-all font-mono">
                {window.location.origin}/s/{id}
              </span>
            </p>
          )}
          <div className="flex justify-end gap-2 pb-8">
            {editing && (
              <Link
                href={`/studies/${encodeURIComponent(editing)}`}
                className="rounded-md border border-slate-700 px-3 py-1.5 text-sm text-slate-200"
              >
                Results
              </Link>
            )}
            <Button tone="primary" onClick={() => void save()}>
              Save study
            </Button>
          </div>
          {editing && (
            <DeleteStudy
              studyId={editing}
              sessions={studies.data?.find((s) => s.id === editing)?.sessions ?? null}
              onDeleted={() => navigate('/studies', { replace: true })}
            />
          )}
        </div>
      </div>
    </ProblemOf.Provider>
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

/**
 * The whole study as the JSON the study format reads (the same as a file in data/studies/):
 * edits here change the form, and the form's edits show here when this tab opens again.
 */
function JsonView({ def, onChange }: { def: EditorDefinition; onChange: (d: EditorDefinition) => void }) {
  const [text, setText] = useState(() => JSON.stringify(def, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <label className="flex flex-col gap-1 text-sm text-slate-300">
      Study definition (JSON)
      <textarea
        className={`${area} min-h-[28rem] text-xs`}
        value={text}
        spellCheck={false}
        aria-invalid={problem !== null}
        aria-describedby={problem ? 'json-problem' : undefined}
        onChange={(e) => {
          setText(e.target.value);
          try {
            const parsed: unknown = JSON.parse(e.target.value);
            if (
              typeof parsed !== 'object' ||
              parsed === null ||
              Array.isArray(parsed) ||
              !Array.isArray((parsed as { items?: unknown }).items)
            ) {
              throw new Error('the study is an object with an "items" list, { "title": ..., "items": [...] }');
            }
            setProblem(null);
            onChange(parsed as EditorDefinition);
          } catch (err) {
            setProblem(`This is not a study yet: ${(err as Error).message}. The form keeps the last version that was.`);
          }
        }}
      />
      {problem && (
        <span id="json-problem" role="alert" className="text-amber-300">
          {problem}
        </span>
      )}
    </label>
  );
}

function NumberField({
  label,
  path,
  value,
  onChange,
}: {
  label: string;
  path: string;
  value: number;
  onChange: (v: number) => void;
}) {
  return (
    <Labelled label={label} path={path}>
      {(a) => (
        <input
          type="number"
          className={input}
          {...a}
          value={value}
          min={1}
          onChange={(e) => onChange(Number(e.target.value))}
        />
      )}
    </Labelled>
  );
}

function MarkdownField({
  label,
  path,
  value,
  onChange,
}: {
  label: string;
  path: string;
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <section className="grid gap-3 md:grid-cols-2">
      <Labelled label={label} path={path}>
        {(a) => <textarea className={area} {...a} value={value} onChange={(e) => onChange(e.target.value)} />}
      </Labelled>
      <div className="rounded-md border border-slate-800 p-3 text-sm text-slate-200" aria-label={`${label} preview`}>
        {value.trim() ? <Markdown text={value} /> : <p className="text-slate-500">Preview</p>}
      </div>
    </section>
  );
}

/** An item's fields; `index` is where the item sits in the study (`items[2]`), for its fields' problems. */
function ItemFields({
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
  const [picking, setPicking] = useState(false);
  /** The picker adds a question to make a block (else it replaces the item's question). */
  const [blocking, setBlocking] = useState(false);
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
  if (item.kind === 'game') {
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
            <span
              id={`game-choice-${item.id}`}
              className={`truncate ${item.game ? 'text-slate-100' : 'text-slate-300'}`}
            >
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
  if (item.kind === 'question' && item.questions) {
    const refs = item.questions;
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
  if (item.kind === 'question') {
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
            {(questionCollections.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} · {c.count}
              </option>
            ))}
            {!questionCollections.data?.some((c) => c.id === single.collection) && (
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
          {(collections.data ?? []).map((c) => (
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
