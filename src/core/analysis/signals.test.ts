import { describe, expect, it } from 'vitest';
import { parseStudy, type StudyDefinition } from '../study/schema';
import type { StoredEvent } from '../study/rules';
import { summarizeSession } from '../study/summary';
import { paymentsCsv, paymentsView, type CampaignSession } from './campaign';
import { finishDigest, foldEvents, newDigestFold } from './fold';
import { digestSession, studyResults, type ResultsSession, type ResultsSubmission } from './results';
import {
  crossSessionSignals,
  foldSignals,
  isSignalFlag,
  newSignalFold,
  normaliseText,
  sessionPrints,
  sessionSignalFlags,
  textSimilarity,
  withCrossSignals,
  type SessionPrints,
} from './signals';

const BASE = Date.UTC(2026, 2, 1);

const STUDY: StudyDefinition = (() => {
  const r = parseStudy({
    title: 'Signals fixture',
    consent: 'ok',
    completion: { code: 'X' },
    payment: { currency: 'GBP', fee: 5, bonus: { perSolve: 1, perLevel: 0 } },
    items: [
      { kind: 'page', id: 'intro', markdown: 'hi' },
      { kind: 'task', id: 'warm', collection: 'c', task: 'w', practice: true },
      { kind: 'task', id: 't1', collection: 'c', task: 'a', tests: [0] },
      { kind: 'task', id: 't2', collection: 'c', task: 'b', tests: [0] },
      { kind: 'game', id: 'g', game: 'glow', seed: 0 },
      { kind: 'question', id: 'q', collection: 'sci', question: 'q-easy' },
    ],
  });
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.study;
})();
const ORDER = STUDY.items.map((_, i) => i);

/** A session's log, `t` in ms from its start. */
class Log {
  readonly events: StoredEvent[] = [];
  readonly subs: ResultsSubmission[] = [];
  add(t: number, kind: string, data: Record<string, unknown> = {}): this {
    this.events.push({ seq: this.events.length, t, kind, data, receivedAt: BASE + t });
    return this;
  }
  item(t: number, id: string): this {
    return this.add(t, 'item.start', { item: id });
  }
  end(t: number, id: string): this {
    return this.add(t, 'item.end', { item: id });
  }
  wrong(item: string, grid: number[][], t: number): this {
    this.subs.push({ item, testIndex: 0, trial: this.subs.length + 1, verdict: 'wrong', at: BASE + t, grid });
    return this;
  }
  /** `n` game actions from `t0`, `every` ms apart, moving by `keys` in turn. */
  actions(t0: number, n: number, every: number, keys = ['ACTION1', 'ACTION2', 'ACTION3', 'ACTION4']): this {
    for (let i = 0; i < n; i++)
      this.add(t0 + i * every, 'game.action', {
        game: 'glow',
        action: keys[i % keys.length],
        level: 0,
        state: 'NOT_FINISHED',
        frameHash: 'x',
      });
    return this;
  }
  flags(): string[] {
    return sessionSignalFlags(STUDY, ORDER, foldSignals(newSignalFold(), this.events));
  }
  prints(): SessionPrints {
    return sessionPrints(STUDY, ORDER, foldSignals(newSignalFold(), this.events), this.subs);
  }
}

const describeText =
  'The red squares grow into crosses and every cross takes the colour of the nearest blue cell in its row ' +
  'while the background stays black and nothing else in the grid moves at all';

