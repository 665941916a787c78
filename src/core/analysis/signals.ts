/**
 * Signals of help and low effort: reasons a researcher may want to look at a session before
 * counting or paying it, derived from the stored events and submissions. They are flags like
 * `low_effort` (listed with a session's other flags in the results, the campaign view and the
 * payments), but they never exclude a session nor hold back its bonus: a person decides.
 *
 * Per session, from its own log (a fold, so a live session's digest extends it by its new events):
 * 1. `pasted_text:<item>`: text was pasted into a written description or a free-response answer
 *    of the item (the client logs each paste as `text.paste`, with the pasted text).
 * 2. `away_from_tab:<item>`: during the item (its `item.start` up to its first `item.end`) the tab
 *    was hidden or the window had lost the focus for `away.minMs` or more in all.
 * 3. `action_burst:<item>`: `burst.actions` game actions within `burst.withinMs` on a game item.
 *
 * Across the sessions of a study (`crossSessionSignals`, on the results path):
 * 4. `same_wrong_answer:<item>`: two sessions submitted the identical wrong grid for the same test
 *    input on at least `sameWrong.minItems` task items; both are flagged on each of those items. A
 *    wrong grid submitted by more than `commonShare` of the sessions (and more than `commonMin`) is
 *    a common mistake and is not compared.
 * 5. `same_game_actions:<item>`: two sessions played the identical sequence of game actions (clicks
 *    with their cells) on a game item, at least `sameActions.minActions` of them.
 * 6. `same_description:<item>`: two sessions wrote descriptions of the item (same stage) of at
 *    least `sameDescription.minWords` words whose normalised texts share at least
 *    `sameDescription.similarity` of their word triples (Jaccard), identical texts included.
 *
 * The rules and why each threshold is what it is are in docs/researchers.md ("Signals of help and
 * low effort"). Practice items and pages never raise a signal.
 */
import { hash64, hashValue } from '../game/hash';
import type { StudyDefinition } from '../study/schema';
import { isPractice } from '../study/schema';

/** The thresholds of the rules above. */
export const SIGNAL_RULES = {
  away: { minMs: 30_000 },
  burst: { actions: 15, withinMs: 1_000 },
  sameWrong: { minItems: 2, commonShare: 0.1, commonMin: 10 },
  sameActions: { minActions: 30 },
  sameDescription: { minWords: 5, similarity: 0.8, shingle: 3 },
} as const;

/** Every signal's flag name (the part before `:<item>`). */
export const SIGNAL_KINDS = [
  'pasted_text',
  'away_from_tab',
  'action_burst',
  'same_wrong_answer',
  'same_game_actions',
  'same_description',
] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

const KINDS: ReadonlySet<string> = new Set(SIGNAL_KINDS);

/** Whether a session flag is a signal (a reason to look, never a reason to hold back a bonus). */
export function isSignalFlag(flag: string): boolean {
  const colon = flag.indexOf(':');
  return KINDS.has(colon < 0 ? flag : flag.slice(0, colon));
}

/** The signals among a session's flags. */
export function signalsOf(flags: readonly string[]): string[] {
  return flags.filter(isSignalFlag);
}

/** One item's presence and game actions so far (plain JSON). */
export interface ItemSignalFold {
  /** Away (hidden or unfocused) since the last event; `lastT` that event's `t`. */
  hidden: boolean;
  blurred: boolean;
  lastT: number | null;
  awayMs: number;
  /** `t` of the item's last game actions, at most `burst.actions - 1` of them. */
  recent: number[];
  burst: boolean;
  /** Game actions and two 32-bit running hashes of their sequence. */
  actions: number;
  h1: number;
  h2: number;
}

/** What a session's events so far leave for its signals (plain JSON, stored beside the digest). */
export interface SignalFold {
  /** The item the next event belongs to (the last `item.start`'s). */
  current: string | null;
  /** Items whose first `item.end` was folded in: later events are outside their span. */
  closed: string[];
  items: Record<string, ItemSignalFold>;
  /** Pastes into each item's descriptions and answers, by item id. */
  pastes: Record<string, number>;
  /** The last saved description of each item and stage (`<item> <stage>`), normalised. */
  descriptions: Record<string, string>;
}

export function newSignalFold(): SignalFold {
  return { current: null, closed: [], items: {}, pastes: {}, descriptions: {} };
}

const SEED_2 = 0x5bd1e995;

