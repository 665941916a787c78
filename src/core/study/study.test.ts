import { describe, expect, it } from 'vitest';
import { parseStudy, type StudyDefinitionInput } from './schema';
import { sanitizeMarkdown } from './markdown';
import { seededShuffle, sessionOrder } from './shuffle';
import {
  attemptCounts,
  effectiveState,
  eventsByItem,
  isLowEffort,
  sessionProgress,
  stateAfterEvents,
  type StoredEvent,
} from './rules';

const base: StudyDefinitionInput = {
  title: 'T',
  consent: 'ok',
  items: [
    { kind: 'page', id: 'intro', markdown: 'hi' },
    { kind: 'task', id: 'p', collection: 'c', task: 'a', practice: true },
    { kind: 'task', id: 'a', collection: 'c', task: 'a' },
    { kind: 'task', id: 'b', collection: 'c', task: 'b' },
    { kind: 'game', id: 'g', game: 'push' },
    { kind: 'task', id: 'c', collection: 'c', task: 'c' },
  ],
  completion: { code: 'X' },
};
const study = (over: Partial<StudyDefinitionInput> = {}) => {
  const r = parseStudy({ ...base, ...over });
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.study;
};
const ev = (seq: number, kind: string, data: Record<string, unknown> = {}, receivedAt = seq * 1000): StoredEvent => ({
  seq,
  t: seq,
  kind,
  data,
  receivedAt,
});

describe('study schema', () => {
  it('fills in the calibration defaults', () => {
    const s = study();
    expect(s.trials).toBe(3);
    expect(s.limits).toEqual({ itemSoftMinutes: 20, itemHardMinutes: 30, sessionMinutes: 90, abandonAfterMinutes: 30 });
    expect(s.attempt).toEqual({ minActions: 30, maxMinutes: 30 });
    expect(s.order).toBe('fixed');
    expect(s.allowLevelReset).toBe(true);
  });

  it('names the path of every problem', () => {
    const r = parseStudy({
      ...base,
      items: [
        { kind: 'task', id: 'a', collection: 'c' },
        { kind: 'page', id: 'a', markdown: '' },
        { kind: 'video', id: 'v' },
      ],
      completion: { code: 'X', redirectUrl: 'javascript:alert(1)' },
    });
    expect(r.ok).toBe(false);
    const text = (r as { problems: string[] }).problems.join('\n');
    expect(text).toMatch(/items\[0\]\.task: /);
    expect(text).toMatch(/items\[2\]\.kind: /);
    expect(text).toMatch(/completion\.redirectUrl: /);
  });

  it('refuses two items with one id', () => {
    const r = parseStudy({
      ...base,
      items: [
        { kind: 'page', id: 'a', markdown: '' },
        { kind: 'page', id: 'a', markdown: '' },
      ],
    });
    expect((r as { problems: string[] }).problems).toEqual([
      'items[1].id: "a" is used by an earlier item or candidate; item and candidate ids must be unique',
    ]);
  });

  it('refuses a soft time limit above the hard one, naming the field', () => {
    const problems = (over: Partial<StudyDefinitionInput>) => {
      const r = parseStudy({ ...base, ...over });
      return r.ok ? [] : r.problems;
    };
    expect(
      problems({
        items: [
          { kind: 'task', id: 'a', collection: 'c', task: 'a', softMinutes: 10, hardMinutes: 5 },
          { kind: 'task', id: 'b', collection: 'c', task: 'b', softMinutes: 40 },
          { kind: 'game', id: 'g', game: 'push', softMinutes: 5, hardMinutes: 5 },
          // A hard limit alone below the study's soft one: no notice, nothing wrong.
          { kind: 'task', id: 'c', collection: 'c', task: 'c', hardMinutes: 1 },
          {
            kind: 'pool',
            id: 'pool',
            draw: 1,
            candidates: [{ kind: 'task', id: 'd', collection: 'c', task: 'd', softMinutes: 3, hardMinutes: 2 }],
          },
        ],
      }),
    ).toEqual([
      'items[0].softMinutes: the soft limit (10 min) is above the hard limit (5 min); lower the soft limit or raise the hard one',
      "items[1].softMinutes: the soft limit (40 min) is above the study's hard limit (30 min); lower the soft limit or raise the hard one",
      'items[4].candidates[0].softMinutes: the soft limit (3 min) is above the hard limit (2 min); lower the soft limit or raise the hard one',
    ]);
    expect(problems({ limits: { itemSoftMinutes: 30, itemHardMinutes: 20 } })).toEqual([
      'limits.itemSoftMinutes: the soft limit (30 min) is above the hard limit (20 min); lower the soft limit or raise the hard one',
    ]);
  });
});