describe('signals of one session', () => {
  it('raises pasted_text for a paste into an answer or a description, and not for typing alone', () => {
    const pasted = new Log()
      .item(0, 'q')
      .add(500, 'text.paste', { item: 'q', field: 'answer', length: 40, text: 'x'.repeat(40) })
      .add(900, 'question.input', { item: 'q', text: 'x'.repeat(40) });
    expect(pasted.flags()).toEqual(['pasted_text:q']);
    const described = new Log()
      .item(0, 't1')
      .add(100, 'text.paste', { item: 't1', field: 'description', stage: 'first', length: 5, text: 'hello' });
    expect(described.flags()).toEqual(['pasted_text:t1']);

    const typed = new Log().item(0, 'q').add(900, 'question.input', { item: 'q', text: 'typed by hand' });
    expect(typed.flags()).toEqual([]);
    // A practice item never raises a signal.
    const practice = new Log()
      .item(0, 'warm')
      .add(100, 'text.paste', { item: 'warm', field: 'description', stage: 'first', length: 5, text: 'hello' });
    expect(practice.flags()).toEqual([]);
  });

  it('raises away_from_tab for 30 s hidden or out of focus within one item, and not for a glance away', () => {
    const hidden = new Log()
      .item(0, 't1')
      .add(1000, 'visibility', { state: 'hidden' })
      .add(21_000, 'visibility', { state: 'visible' })
      .add(22_000, 'blur')
      .add(33_000, 'focus')
      .add(34_000, 'paint', { row: 0, col: 0, color: 1, stroke: 0 });
    // 20 s hidden and 11 s on another window: 31 s away.
    expect(hidden.flags()).toEqual(['away_from_tab:t1']);

    const glance = new Log()
      .item(0, 't1')
      .add(1000, 'visibility', { state: 'hidden' })
      .add(11_000, 'visibility', { state: 'visible' })
      .add(12_000, 'blur')
      .add(20_000, 'window.focus')
      .add(25_000, 'focus');
    expect(glance.flags()).toEqual([]);

    // Time away after the item ended belongs to no item; the next item starts its own count.
    const between = new Log()
      .item(0, 't1')
      .end(1000, 't1')
      .add(1500, 'visibility', { state: 'hidden' })
      .add(60_000, 'visibility', { state: 'visible' })
      .item(61_000, 't2')
      .add(70_000, 'visibility', { state: 'hidden' })
      .add(75_000, 'visibility', { state: 'visible' });
    expect(between.flags()).toEqual([]);
  });

  it('raises action_burst for 15 game actions within a second, and not for 15 a tenth of a second apart', () => {
    expect(new Log().item(0, 'g').actions(1000, 15, 66).flags()).toEqual(['action_burst:g']);
    // A burst anywhere in a long run counts.
    expect(new Log().item(0, 'g').actions(1000, 40, 400).actions(20_000, 15, 60).flags()).toEqual(['action_burst:g']);
    expect(new Log().item(0, 'g').actions(1000, 15, 100).flags()).toEqual([]);
    expect(new Log().item(0, 'g').actions(1000, 14, 10).flags()).toEqual([]);
  });

  it('folds a log in any number of parts to the same signals', () => {
    const log = new Log()
      .item(0, 'g')
      .actions(100, 20, 40)
      .add(2000, 'visibility', { state: 'hidden' })
      .add(40_000, 'visibility', { state: 'visible' })
      .end(41_000, 'g')
      .item(42_000, 'q')
      .add(43_000, 'text.paste', { item: 'q', field: 'answer', length: 3, text: 'abc' });
    const whole = foldSignals(newSignalFold(), log.events);
    for (const cut of [1, 7, 22, 24, log.events.length - 1]) {
      const parts = foldSignals(foldSignals(newSignalFold(), log.events.slice(0, cut)), log.events.slice(cut));
      expect(JSON.parse(JSON.stringify(parts))).toEqual(JSON.parse(JSON.stringify(whole)));
    }
    expect(sessionSignalFlags(STUDY, ORDER, whole)).toEqual(['away_from_tab:g', 'action_burst:g', 'pasted_text:q']);
  });

  it('gives the digest, its fold and the session summary the same signals', () => {
    const log = new Log()
      .item(0, 'g')
      .actions(100, 16, 30)
      .end(1000, 'g')
      .item(1100, 'q')
      .add(1200, 'text.paste', { item: 'q', field: 'answer', length: 3, text: 'abc' })
      .wrong('t1', [[1, 2]], 1300);
    const session: ResultsSession = {
      id: 's',
      studyVersion: 1,
      params: {},
      order: ORDER,
      state: 'active',
      createdAt: BASE,
      lastEventAt: null,
      finishedAt: null,
      flags: [],
    };
    const whole = digestSession(STUDY, session, log.events, log.subs, () => 1, null);
    const fold = foldEvents(STUDY, ORDER, newDigestFold(), log.events.slice(0, 9));
    foldEvents(STUDY, ORDER, fold, log.events.slice(9));
    expect(finishDigest(STUDY, session, fold, log.subs, () => 1, null)).toEqual(whole);
    expect(whole.flags).toEqual(expect.arrayContaining(['action_burst:g', 'pasted_text:q']));
    expect(summarizeSession(STUDY, ORDER, log.events, log.subs, () => [0], null).flags).toEqual(whole.flags);
  });
});

