import { useEffect, useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useParams } from 'wouter';
import { StudyId, parseStudy } from '../../core/study/schema';
import { studyFieldProblems, type FieldProblem } from '../../core/study/fieldProblems';
import { ApiError } from '../api';
import { Button } from '../ui/Button';
import { Tabs } from './widgets';
import { adminJson } from './auth';
import { RequireResearcher } from './RequireResearcher';
import { DeleteStudy } from './Curation';
import { studiesQuery, studyDefinitionQuery } from './queries';
import { PaymentFields } from './PoolFields';
import { editorFieldProblems, type EditorDefinition } from './pool';
import { Labelled, ProblemOf, input } from './editorFields';
import type { SaveStudyBody } from '../../core/protocol/requests';
import { fieldName } from './editor/fieldNames';
import { MarkdownField } from './editor/fields';
import { ItemsSection } from './editor/ItemsSection';
import { JsonView } from './editor/JsonView';
import { SettingsSection, type SetField } from './editor/SettingsSection';

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

  // The saved definition, read once: from then on the form's copy is the one edited.
  const stored = useQuery({ ...studyDefinitionQuery(editing ?? ''), enabled: editing !== null && !loaded });
  useEffect(() => {
    if (stored.data && !loaded) {
      setDef(stored.data as EditorDefinition);
      setLoaded(true);
    }
  }, [stored.data, loaded]);

  const local = useMemo(() => parseStudy(def), [def]);
  /** The pools' and the payment's own rules: their problems show beside their fields as they are edited. */
  const own = useMemo(() => editorFieldProblems(def), [def]);
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
  const set: SetField = (k, v) => {
    setDef((d) => ({ ...d, [k]: v }));
    setSaved(null);
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

  if (!loaded)
    return (
      <p className="p-6 text-slate-400" role={stored.error ? 'alert' : undefined}>
        {stored.error ? (stored.error as Error).message : 'Loading the study…'}
      </p>
    );
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

          <StudyNameFields
            id={id}
            editing={editing !== null}
            onId={setId}
            title={def.title}
            onTitle={(v) => set('title', v)}
          />

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

              <ItemsSection
                items={def.items}
                onChange={(items) => set('items', items)}
                fieldProblems={fieldProblems}
                own={own}
              />
              <SettingsSection def={def} set={set} />
              <PaymentFields
                def={def}
                onChange={(payment, campaign) => {
                  setDef((d) => ({ ...d, payment, campaign }));
                  setSaved(null);
                }}
              />
            </>
          )}

          <SaveProblems problems={problems} fieldProblems={fieldProblems} sealing={sealing} />
          <EditorActions
            saved={saved}
            id={id}
            editing={editing}
            onSave={() => void save()}
            sessions={studies.data?.find((x) => x.id === editing)?.sessions ?? null}
            onDeleted={() => navigate('/studies', { replace: true })}
          />
        </div>
      </div>
    </ProblemOf.Provider>
  );
}

/** The study's id (fixed once it exists: it is the link) and its title. */
function StudyNameFields({
  id,
  editing,
  onId,
  title,
  onTitle,
}: {
  id: string;
  /** An existing study is being edited: its id stays. */
  editing: boolean;
  onId: (id: string) => void;
  title: string;
  onTitle: (title: string) => void;
}) {
  return (
    <section className="grid gap-3 md:grid-cols-2">
      <Labelled label="Study id (its link is /s/<id>)" path="id">
        {(a) => (
          <input
            className={input}
            {...a}
            value={id}
            disabled={editing}
            onChange={(e) => onId(e.target.value.trim())}
            placeholder="e.g. pilot-1"
          />
        )}
      </Labelled>
      <Labelled label="Study title" path="title">
        {(a) => <input className={input} {...a} value={title} onChange={(e) => onTitle(e.target.value)} />}
      </Labelled>
    </section>
  );
}

/**
 * Why the study was not saved: the fields that need a change (or what the server refused), and
 * under their own heading the counted answers a practice collection would give away.
 */
function SaveProblems({
  problems,
  fieldProblems,
  sealing,
}: {
  problems: readonly string[];
  fieldProblems: readonly FieldProblem[];
  sealing: readonly string[];
}) {
  return (
    <>
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
            Anyone may check a practice collection's answers without limit, so a counted task must come from a sealed
            collection only. This happens when the task is in a folder mounted with{' '}
            <span className="font-mono">--practice-tasks</span>, or when one folder is mounted both as practice and as
            sealed (<span className="font-mono">--tasks</span>). Mount the folder only with{' '}
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
    </>
  );
}

/** The save's result with the participants' link, the way to the results, Save, and deleting the study. */
function EditorActions({
  saved,
  id,
  editing,
  onSave,
  sessions,
  onDeleted,
}: {
  saved: string | null;
  id: string;
  /** The id of the study being edited; null for a new one. */
  editing: string | null;
  onSave: () => void;
  /** The study's sessions, when known: deleting says how many go with it. */
  sessions: number | null;
  onDeleted: () => void;
}) {
  return (
    <>
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
        <Button tone="primary" onClick={onSave}>
          Save study
        </Button>
      </div>
      {editing && <DeleteStudy studyId={editing} sessions={sessions} onDeleted={onDeleted} />}
    </>
  );
}
