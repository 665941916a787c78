/**
 * Question results over hand-built logs: accuracy and its Wilson interval, time on the item,
 * answer changes, option counts, groups by subset, subject and type, and who is left out
 * (practice items, playtests, excluded sessions). Every expected figure is worked out by hand.
 */
import { describe, expect, it } from 'vitest';
import { parseStudy, type StudyDefinition } from '../study/schema';
import type { StoredEvent } from '../study/rules';
import {
  digestSession,
  studyResults,
  type ResultsInput,
  type ResultsSession,
  type ResultsSubmission,
  type SessionData,
} from './results';
import { questionFacts, type QuestionFacts } from './questions';
import { parseQuestionFile } from '../questions/parse';
import { answerKey } from '../grading/agreement';
import { resultsFromWire, resultsToWire } from './resultsWire';

const BASE = Date.UTC(2026, 3, 1);

const parsed = parseStudy({
  title: 'Questions',
  consent: 'ok',
  completion: { code: 'Q' },
  items: [
    { kind: 'question', id: 'warm', collection: 'sci', question: 'q-easy', practice: true },
    { kind: 'question', id: 'easy', collection: 'sci', question: 'q-easy' },
    { kind: 'question', id: 'hard', collection: 'sci', question: 'q-hard' },
    { kind: 'question', id: 'proof', collection: 'arb', question: 'p-1' },
  ],
});
if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
const study: StudyDefinition = parsed.study;

const sci = parseQuestionFile(
  'sci.jsonl',
  [
    JSON.stringify({
      id: 'q-easy',
      question: {
        stem: 'Easy?',
        choices: [
          { label: 'A', text: 'yes' },
          { label: 'B', text: 'no' },
          { label: 'C', text: 'maybe' },
        ],
      },
      answerKey: 'A',
      subset: 'Easy',
      subject: 'physics',
    }),
    JSON.stringify({
      id: 'q-hard',
      question: {
        stem: 'Hard?',
        choices: [
          { label: '1', text: 'one' },
          { label: '2', text: 'two' },
        ],
      },
      answerKey: '2',
      subset: 'Challenge',
      subject: 'physics',
    }),
  ].join('\n'),
);
const arb = parseQuestionFile(
  'arb.jsonl',
  JSON.stringify({
    id: 'p-1',
    prompt: 'Prove it.',
    rubric: { criteria: [{ text: 'proves it', points: 1 }] },
    subset: 'proof',
    subject: 'mathematics',
  }),
);
const facts = new Map<string, QuestionFacts>([
  ...sci.items.map((q) => [`sci/${q.id}`, questionFacts(q)] as const),
  ...arb.items.map((q) => [`arb/${q.id}`, questionFacts(q)] as const),
]);

class Log {
  readonly events: StoredEvent[] = [];
  readonly subs: ResultsSubmission[] = [];
  add(t: number, kind: string, data: Record<string, unknown> = {}): this {
    this.events.push({ seq: this.events.length, t, kind, data, receivedAt: BASE + t });
    return this;
  }
  /** Opens the item at `t0`, picks each label in turn (100 ms apart), answers, and leaves at `t1`. */
  choose(item: string, t0: number, picks: string[], verdict: 'correct' | 'wrong', t1: number): this {
    this.add(t0, 'item.start', { item, kind: 'question' });
    picks.forEach((label, i) => this.add(t0 + 100 * (i + 1), 'question.choice', { item, label }));
    const last = picks[picks.length - 1];
    this.add(t1 - 10, 'question.submit', { item, choice: last, verdict });
    this.subs.push({ item, testIndex: 0, trial: 1, verdict, at: BASE + t1 - 10, grid: { choice: last } });
    return this.add(t1, 'item.end', { item });
  }
  write(item: string, t0: number, texts: string[], t1: number | null): this {
    this.add(t0, 'item.start', { item, kind: 'question' });
    texts.forEach((text, i) => this.add(t0 + 1000 * (i + 1), 'question.input', { item, text }));
    this.subs.push({
      item,
      testIndex: 0,
      trial: 1,
      verdict: 'ungraded',
      at: BASE + t0 + 5000,
      grid: { text: texts[texts.length - 1] },
    });
    return t1 === null ? this : this.add(t1, 'item.end', { item });
  }
}

const session = (id: string, over: Partial<ResultsSession> = {}): ResultsSession => ({
  id,
  studyVersion: 1,
  params: { PROLIFIC_PID: id },
  order: [0, 1, 2, 3],
  state: 'finished',
  createdAt: BASE,
  lastEventAt: BASE + 60_000,
  finishedAt: BASE + 60_000,
  flags: [],
  ...over,
});

// a: easy right (B then A: 1 change, 4 s), hard wrong (1 pick, 2 s), proof written in two goes and left at 30 s.
const a = new Log()
  .choose('warm', 0, ['C'], 'wrong', 1000)
  .choose('easy', 1000, ['B', 'A'], 'correct', 5000)
  .choose('hard', 5000, ['1'], 'wrong', 7000)
  .write('proof', 7000, ['first try', 'second try'], 37_000);