/** The fields of an event the signals read. */
export interface SignalEvent {
  readonly t: number;
  readonly kind: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * Extends `fold` by the next event of the session's log, in place. A log folded in any number of
 * parts gives the same fold.
 */
export function addSignalEvent(fold: SignalFold, e: SignalEvent): void {
  const item = typeof e.data.item === 'string' ? e.data.item : null;
  if (e.kind === 'text.paste' && item !== null) fold.pastes[item] = (fold.pastes[item] ?? 0) + 1;
  if (e.kind === 'description.submit' && item !== null && typeof e.data.text === 'string')
    fold.descriptions[`${item} ${String(e.data.stage)}`] = normaliseText(e.data.text);
  if (e.kind === 'item.start' && item !== null) fold.current = item;
  const current = fold.current;
  if (current === null || fold.closed.includes(current)) return;
  let f = fold.items[current];
  if (!f) {
    f = { hidden: false, blurred: false, lastT: null, awayMs: 0, recent: [], burst: false, actions: 0, h1: 0, h2: 0 };
    f.h1 = hashValue('actions');
    f.h2 = hashValue('actions', SEED_2);
    fold.items[current] = f;
  }
  if (f.lastT !== null && (f.hidden || f.blurred)) f.awayMs += Math.max(0, e.t - f.lastT);
  f.lastT = e.t;
  if (e.kind === 'visibility') f.hidden = e.data.state === 'hidden';
  // A tab shown again has the focus back too; a `focus` alone does not show a hidden tab.
  if (e.kind === 'visibility' && e.data.state === 'visible') f.blurred = false;
  if (e.kind === 'blur' || e.kind === 'window.blur') f.blurred = true;
  if (e.kind === 'focus' || e.kind === 'window.focus') f.blurred = false;
  if (e.kind === 'game.action') {
    const token = [e.data.action, e.data.x ?? null, e.data.y ?? null];
    f.h1 = hashValue(token, f.h1);
    f.h2 = hashValue(token, f.h2);
    f.actions++;
    const { actions, withinMs } = SIGNAL_RULES.burst;
    if (f.recent.length === actions - 1 && e.t - f.recent[0] <= withinMs) f.burst = true;
    f.recent.push(e.t);
    if (f.recent.length > actions - 1) f.recent.shift();
  }
  if (e.kind === 'item.end' && item === current) fold.closed.push(current);
}

/** `addSignalEvent` over a run of events; returns the fold. */
export function foldSignals(fold: SignalFold, events: readonly SignalEvent[]): SignalFold {
  for (const e of events) addSignalEvent(fold, e);
  return fold;
}

/** The session's counted items (of its order; not practice, not pages), by id. */
function countedItems(def: StudyDefinition, order: readonly number[]): Map<string, StudyDefinition['items'][number]> {
  const out = new Map<string, StudyDefinition['items'][number]>();
  for (const i of order) {
    const item = def.items[i];
    if (item && item.kind !== 'page' && !isPractice(item)) out.set(item.id, item);
  }
  return out;
}

/** The per-session signals (rules 1-3) of a session's fold, in the order of the session's items. */
export function sessionSignalFlags(def: StudyDefinition, order: readonly number[], fold: SignalFold): string[] {
  const flags: string[] = [];
  for (const id of countedItems(def, order).keys()) {
    if ((fold.pastes[id] ?? 0) > 0) flags.push(`pasted_text:${id}`);
    const f = fold.items[id];
    if (f && f.awayMs >= SIGNAL_RULES.away.minMs) flags.push(`away_from_tab:${id}`);
    if (f?.burst) flags.push(`action_burst:${id}`);
  }
  return flags;
}

/**
 * What the cross-session signals (rules 4-6) compare of one session, kept in its digest: the
 * session is compared with the others without reading their logs again.
 */
export interface SessionPrints {
  /** By task item: `<test index>:<hash of the grid>` of each distinct wrong grid submitted. */
  readonly wrong: Readonly<Record<string, readonly string[]>>;
  /** By game item: `<actions>:<hash>` of its sequence of game actions, when long enough to compare. */
  readonly actions: Readonly<Record<string, string>>;
  /** By `<item> <stage>`: the normalised text of the item's description, when long enough to compare. */
  readonly descriptions: Readonly<Record<string, string>>;
}

/** A submission as the prints read it. */
export interface PrintSubmission {
  readonly item: string;
  readonly testIndex: number;
  readonly verdict: string;
  readonly grid?: unknown;
}

const hex = (h: number) => (h >>> 0).toString(16).padStart(8, '0');

/** The prints of a session from its signal fold and its submissions. */
export function sessionPrints(
  def: StudyDefinition,
  order: readonly number[],
  fold: SignalFold,
  submissions: readonly PrintSubmission[],
): SessionPrints {
  const items = countedItems(def, order);
  const wrong: Record<string, string[]> = {};
  for (const s of submissions) {
    if (s.verdict !== 'wrong' || s.grid === undefined || items.get(s.item)?.kind !== 'task') continue;
    const key = `${s.testIndex}:${hash64(JSON.stringify(s.grid))}`;
    const list = (wrong[s.item] ??= []);
    if (!list.includes(key)) list.push(key);
  }
  const actions: Record<string, string> = {};
  for (const [id, item] of items) {
    const f = fold.items[id];
    if (item.kind === 'game' && f && f.actions >= SIGNAL_RULES.sameActions.minActions)
      actions[id] = `${f.actions}:${hex(f.h1)}${hex(f.h2)}`;
  }
  const descriptions: Record<string, string> = {};
  for (const [key, text] of Object.entries(fold.descriptions)) {
    const id = key.slice(0, key.lastIndexOf(' '));
    if (items.has(id) && wordsOf(text).length >= SIGNAL_RULES.sameDescription.minWords) descriptions[key] = text;
  }
  return { wrong, actions, descriptions };
}

/**
 * Text as descriptions are compared: Unicode-normalised (NFKC), lower case, every run of
 * characters other than letters and digits one space.
 * @example normaliseText('The  RED square, moves!') // 'the red square moves'
 */
export function normaliseText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const wordsOf = (text: string) => (text === '' ? [] : text.split(' '));

/** The word triples of a normalised text (the whole text when it is shorter). */
function shinglesOf(text: string): Set<string> {
  const words = wordsOf(text);
  const k = SIGNAL_RULES.sameDescription.shingle;
  if (words.length <= k) return new Set([words.join(' ')]);
  const out = new Set<string>();
  for (let i = 0; i + k <= words.length; i++) out.add(words.slice(i, i + k).join(' '));
  return out;
}

/** Jaccard similarity of two sets of word triples. */
function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const s of a) if (b.has(s)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * Jaccard similarity of two normalised texts' word triples: shared triples over all triples.
 * @example textSimilarity('a b c d', 'a b c d') // 1
 */
export function textSimilarity(a: string, b: string): number {
  return a === b ? 1 : jaccard(shinglesOf(a), shinglesOf(b));
}

/** Session ids by each key `keys` gives a session, in the sessions' order. */
function groupBy<S extends { readonly id: string }>(
  sessions: readonly S[],
  keys: (s: S) => string[],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of sessions)
    for (const key of keys(s)) {
      const list = out.get(key);
      if (list) list.push(s.id);
      else out.set(key, [s.id]);
    }
  return out;
}

