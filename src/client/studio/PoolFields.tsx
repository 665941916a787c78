/**
 * The study editor's campaign parts: a pool item (its candidates, how many each participant
 * draws, the target per candidate, the minutes a candidate needs) and the study's payment and
 * campaign id. They write the study format's JSON as `core/study/schema.ts` defines it
 * (`PoolItem`, `Payment`, `CampaignRef`); the messages beside each field say what to change.
 */
import { useId, useMemo, useState, type ReactNode } from 'react';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { CandidatePicker } from './CandidatePicker';
import {
  PAYMENT_PATHS,
  candidateId,
  candidateSource,
  makeCandidate,
  poolProblems,
  paymentProblems,
  sourceKey,
  type CandidateInput,
  type CandidateSource,
  type EditorDefinition,
  type Pay,
  type PoolField,
  type PoolInput,
} from './pool';
import { input } from './editorFields';

const invalid = 'border-rose-500';

/**
 * A field's problem in plain words, under the field, as the study editor shows every problem
 * (`data-testid="field-problem"`, `data-field` its path); the field points to it by `id`.
 */
function Problem({ id, path, children }: { id: string; path: string; children: ReactNode }) {
  return (
    <span id={id} className="block text-xs text-rose-300" data-testid="field-problem" data-field={path}>
      {children}
    </span>
  );
}

/**
 * A pool item's fields, each with its problem beside it as it is edited; `path` is the item's
 * place in the study (`items[1]`); `usedIds` are the other items' ids, so a new candidate's id is unique.
 */