describe('signals across sessions', () => {
  const same = [
    [1, 1],
    [2, 2],
  ];
  it('raises same_wrong_answer when two sessions share a wrong grid on two tasks, and not on one', () => {
    const a = new Log().wrong('t1', same, 1).wrong('t2', [[3]], 2);
    const b = new Log().wrong('t1', same, 1).wrong('t2', [[3]], 2);
    const c = new Log().wrong('t1', same, 1).wrong('t2', [[4]], 2);
    const flags = crossSessionSignals([
      { id: 'a', prints: a.prints() },
      { id: 'b', prints: b.prints() },
      { id: 'c', prints: c.prints() },
    ]);
    expect(flags.get('a')).toEqual(['same_wrong_answer:t1', 'same_wrong_answer:t2']);
    expect(flags.get('b')).toEqual(['same_wrong_answer:t1', 'same_wrong_answer:t2']);
    // c shares one common mistake with each: an ordinary thing among honest participants.
    expect(flags.has('c')).toBe(false);
    // Correct grids alike are no signal: only wrong ones are compared.
    expect(a.prints().wrong).toEqual({ t1: [expect.stringMatching(/^0:[0-9a-f]{16}$/)], t2: [expect.any(String)] });
  });

  it('raises same_game_actions for the same 30 actions in the same order, and not for another order or a short run', () => {
    const play = (keys?: string[], n = 30) => new Log().item(0, 'g').actions(100, n, 500, keys).prints();
    const flags = crossSessionSignals([
      { id: 'a', prints: play() },
      { id: 'b', prints: play() },
      { id: 'c', prints: play(['ACTION2', 'ACTION1', 'ACTION3', 'ACTION4']) },
    ]);
    expect(flags.get('a')).toEqual(['same_game_actions:g']);
    expect(flags.get('b')).toEqual(['same_game_actions:g']);
    expect(flags.has('c')).toBe(false);
    const short = crossSessionSignals([
      { id: 'a', prints: play(undefined, 29) },
      { id: 'b', prints: play(undefined, 29) },
    ]);
    expect(short.size).toBe(0);
  });

  it('raises same_description for equal or nearly equal texts of the same item, and not for different ones', () => {
    const wrote = (text: string, item = 't1', stage = 'last') =>
      new Log().add(0, 'description.submit', { item, stage, text }).prints();
    const flags = crossSessionSignals([
      { id: 'a', prints: wrote(describeText) },
      // Case and punctuation do not count; one word changed at the end keeps 27 of 29 triples.
      { id: 'b', prints: wrote(describeText.toUpperCase().replace(/ all$/, ', really!')) },
      { id: 'c', prints: wrote('Each red square becomes a plus shape coloured like the closest blue cell') },
      // The same text for another stage or item is not compared.
      { id: 'd', prints: wrote(describeText, 't2') },
      { id: 'e', prints: wrote(describeText, 't1', 'first') },
    ]);
    expect(flags.get('a')).toEqual(['same_description:t1']);
    expect(flags.get('b')).toEqual(['same_description:t1']);
    expect(flags.has('c')).toBe(false);
    expect(flags.has('d')).toBe(false);
    expect(flags.has('e')).toBe(false);
    // Short texts ("no idea") are never compared.
    expect(
      crossSessionSignals([
        { id: 'x', prints: wrote('no idea') },
        { id: 'y', prints: wrote('No idea.') },
      ]).size,
    ).toBe(0);
  });

  it('leaves out a wrong grid most sessions share: a common mistake', () => {
    const common = [[0]];
    const sessions = Array.from({ length: 12 }, (_, i) => ({
      id: `s${i}`,
      prints: new Log().wrong('t1', common, 1).wrong('t2', common, 2).prints(),
    }));
    // 12 sessions share it on two tasks: more than 10 and more than a tenth of them.
    expect(crossSessionSignals(sessions).size).toBe(0);
    // 10 of them still count as sharing.
    expect(crossSessionSignals(sessions.slice(0, 10)).get('s0')).toEqual([
      'same_wrong_answer:t1',
      'same_wrong_answer:t2',
    ]);
  });

  it('finds exactly the similar descriptions that comparing every pair finds', () => {
    // Variants of a few base texts, each with some words changed, from a seeded generator.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const vocabulary = describeText.toLowerCase().split(' ');
    const bases = Array.from({ length: 4 }, () =>
      Array.from({ length: 30 }, () => vocabulary[next(vocabulary.length)]),
    );
    const texts = Array.from({ length: 80 }, () => {
      const words = [...bases[next(bases.length)]];
      for (let k = next(5); k > 0; k--) words[next(words.length)] = `w${next(40)}`;
      return words.join(' ');
    });
    const wrote = (text: string) =>
      new Log().add(0, 'description.submit', { item: 't1', stage: 'last', text }).prints();
    const found = crossSessionSignals(texts.map((text, i) => ({ id: `s${i}`, prints: wrote(text) })));
    const expected = new Set<string>();
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++)
        if (textSimilarity(texts[i], texts[j]) >= 0.8) expected.add(`s${i}`).add(`s${j}`);
    expect(expected.size).toBeGreaterThan(10);
    expect(expected.size).toBeLessThan(texts.length);
    expect(new Set(found.keys())).toEqual(expected);
  });

  it('normalises text and measures similarity by word triples', () => {
    expect(normaliseText('  The RED square,\nmoves!  ')).toBe('the red square moves');
    expect(textSimilarity('a b c d', 'a b c d')).toBe(1);
    // Triples {abc, bcd} and {abc, bce}: one shared of three.
    expect(textSimilarity('a b c d', 'a b c e')).toBeCloseTo(1 / 3);
  });
});