// b: easy right (A, 6 s), hard right (1, 2, 1, 2: 3 changes, 3 s), proof written; the session stopped before item.end (last event at +2 s).
const b = new Log()
  .choose('easy', 0, ['A'], 'correct', 6000)
  .choose('hard', 6000, ['1', '2', '1', '2'], 'correct', 9000)
  .write('proof', 9000, ['done', 'done', 'done'], null);
// c: easy wrong (C, 2 s); opened hard and left it unanswered.
const c = new Log().choose('easy', 0, ['C'], 'wrong', 2000).add(2000, 'item.start', { item: 'hard', kind: 'question' });
// d: never began.
const d = new Log();
// A playtest and an excluded session that answer everything right: never counted.
const e = new Log().choose('easy', 0, ['A'], 'correct', 500).choose('hard', 500, ['2'], 'correct', 900);
const f = new Log().choose('easy', 0, ['A'], 'correct', 500).choose('hard', 500, ['2'], 'correct', 900);

const sessions: SessionData[] = [
  { session: session('a'), events: a.events, submissions: a.subs },
  { session: session('b', { createdAt: BASE + 1 }), events: b.events, submissions: b.subs },
  { session: session('c', { createdAt: BASE + 2 }), events: c.events, submissions: c.subs },
  { session: session('d', { createdAt: BASE + 3 }), events: d.events, submissions: d.subs },
  {
    session: session('e', { createdAt: BASE + 4, params: { mode: 'playtest' } }),
    events: e.events,
    submissions: e.subs,
  },
  {
    session: session('f', { createdAt: BASE + 5, excludedAt: BASE, excludedReason: 'bot' }),
    events: f.events,
    submissions: f.subs,
  },
];

const input = (over: Partial<ResultsInput> = {}): ResultsInput => ({
  study: { id: 'qs' },
  versions: [{ version: 1, definition: study }],
  version: null,
  sessions,
  testCount: () => null,
  games: {},
  replay: null,
  now: BASE + 3_600_000,
  questionFacts: (collection, question) => facts.get(`${collection}/${question}`) ?? null,
  ...over,
});