describe('sanitizeMarkdown', () => {
  it('removes raw HTML, comments and script links, and keeps Markdown', () => {
    expect(
      sanitizeMarkdown('**bold** <script>alert(1)</script> [x](javascript:alert(1)) <!-- c --> [ok](https://a.b)'),
    ).toBe('**bold** alert(1) [x](#)  [ok](https://a.b)');
    expect(sanitizeMarkdown('<scr<b>ipt>x')).toBe('x');
    expect(sanitizeMarkdown('[a][r]\n\n[r]: JavaScript:alert(1)')).toBe('[a][r]\n\n[r]: #');
    expect(sanitizeMarkdown('1 < 2 and 3 > 2')).toBe('1 < 2 and 3 > 2');
  });
});

describe('seeded order', () => {
  it('is the same for the same seed and a permutation', () => {
    const xs = Array.from({ length: 20 }, (_, i) => i);
    expect(seededShuffle(xs, 42)).toEqual(seededShuffle(xs, 42));
    expect(seededShuffle(xs, 42)).not.toEqual(seededShuffle(xs, 43));
    expect([...seededShuffle(xs, 42)].sort((a, b) => a - b)).toEqual(xs);
  });

  it('keeps pages and practice items in place and shuffles the rest', () => {
    const s = study({ order: 'shuffled' });
    const orders = new Set<string>();
    for (let seed = 0; seed < 50; seed++) {
      const o = sessionOrder(s, seed);
      expect(o.slice(0, 2)).toEqual([0, 1]);
      expect([...o.slice(2)].sort()).toEqual([2, 3, 4, 5]);
      orders.add(o.join());
    }
    expect(orders.size).toBeGreaterThan(10);
    expect(sessionOrder(study(), 7)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('session rules', () => {
  const s = study();
  const order = [0, 1, 2, 3, 4, 5];

  it('assigns events to items by the item.start markers and finds where the participant is', () => {
    const events = [
      ev(0, 'session.start'),
      ev(1, 'item.start', { item: 'intro' }),
      ev(2, 'item.end', { item: 'intro' }),
      ev(3, 'item.start', { item: 'a' }),
      ev(4, 'paint'),
      ev(5, 'paint'),
      ev(6, 'visibility'),
    ];
    expect([...eventsByItem(events).keys()]).toEqual(['intro', 'a']);
    const p = sessionProgress(s, order, events);
    expect(p.items.map((i) => i.finished)).toEqual([true, true, false, false, false, false]);
    expect(p.current).toBe(2);
    expect(p.items[2]).toMatchObject({ started: true, startedAt: 3000, actions: 2, durationMs: 3000 });
    expect(sessionProgress(s, order, events, (id) => id === 'a').current).toBe(3);
  });

  it('moves between states by the clock', () => {
    const created = 1_000_000;
    const clock = { state: 'active' as const, createdAt: created, lastEventAt: created + 60_000 };
    expect(effectiveState(clock, s, created + 5 * 60_000)).toBe('active');
    expect(effectiveState(clock, s, created + 60_000 + 31 * 60_000)).toBe('abandoned');
    expect(effectiveState(clock, s, created + 91 * 60_000)).toBe('timed_out');
    expect(effectiveState({ ...clock, state: 'finished' }, s, created + 500 * 60_000)).toBe('finished');
    expect(stateAfterEvents({ ...clock, state: 'abandoned' }, s, created + 40 * 60_000)).toBe('active');
    expect(stateAfterEvents({ ...clock, state: 'started' }, s, created + 91 * 60_000)).toBe('timed_out');
  });

  it('counts game attempts with more than 30 actions under 30 minutes, tasks and questions under 30 minutes', () => {
    expect(attemptCounts(s, 'game', 31, 29 * 60_000)).toBe(true);
    expect(attemptCounts(s, 'game', 30, 60_000)).toBe(false);
    expect(attemptCounts(s, 'game', 100, 30 * 60_000)).toBe(false);
    expect(attemptCounts(s, 'task', 4, 60_000)).toBe(true);
    expect(attemptCounts(s, 'question', 1, 60_000)).toBe(true);
    expect(attemptCounts(s, 'task', 100, 30 * 60_000)).toBe(false);
  });

  it('flags low effort when most visited items got almost no actions', () => {
    const item = (id: string, actions: number, extra = {}) => ({
      id,
      kind: 'task' as const,
      practice: false,
      started: true,
      startedAt: 0,
      finished: true,
      actions,
      durationMs: 1,
      activeMs: 1,
      ...extra,
    });
    expect(isLowEffort(s, [item('a', 1), item('b', 0), item('c', 40)])).toBe(true);
    expect(isLowEffort(s, [item('a', 1), item('b', 40), item('c', 40)])).toBe(false);
    expect(isLowEffort(s, [item('a', 1), item('b', 0)])).toBe(false);
    expect(
      isLowEffort(s, [
        item('a', 1, { practice: true }),
        item('b', 0, { practice: true }),
        item('c', 0, { practice: true }),
      ]),
    ).toBe(false);
  });
});
