/**
 * The study editor's pool and payment rules, without React: what a new candidate is written as
 * (`PoolCandidate` of `core/study/schema.ts`), its id, and the problems of each field in words a
 * researcher acts on. Tested against the schema in `pool.test.ts`.
 */
import type { z } from 'zod';
import type { DefinitionItem, PoolCandidate, StudyDefinitionInput } from '../../core/study/schema';
import { surveyFieldProblems, type FieldProblem } from '../../core/study/fieldProblems';

export type DefItem = z.input<typeof DefinitionItem>;
export type PoolInput = Extract<DefItem, { kind: 'pool' }>;
export type CandidateInput = z.input<typeof PoolCandidate>;
/** A study as the editor holds it: its items may be pools. */
export type EditorDefinition = Omit<StudyDefinitionInput, 'items'> & { items: DefItem[] };

/** What a candidate is, without its id (the pool gives it one). */
export type CandidateSource =
  | { readonly kind: 'task'; readonly collection: string; readonly task: string }
  | { readonly kind: 'game'; readonly game: string }
  | { readonly kind: 'question'; readonly collection: string; readonly question: string };

/** One key per task, game or question, whatever the candidate's id: `task:samples/foo`. */
export function sourceKey(s: CandidateSource): string {
  if (s.kind === 'task') return `task:${s.collection}/${s.task}`;
  if (s.kind === 'game') return `game:${s.game}`;
  return `question:${s.collection}/${s.question}`;
}

/** What a candidate shows: the task, game or question it is. */
export function candidateSource(c: CandidateInput): CandidateSource {
  if (c.kind === 'task') return { kind: 'task', collection: c.collection, task: c.task };
  if (c.kind === 'game') return { kind: 'game', game: c.game };
  return { kind: 'question', collection: c.collection ?? '', question: c.question ?? c.questions?.[0]?.question ?? '' };
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** An item id for a new candidate: its task, game or question id, made unique in the study. */
export function candidateId(s: CandidateSource, used: Set<string>): string {
  const raw = s.kind === 'task' ? s.task : s.kind === 'game' ? s.game : s.question;
  let base =
    raw
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 56) || s.kind;
  if (!ID_RE.test(base)) base = s.kind;
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
  used.add(id);
  return id;
}

export function makeCandidate(s: CandidateSource, id: string): CandidateInput {
  if (s.kind === 'task') return { kind: 'task', id, collection: s.collection, task: s.task };
  if (s.kind === 'game') return { kind: 'game', id, game: s.game, seed: 0 };
  return { kind: 'question', id, collection: s.collection, question: s.question };
}

export type PoolField = 'candidates' | 'draw' | 'target' | 'minMinutesLeft';

/** The pool's problems, one per field, in words a researcher acts on. */
export function poolProblems(item: PoolInput): Partial<Record<PoolField, string>> {
  const out: Partial<Record<PoolField, string>> = {};
  const n = item.candidates.length;
  if (n === 0) out.candidates = 'Add at least one candidate: the pool draws from its candidates.';
  else if (n > 5000)
    out.candidates = `A pool holds at most 5,000 candidates and this one has ${n.toLocaleString('en')}: split it into two pools.`;
  else {
    const seen = new Set<string>();
    const twice = item.candidates.find((c) => (seen.has(c.id) ? true : (seen.add(c.id), false)));
    if (twice) out.candidates = `Two candidates have the id “${twice.id}”: remove one of them.`;
  }
  if (item.draw !== 'time' && (!Number.isInteger(item.draw) || item.draw < 1 || item.draw > 500)) {
    out.draw = 'Give a whole number from 1 to 500, or choose “as many as time allows”.';
  }
  const target = item.target ?? { solves: 2 };
  const t = 'solves' in target ? target.solves : target.attempts;
  if (!Number.isInteger(t) || t < 1 || t > 1000) out.target = 'The target is a whole number from 1 to 1,000.';
  const m = item.minMinutesLeft;
  if (m !== undefined && (!Number.isFinite(m) || m <= 0 || m > 1440))
    out.minMinutesLeft = 'Give more than 0 and at most 1440 minutes, or leave it empty to use the item’s hard limit.';
  return out;
}

export type Pay = NonNullable<EditorDefinition['payment']>;

/** The study's payment problems, one per field. */
export function paymentProblems(p: Pay | undefined, campaign: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (campaign !== undefined && !/^[a-z0-9][a-z0-9-]{0,63}$/.test(campaign))
    out.campaign =
      'Use 1-64 lower-case letters, digits or “-”, starting with a letter or digit, e.g. arc3-calibration.';
  if (!p) return out;
  if (p.currency !== undefined && !/^[A-Z]{3}$/.test(p.currency))
    out.currency = 'Give a three-letter currency code in capitals, e.g. GBP, USD or EUR.';
  const money = (key: string, v: number | undefined, max: number) => {
    if (v === undefined) return;
    if (!Number.isFinite(v) || v < 0) out[key] = 'Give an amount of 0 or more.';
    else if (v > max) out[key] = `Give at most ${max.toLocaleString('en')}.`;
  };
  money('fee', p.fee, 10_000);
  money('perSolve', p.bonus?.perSolve, 1000);
  money('perLevel', p.bonus?.perLevel, 1000);
  money('max', p.bonus?.max, 100_000);
  return out;
}

/** Where each payment problem sits in the study format, as `formatPath` writes it. */
export const PAYMENT_PATHS: Readonly<Record<string, string>> = {
  campaign: 'campaign.id',
  currency: 'payment.currency',
  fee: 'payment.fee',
  perSolve: 'payment.bonus.perSolve',
  perLevel: 'payment.bonus.perLevel',
  max: 'payment.bonus.max',
};

/**
 * The problems the editor shows as fields are edited, not only once the researcher tried to save:
 * the pools', the surveys' and the payment's, as field problems (`core/study/fieldProblems.ts`),
 * each at the path of its field: `items[1].draw`, `items[2].questions[0].prompt`, `payment.fee`.
 */
export function editorFieldProblems(def: EditorDefinition): FieldProblem[] {
  const out: FieldProblem[] = [];
  def.items.forEach((item, i) => {
    if (item.kind === 'survey') out.push(...surveyFieldProblems(item, i));
    if (item.kind !== 'pool') return;
    for (const [field, message] of Object.entries(poolProblems(item)))
      out.push({ path: `items[${i}].${field}`, message });
  });
  for (const [key, message] of Object.entries(paymentProblems(def.payment, def.campaign?.id)))
    out.push({ path: PAYMENT_PATHS[key] ?? key, message });
  return out;
}