/**
 * The pairs of distinct normalised texts whose word triples have Jaccard similarity at least
 * `sameDescription.similarity`. Exact, without comparing every pair: with the triples of each
 * text ordered rarest first, two texts that similar must share a triple among the first
 * `n - ceil(similarity * n) + 1` of either (the prefix filter of set-similarity joins), so only
 * texts sharing such a triple are compared.
 */
function similarPairs(texts: readonly string[]): [number, number][] {
  const { similarity } = SIGNAL_RULES.sameDescription;
  const sets = texts.map(shinglesOf);
  const df = new Map<string, number>();
  for (const set of sets) for (const t of set) df.set(t, (df.get(t) ?? 0) + 1);
  const rarestFirst = (a: string, b: string) => df.get(a)! - df.get(b)! || (a < b ? -1 : a > b ? 1 : 0);
  const index = new Map<string, number[]>();
  const out: [number, number][] = [];
  sets.forEach((set, j) => {
    const sorted = [...set].sort(rarestFirst);
    // A longer prefix only adds candidates: the margin keeps rounding from ever shortening it.
    const prefix = sorted.slice(0, sorted.length - Math.ceil(similarity * sorted.length - 1e-9) + 1);
    const seen = new Set<number>();
    for (const t of prefix)
      for (const i of index.get(t) ?? []) {
        if (seen.has(i)) continue;
        seen.add(i);
        const [a, b] = [sets[i], set];
        // Jaccard is at most the smaller set's size over the larger's.
        if (Math.min(a.size, b.size) < similarity * Math.max(a.size, b.size)) continue;
        if (jaccard(a, b) >= similarity) out.push([i, j]);
      }
    for (const t of prefix) {
      const list = index.get(t);
      if (list) list.push(j);
      else index.set(t, [j]);
    }
  });
  return out;
}