describe('signals in results and payments', () => {
  const session = (id: string, over: Partial<ResultsSession> = {}): ResultsSession => ({
    id,
    studyVersion: 1,
    params: { PROLIFIC_PID: `p-${id}` },
    order: ORDER,
    state: 'finished',
    createdAt: BASE + id.charCodeAt(0),
    lastEventAt: BASE,
    finishedAt: BASE + 1000,
    flags: [],
    ...over,
  });
  const copied = () =>
    new Log()
      .item(0, 't1')
      .add(100, 'text.paste', { item: 't1', field: 'description', stage: 'last', length: 200, text: describeText })
      .add(200, 'description.submit', { item: 't1', stage: 'last', text: describeText });

  it('lists each participant with its own and its cross-session signals', () => {
    const a = copied();
    const b = copied();
    const honest = new Log()
      .item(0, 't1')
      .add(200, 'description.submit', { item: 't1', stage: 'last', text: 'it grows' });
    const results = studyResults({
      study: { id: 's' },
      versions: [{ version: 1, definition: STUDY }],
      version: null,
      sessions: [
        { session: session('a'), events: a.events, submissions: a.subs },
        { session: session('b'), events: b.events, submissions: b.subs },
        { session: session('h'), events: honest.events, submissions: honest.subs },
      ],
      testCount: () => 1,
      games: {},
      replay: null,
      now: BASE + 10_000,
    });
    const flags = Object.fromEntries(results.participants.map((p) => [p.sessionId, p.flags.filter(isSignalFlag)]));
    expect(flags).toEqual({
      a: ['pasted_text:t1', 'same_description:t1'],
      b: ['pasted_text:t1', 'same_description:t1'],
      h: [],
    });
  });

  it('lists signals beside each payment and never holds a bonus back for them', () => {
    const digest = (log: Log, id: string) => digestSession(STUDY, session(id), log.events, log.subs, () => 1, null);
    const sessions: CampaignSession[] = withCrossSignals(
      [
        ['a', copied()],
        ['b', copied()],
        ['c', new Log()],
      ].map(([id, log]) => ({
        id: id as string,
        params: { PROLIFIC_PID: `p${id as string}` },
        state: 'finished',
        inFlight: false,
        excluded: false,
        flags: id === 'c' ? ['low_effort'] : digest(log as Log, id as string).flags,
        createdAt: BASE,
        digest: digest(log as Log, id as string),
        current: null,
      })),
    );
    const claims = ['a', 'b', 'c'].map((id) => ({
      sessionId: id,
      candidate: 't1',
      participant: `p${id}`,
      state: 'solved' as const,
      excluded: false,
      inFlight: false,
    }));
    const view = paymentsView(STUDY, sessions, claims);
    expect(view.sessions.map((s) => [s.sessionId, s.counts, s.reason ?? null, s.signals])).toEqual([
      ['a', true, null, ['pasted_text:t1', 'same_description:t1']],
      ['b', true, null, ['pasted_text:t1', 'same_description:t1']],
      // A flag that is not a signal still holds the bonus back.
      ['c', false, 'flagged', []],
    ]);
    expect(paymentsCsv(view).split('\r\n')).toEqual([
      'session_id,participant_id,stage,solved,levels,fee,bonus,currency,counts,reason,signals',
      'a,pa,main,1,0,5.00,1.00,GBP,true,,"pasted_text:t1; same_description:t1"',
      'b,pb,main,1,0,5.00,1.00,GBP,true,,"pasted_text:t1; same_description:t1"',
      'c,pc,main,1,0,5.00,1.00,GBP,false,flagged,',
      '',
    ]);
  });
});