describe('question results', () => {
  const r = studyResults(input());
  const row = (item: string) => r.questions.find((q) => q.item === item)!;

  it('has one row per counted question, practice left out', () => {
    expect(r.questions.map((q) => [q.item, q.testIndex, q.collection, q.question, q.type, q.subset])).toEqual([
      ['easy', 0, 'sci', 'q-easy', 'choice', 'Easy'],
      ['hard', 0, 'sci', 'q-hard', 'choice', 'Challenge'],
      ['proof', 0, 'arb', 'p-1', 'free-response', 'proof'],
    ]);
  });

  it('counts answers, accuracy and its Wilson interval over the counted sessions only', () => {
    // a, b, c, d had the item; the playtest e and the excluded f are left out.
    expect(row('easy')).toMatchObject({
      participants: 4,
      opened: 3,
      answered: 3,
      correct: 2,
      wrong: 1,
      awaiting: 0,
      accuracy: 2 / 3,
    });
    // scipy.stats.binomtest(2, 3).proportion_ci(method="wilson"): 0.207660, 0.938508
    expect(row('easy').ci!.low).toBeCloseTo(0.20766, 5);
    expect(row('easy').ci!.high).toBeCloseTo(0.938508, 5);
    expect(row('hard')).toMatchObject({ participants: 4, opened: 3, answered: 2, correct: 1, wrong: 1, accuracy: 0.5 });
  });

  it('times the item from item.start to item.end, or to its last event when the session stopped', () => {
    expect(row('easy').timeMs.values).toEqual([2000, 4000, 6000]);
    expect(row('easy').timeMs.median).toBe(4000);
    expect(row('hard').timeMs.values).toEqual([2000, 3000]);
    // a: 7 s to 37 s; b: no item.end, its last event (the third input) 3 s in.
    expect(row('proof').timeMs.values).toEqual([3000, 30_000]);
  });

  it('counts answer changes: picks or texts differing from the one before', () => {
    expect(row('easy').changes.values).toEqual([0, 0, 1]);
    expect(row('easy').changed).toBe(1);
    expect(row('hard').changes.values).toEqual([0, 3]);
    // a wrote two different texts (1 change); b logged the same text three times (none).
    expect(row('proof').changes.values).toEqual([0, 1]);
  });

  it("counts the options picked, in the question's order, the key marked", () => {
    expect(row('easy').options).toEqual([
      { label: 'A', text: 'yes', count: 2, correct: true },
      { label: 'B', text: 'no', count: 0, correct: false },
      { label: 'C', text: 'maybe', count: 1, correct: false },
    ]);
    expect(row('hard').options.map((o) => [o.label, o.count, o.correct])).toEqual([
      ['1', 1, false],
      ['2', 1, true],
    ]);
    expect(row('proof').options).toEqual([]);
  });

  it('keeps free responses awaiting grading, out of accuracy', () => {
    expect(row('proof')).toMatchObject({
      answered: 2,
      awaiting: 2,
      correct: 0,
      wrong: 0,
      graded: 0,
      accuracy: null,
      ci: null,
    });
  });

  it('takes grades where they are given', () => {
    const graded = studyResults(
      input({
        grades: (sessionId, item, testIndex) =>
          sessionId === 'a' && item === 'proof' && testIndex === 0 ? { verdict: 'correct' } : null,
      }),
    );
    expect(graded.questions.find((q) => q.item === 'proof')).toMatchObject({
      answered: 2,
      awaiting: 1,
      correct: 1,
      graded: 1,
      accuracy: 1,
    });
  });

  it('pools accuracy per subset, subject and type', () => {
    const g = (field: string, value: string) => r.questionGroups.find((x) => x.field === field && x.value === value);
    expect(r.questionGroups.map((x) => `${x.field}:${x.value}`)).toEqual([
      'all:All questions',
      'subset:Easy',
      'subset:Challenge',
      'subset:proof',
      'subject:physics',
      'subject:mathematics',
      'type:choice',
      'type:free-response',
    ]);
    expect(g('all', 'All questions')).toMatchObject({
      questions: 3,
      answered: 7,
      correct: 3,
      wrong: 2,
      awaiting: 2,
      accuracy: 0.6,
    });
    expect(g('subset', 'Challenge')).toMatchObject({ questions: 1, correct: 1, wrong: 1, accuracy: 0.5 });
    // 3 of 5 physics answers right: scipy gives 0.230724, 0.882379.
    expect(g('subject', 'physics')!.ci!.low).toBeCloseTo(0.230724, 5);
    expect(g('subject', 'physics')!.ci!.high).toBeCloseTo(0.882379, 5);
    expect(g('type', 'free-response')).toMatchObject({ accuracy: null, ci: null, awaiting: 2 });
  });

  it('still counts answers when the collection is not mounted, without options or groups', () => {
    const bare = studyResults(input({ questionFacts: undefined }));
    expect(bare.questions.find((q) => q.item === 'easy')).toMatchObject({
      type: null,
      subset: null,
      correct: 2,
      wrong: 1,
      options: [],
    });
    expect(bare.questionGroups.map((x) => x.field)).toEqual(['all']);
  });

  it('reads the same from digests as from logs', () => {
    const digested = sessions.map((s) =>
      'events' in s
        ? {
            session: s.session,
            digest: JSON.parse(
              JSON.stringify(digestSession(study, s.session, s.events, s.submissions, () => null, null)),
            ),
          }
        : s,
    );
    expect(studyResults(input({ sessions: digested }))).toEqual(r);
  });

  it('adds up the same from the input as a digest thread is handed it, grades and facts included', () => {
    const digested = sessions.map((s) =>
      'events' in s
        ? { session: s.session, digest: digestSession(study, s.session, s.events, s.submissions, () => null, null) }
        : s,
    );
    const grades = new Map([[answerKey('a', 'proof', 0), { verdict: 'correct' as const, points: 1, maxPoints: 1 }]]);
    const onMain = studyResults(
      input({ sessions: digested, grades: (id, item, t) => grades.get(answerKey(id, item, t)) ?? null }),
    );
    // What a thread receives is a structured clone: no functions, no maps.
    const wire = structuredClone(resultsToWire(input({ sessions: digested }), grades));
    expect(wire).not.toBeNull();
    expect(studyResults(resultsFromWire(wire!))).toEqual(onMain);
    expect(onMain.questions.find((q) => q.item === 'proof')).toMatchObject({ correct: 1, awaiting: 1 });
    // A session with its log and no digest needs the server's replay: it is not handed over.
    expect(resultsToWire(input(), grades)).toBeNull();
  });

  it("keys a block's questions by their position, events by their index", () => {
    const blockStudy = {
      ...study,
      items: [
        {
          kind: 'question',
          id: 'blk',
          practice: false,
          questions: [
            { collection: 'sci', question: 'q-easy' },
            { collection: 'sci', question: 'q-hard' },
          ],
        },
      ],
    } as unknown as StudyDefinition;
    const log = new Log()
      .add(0, 'item.start', { item: 'blk', kind: 'question' })
      .add(100, 'question.choice', { item: 'blk', index: 1, label: '1' })
      .add(200, 'question.choice', { item: 'blk', index: 0, label: 'A' })
      .add(300, 'question.choice', { item: 'blk', index: 1, label: '2' })
      .add(1000, 'item.end', { item: 'blk' });
    log.subs.push(
      { item: 'blk', testIndex: 0, trial: 1, verdict: 'correct', at: BASE, grid: { choice: 'A' } },
      { item: 'blk', testIndex: 1, trial: 1, verdict: 'correct', at: BASE, grid: { choice: '2' } },
    );
    const out = studyResults(
      input({
        versions: [{ version: 1, definition: blockStudy }],
        sessions: [{ session: session('z', { order: [0] }), events: log.events, submissions: log.subs }],
      }),
    );
    expect(
      out.questions.map((q) => [q.item, q.testIndex, q.question, q.correct, q.changes.values, q.timeMs.values]),
    ).toEqual([
      ['blk', 0, 'q-easy', 1, [0], [1000]],
      ['blk', 1, 'q-hard', 1, [1], [1000]],
    ]);
  });
});