/** A session as the cross-session signals read it. */
export interface PrintedSession {
  readonly id: string;
  /** Null or absent: nothing to compare (a digest of another analysis version, or none). */
  readonly prints?: SessionPrints | null;
}

/**
 * The cross-session signals (rules 4-6) of a study's sessions, by session id (sessions without a
 * signal are absent). Pure; sessions are grouped by equal prints, and descriptions compared only
 * where they can be similar enough (`similarPairs`).
 */
export function crossSessionSignals(sessions: readonly PrintedSession[]): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  const flag = (id: string, f: string) => {
    let set = out.get(id);
    if (!set) out.set(id, (set = new Set()));
    set.add(f);
  };
  const printed = sessions.filter((s): s is PrintedSession & { prints: SessionPrints } => !!s.prints);

  // Rule 4: identical wrong grids, grouped; then pairs that share them on enough items. A grid
  // most sessions share is a common mistake: leaving it out also bounds the pairs to count.
  const groups = groupBy(printed, (s) =>
    Object.entries(s.prints.wrong).flatMap(([item, grids]) => grids.map((g) => `${item}\u0000${g}`)),
  );
  const { minItems, commonShare, commonMin } = SIGNAL_RULES.sameWrong;
  const common = Math.max(commonMin, commonShare * printed.length);
  const pairs = new Map<string, Set<string>>();
  for (const [key, ids] of groups) {
    if (ids.length < 2 || ids.length > common) continue;
    const item = key.slice(0, key.indexOf('\u0000'));
    for (let i = 0; i < ids.length; i++)
      for (let j = i + 1; j < ids.length; j++) {
        const pair = `${ids[i]}\u0000${ids[j]}`;
        let set = pairs.get(pair);
        if (!set) pairs.set(pair, (set = new Set()));
        set.add(item);
      }
  }
  for (const [pair, items] of pairs) {
    if (items.size < minItems) continue;
    for (const id of pair.split('\u0000')) for (const item of items) flag(id, `same_wrong_answer:${item}`);
  }

  // Rule 5: identical action sequences of a game item.
  const sequences = groupBy(printed, (s) =>
    Object.entries(s.prints.actions).map(([item, print]) => `${item}\u0000${print}`),
  );
  for (const [key, ids] of sequences) {
    if (ids.length < 2) continue;
    const item = key.slice(0, key.indexOf('\u0000'));
    for (const id of ids) flag(id, `same_game_actions:${item}`);
  }

  // Rule 6: equal descriptions by grouping, then similar ones between the distinct texts.
  const texts = groupBy(printed, (s) =>
    Object.entries(s.prints.descriptions).map(([place, text]) => `${place}\u0000${text}`),
  );
  const byPlace = new Map<string, { text: string; ids: string[] }[]>();
  for (const [key, ids] of texts) {
    const [place, text] = key.split('\u0000');
    const item = place.slice(0, place.lastIndexOf(' '));
    if (ids.length > 1) for (const id of ids) flag(id, `same_description:${item}`);
    let list = byPlace.get(place);
    if (!list) byPlace.set(place, (list = []));
    list.push({ text, ids });
  }
  for (const [place, distinct] of byPlace) {
    const item = place.slice(0, place.lastIndexOf(' '));
    for (const [i, j] of similarPairs(distinct.map((d) => d.text)))
      for (const id of [...distinct[i].ids, ...distinct[j].ids]) flag(id, `same_description:${item}`);
  }
  return new Map([...out].map(([id, set]) => [id, [...set]]));
}

/**
 * Sessions with their cross-session signals (rules 4-6) joined to their flags, compared by the
 * prints of their digests; a session without a digest is compared with nothing.
 */
export function withCrossSignals<
  T extends {
    readonly id: string;
    readonly flags: readonly string[];
    readonly digest: { readonly prints?: SessionPrints } | null;
  },
>(sessions: readonly T[]): T[] {
  return joinCrossSignals(sessions, crossSessionSignals(sessions.map((s) => ({ id: s.id, prints: s.digest?.prints }))));
}

/** Sessions with the signals across sessions of `cross` (by session id, as `crossSessionSignals` gives them) joined to their flags. */
export function joinCrossSignals<T extends { readonly id: string; readonly flags: readonly string[] }>(
  sessions: readonly T[],
  cross: ReadonlyMap<string, readonly string[]>,
): T[] {
  return sessions.map((s) => {
    const more = cross.get(s.id);
    return more ? { ...s, flags: [...new Set([...s.flags, ...more])] } : s;
  });
}