export function PoolFields({
  item,
  path,
  idField,
  usedIds,
  onChange,
}: {
  item: PoolInput;
  path: string;
  idField: ReactNode;
  usedIds: ReadonlySet<string>;
  onChange: (i: PoolInput) => void;
}) {
  const uid = useId();
  const [picking, setPicking] = useState(false);
  const [clearing, setClearing] = useState(false);
  const problems = poolProblems(item);
  const taken = useMemo(() => new Set(item.candidates.map((c) => sourceKey(candidateSource(c)))), [item.candidates]);
  const target = item.target ?? { solves: 2 };
  const targetKind = 'attempts' in target ? 'attempts' : 'solves';
  const targetN = 'attempts' in target ? target.attempts : target.solves;
  const add = (sources: CandidateSource[]) => {
    const used = new Set([...usedIds, ...item.candidates.map((c) => c.id)]);
    onChange({
      ...item,
      candidates: [...item.candidates, ...sources.map((s) => makeCandidate(s, candidateId(s, used)))],
    });
  };
  const msg = (f: PoolField) =>
    problems[f] && (
      <Problem id={`${uid}-${f}-problem`} path={`${path}.${f}`}>
        {problems[f]}
      </Problem>
    );
  const described = (f: PoolField) =>
    problems[f] ? { 'aria-invalid': true, 'aria-describedby': `${uid}-${f}-problem` } : {};
  const drawN = item.draw === 'time' ? null : item.draw;
  const overDraw = drawN !== null && drawN > item.candidates.length && item.candidates.length > 0;

  return (
    <div className="flex flex-col gap-3" data-testid={`pool-${item.id}`}>
      <div className="grid gap-2 md:grid-cols-[200px_1fr]">
        {idField}
        <label className="flex flex-col gap-1 text-xs text-slate-400">
          Pool title (for the studio; participants never see it)
          <input
            className={input}
            value={item.title ?? ''}
            onChange={(e) => onChange({ ...item, title: e.target.value })}
            placeholder="e.g. Candidate games, batch 1"
          />
        </label>
      </div>

      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-xs text-slate-400">Candidates</legend>
        <div className="flex flex-wrap items-center gap-2">
          <span className="text-sm text-slate-200" data-testid={`pool-${item.id}-count`}>
            {item.candidates.length.toLocaleString('en')} candidate{item.candidates.length === 1 ? '' : 's'}
          </span>
          <Button onClick={() => setPicking(true)}>Add candidates…</Button>
          {item.candidates.length > 0 && (
            <Button tone="ghost" onClick={() => setClearing(true)}>
              Remove all
            </Button>
          )}
        </div>
        {msg('candidates')}
        {item.candidates.length > 0 && (
          <CandidateList
            candidates={item.candidates}
            onRemove={(id) => onChange({ ...item, candidates: item.candidates.filter((c) => c.id !== id) })}
          />
        )}
      </fieldset>

      <div className="grid gap-3 md:grid-cols-3">
        <fieldset className="flex flex-col gap-1 text-sm text-slate-300">
          <legend className="mb-1 text-xs text-slate-400">Each participant draws</legend>
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name={`${item.id}-draw`}
              checked={item.draw !== 'time'}
              onChange={() => onChange({ ...item, draw: drawN ?? 5 })}
            />{' '}
            A number of candidates
          </label>
          {item.draw !== 'time' && (
            <input
              type="number"
              min={1}
              max={500}
              aria-label="Candidates per participant"
              className={`${input} w-28 ${problems.draw ? invalid : ''}`}
              value={Number.isNaN(item.draw) ? '' : item.draw}
              onChange={(e) => onChange({ ...item, draw: e.target.value === '' ? Number.NaN : Number(e.target.value) })}
              {...described('draw')}
            />
          )}
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name={`${item.id}-draw`}
              checked={item.draw === 'time'}
              onChange={() => onChange({ ...item, draw: 'time' })}
            />{' '}
            As many as the session’s time allows
          </label>
          {msg('draw')}
          {overDraw && (
            <span className="text-xs text-amber-300">
              The pool has {item.candidates.length} candidates, so a participant gets at most {item.candidates.length}.
            </span>
          )}
        </fieldset>

        <fieldset className="flex flex-col gap-1 text-sm text-slate-300">
          <legend className="mb-1 text-xs text-slate-400">A candidate is done after</legend>
          <input
            type="number"
            min={1}
            max={1000}
            aria-label="Target per candidate"
            className={`${input} w-28 ${problems.target ? invalid : ''}`}
            value={Number.isNaN(targetN) ? '' : targetN}
            {...described('target')}
            onChange={(e) => {
              const n = e.target.value === '' ? Number.NaN : Number(e.target.value);
              onChange({ ...item, target: targetKind === 'solves' ? { solves: n } : { attempts: n } });
            }}
          />
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name={`${item.id}-target`}
              checked={targetKind === 'solves'}
              onChange={() => onChange({ ...item, target: { solves: targetN } })}
            />{' '}
            full solves by different participants
          </label>
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name={`${item.id}-target`}
              checked={targetKind === 'attempts'}
              onChange={() => onChange({ ...item, target: { attempts: targetN } })}
            />{' '}
            counted attempts, solved or not
          </label>
          {msg('target')}
          <span className="text-xs text-slate-400">It stops being drawn once it reaches this target.</span>
        </fieldset>

        <label className="flex flex-col gap-1 text-sm text-slate-300">
          <span className="text-xs text-slate-400">Start a candidate only with at least this many minutes left</span>
          <input
            type="number"
            min={1}
            aria-label="Minimum minutes left"
            className={`${input} w-28 ${problems.minMinutesLeft ? invalid : ''}`}
            placeholder="hard limit"
            value={item.minMinutesLeft === undefined || Number.isNaN(item.minMinutesLeft) ? '' : item.minMinutesLeft}
            {...described('minMinutesLeft')}
            onChange={(e) =>
              onChange({ ...item, minMinutesLeft: e.target.value === '' ? undefined : Number(e.target.value) })
            }
          />
          {msg('minMinutesLeft')}
          <span className="text-xs text-slate-400">Empty: the item’s hard limit.</span>
        </label>
      </div>
      {picking && <CandidatePicker taken={taken} onClose={() => setPicking(false)} onAdd={add} />}
      {clearing && (
        <ConfirmDialog
          title={`Remove all ${item.candidates.length} candidates from this pool?`}
          confirmLabel="Remove all"
          tone="danger"
          onConfirm={() => {
            onChange({ ...item, candidates: [] });
            return Promise.resolve();
          }}
          onClose={() => setClearing(false)}
        >
          <p>The pool is left empty; add candidates again with “Add candidates…”.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

const LIST_PAGE = 10;

/** The pool's candidates, a page at a time, searchable. */
function CandidateList({
  candidates,
  onRemove,
}: {
  candidates: readonly CandidateInput[];
  onRemove: (id: string) => void;
}) {
  const [filter, setFilter] = useState('');
  const [page, setPage] = useState(0);
  const f = filter.trim().toLowerCase();
  const matches = f
    ? candidates.filter((c) => `${c.id} ${sourceKey(candidateSource(c))}`.toLowerCase().includes(f))
    : candidates;
  const pages = Math.max(1, Math.ceil(matches.length / LIST_PAGE));
  const at = Math.min(page, pages - 1);
  return (
    <div className="rounded-md border border-slate-800">
      {candidates.length > LIST_PAGE && (
        <div className="flex items-center gap-2 border-b border-slate-800 p-2">
          <input
            type="search"
            aria-label="Search the pool’s candidates"
            placeholder="Search the pool"
            className={`${input} w-56`}
            value={filter}
            onChange={(e) => {
              setFilter(e.target.value);
              setPage(0);
            }}
          />
          <span className="text-xs text-slate-400">
            {matches.length} of {candidates.length}
          </span>
        </div>
      )}
      <ul className="divide-y divide-slate-800 text-sm" aria-label="Pool candidates">
        {matches.slice(at * LIST_PAGE, (at + 1) * LIST_PAGE).map((c) => {
          const s = candidateSource(c);
          return (
            <li key={c.id} className="flex items-center gap-2 px-2 py-1">
              <span className="w-16 shrink-0 rounded bg-slate-800 px-1.5 py-0.5 text-center text-[11px] uppercase text-slate-300">
                {c.kind}
              </span>
              <span className="truncate font-mono text-slate-100">{c.id}</span>
              <span className="truncate text-xs text-slate-400">
                {s.kind === 'task'
                  ? `${s.collection} / ${s.task}`
                  : s.kind === 'game'
                    ? s.game
                    : `${s.collection} / ${s.question}`}
              </span>
              <Button
                tone="ghost"
                className="ml-auto h-7 text-xs"
                aria-label={`Remove candidate ${c.id}`}
                onClick={() => onRemove(c.id)}
              >
                Remove
              </Button>
            </li>
          );
        })}
      </ul>
      {pages > 1 && (
        <div className="flex items-center justify-end gap-2 border-t border-slate-800 p-2 text-xs text-slate-300">
          <Button className="h-7 text-xs" disabled={at === 0} onClick={() => setPage(at - 1)}>
            Previous
          </Button>
          <span>
            Page {at + 1} of {pages}
          </span>
          <Button className="h-7 text-xs" disabled={at >= pages - 1} onClick={() => setPage(at + 1)}>
            Next
          </Button>
        </div>
      )}
    </div>
  );
}

/** The fee and bonus rule, and the campaign the study belongs to. */
export function PaymentFields({
  def,
  onChange,
}: {
  def: EditorDefinition;
  onChange: (payment: EditorDefinition['payment'], campaign: EditorDefinition['campaign']) => void;
}) {
  const p = def.payment;
  const campaign = def.campaign?.id;
  const problems = paymentProblems(p, campaign);
  const setPay = (next: Pay | undefined) => onChange(next, def.campaign);
  const num = (v: string) => (v === '' ? undefined : Number(v));
  const problem = (key: string) =>
    problems[key] && (
      <Problem id={`payment-${key}-problem`} path={PAYMENT_PATHS[key] ?? key}>
        {problems[key]}
      </Problem>
    );
  // The problem stays outside the label, so the field's name is its label alone.
  const field = (
    key: string,
    label: string,
    value: number | undefined,
    set: (v: number | undefined) => void,
    hint?: string,
  ) => (
    <div className="flex flex-col gap-1">
      <label className="flex flex-col gap-1 text-sm text-slate-300">
        {label}
        <input
          type="number"
          min={0}
          step="0.01"
          className={`${input} ${problems[key] ? invalid : ''}`}
          value={value === undefined || Number.isNaN(value) ? '' : value}
          aria-invalid={problems[key] ? true : undefined}
          aria-describedby={problems[key] ? `payment-${key}-problem` : undefined}
          onChange={(e) => set(num(e.target.value))}
          placeholder={hint}
        />
      </label>
      {problem(key)}
    </div>
  );
  return (
    <section
      className="flex flex-col gap-3 rounded-lg border border-slate-800 bg-slate-900/40 p-3"
      aria-labelledby="payment-title"
    >
      <h2 id="payment-title" className="font-semibold text-white">
        Campaign and payment
      </h2>
      <div className="flex flex-col gap-1 md:w-1/2">
        <label className="flex flex-col gap-1 text-sm text-slate-300">
          Campaign id (optional: studies with one campaign id share their pools’ history, so nobody meets a candidate
          twice)
          <input
            className={`${input} ${problems.campaign ? invalid : ''}`}
            value={campaign ?? ''}
            placeholder="e.g. arc3-calibration"
            aria-invalid={problems.campaign ? true : undefined}
            aria-describedby={problems.campaign ? 'payment-campaign-problem' : undefined}
            onChange={(e) =>
              onChange(def.payment, e.target.value.trim() === '' ? undefined : { id: e.target.value.trim() })
            }
          />
        </label>
        {problem('campaign')}
      </div>
      <label className="flex items-center gap-2 text-sm text-slate-300">
        <input
          type="checkbox"
          checked={!!p}
          onChange={(e) =>
            setPay(e.target.checked ? { currency: 'GBP', fee: 0, bonus: { perSolve: 0, perLevel: 0 } } : undefined)
          }
        />
        This study pays a fee and bonuses (shown to participants on the consent page; used for the bonus file)
      </label>
      {p && (
        <div className="grid gap-3 md:grid-cols-5">
          <div className="flex flex-col gap-1">
            <label className="flex flex-col gap-1 text-sm text-slate-300">
              Currency
              <input
                className={`${input} ${problems.currency ? invalid : ''}`}
                value={p.currency ?? 'GBP'}
                maxLength={3}
                aria-invalid={problems.currency ? true : undefined}
                aria-describedby={problems.currency ? 'payment-currency-problem' : undefined}
                onChange={(e) => setPay({ ...p, currency: e.target.value.toUpperCase() })}
              />
            </label>
            {problem('currency')}
          </div>
          {field('fee', 'Fixed fee', p.fee, (v) => setPay({ ...p, fee: v ?? 0 }))}
          {field('perSolve', 'Bonus per candidate solved', p.bonus?.perSolve, (v) =>
            setPay({ ...p, bonus: { ...p.bonus, perSolve: v ?? 0 } }),
          )}
          {field('perLevel', 'Bonus per game level completed', p.bonus?.perLevel, (v) =>
            setPay({ ...p, bonus: { ...p.bonus, perLevel: v ?? 0 } }),
          )}
          {field(
            'max',
            'Most bonus per session (optional)',
            p.bonus?.max,
            (v) => setPay({ ...p, bonus: { ...p.bonus, max: v } }),
            'no cap',
          )}
        </div>
      )}
    </section>
  );
}
