import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRun, gameActionData, parseActions, step, type ActionInput } from '../game';
import { games, solutions } from '../../games';
import { replayGameEvents } from '../game/replay';
import { parseStudy, type StudyDefinition, type StudyDefinitionInput } from '../study/schema';
import type { ReplayGame, StoredEvent } from '../study/rules';
import { digestSession, type ResultsSession, type ResultsSubmission } from './results';
import { finishDigest, foldEvents, newDigestFold, type DigestFold } from './fold';

const BASE = Date.UTC(2026, 2, 1);

/** A real ARC-AGI-1 task's number of test inputs (the server reads it from the task file the same way). */
const arcTests = (id: string) =>
  (JSON.parse(readFileSync(`/work/shared/data/arc-agi-1/training/${id}.json`, 'utf8')) as { test: unknown[] }).test
    .length;
const REAL_TASK = '007bbfb7';

const definition = (over: Partial<StudyDefinitionInput>): StudyDefinition => {
  const r = parseStudy({ title: 'Fold fixture', consent: 'ok', completion: { code: 'X' }, items: [], ...over });
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.study;
};

const STUDY = definition({
  items: [
    { kind: 'page', id: 'intro', markdown: 'hi' },
    { kind: 'task', id: 'practice', collection: 'arc', task: REAL_TASK, practice: true },
    { kind: 'task', id: 'arc', collection: 'arc', task: REAL_TASK },
    { kind: 'task', id: 'two', collection: 'c', task: 'two', tests: [0, 1] },
    { kind: 'game', id: 'lamps', game: 'glow', seed: 0 },
    { kind: 'question', id: 'q', collection: 'sci', question: 'q-easy' },
  ],
});
const testCount = (collection: string, task: string) => (collection === 'arc' ? arcTests(task) : null);

/** The server's replay hook on the real engine (as src/server/study/studies.ts builds it). */
const replay: ReplayGame = (gameId, events) => {
  const r = replayGameEvents(games[gameId], events);
  return {
    problems: r.problems,
    actions: r.steps.length,
    levelsCompleted: r.steps.reduce((m, s) => Math.max(m, s.response.levels_completed), 0),
  };
};

class Log {
  readonly events: StoredEvent[] = [];
  readonly subs: ResultsSubmission[] = [];
  add(t: number, kind: string, data: Record<string, unknown> = {}): this {
    this.events.push({ seq: this.events.length, t, kind, data, receivedAt: BASE + Math.round(t) });
    return this;
  }
  judged(
    item: string,
    testIndex: number,
    trial: number | null,
    verdict: 'correct' | 'wrong' | 'duplicate',
    t: number,
  ): this {
    this.subs.push({ item, testIndex, trial, verdict, at: BASE + t });
    return this;
  }
  /** Plays `actions` on the real engine, logging `game.open` and each `game.action` as the browser does. */
  play(game: string, actions: string, t0: number, stepMs: number, tamper?: number): this {
    this.add(t0, 'game.open', { game, seed: 0 });
    let run = createRun(games[game], { seed: 0 });
    parseActions(actions).forEach((input, i) => {
      const r = step(run, input as ActionInput);
      run = r.run;
      const data = gameActionData(game, input as ActionInput, r.response) as unknown as Record<string, unknown>;
      this.add(t0 + i * stepMs, 'game.action', i === tamper ? { ...data, frameHash: '00000000' } : data);
    });
    return this;
  }
}

const session = (order: number[]): ResultsSession => ({
  id: 's',
  studyVersion: 1,
  params: {},
  order,
  state: 'finished',
  createdAt: BASE,
  lastEventAt: null,
  finishedAt: null,
  flags: [],
});

/** Deterministic pseudo-random numbers (mulberry32), so a failing case can be run again. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The log cut at random places into parts (some empty), each folded into the fold before. */
function foldInParts(
  def: StudyDefinition,
  order: number[],
  events: readonly StoredEvent[],
  random: () => number,
): DigestFold {
  let fold = newDigestFold();
  let at = 0;
  while (at < events.length) {
    const size = Math.floor(random() * Math.min(40, events.length - at + 1));
    // A stored fold is JSON: each part starts from the fold as the database gives it back.
    fold = foldEvents(def, order, JSON.parse(JSON.stringify(fold)) as DigestFold, events.slice(at, at + size));
    at += size;
  }
  return fold;
}

const L1 = solutions.glow[0];
const L2 = solutions.glow[1];

const REAL_SESSIONS: Record<string, Log> = {
  // Every kind of item, hidden and idle time, a game solved to level 3, a question answered.
  complete: new Log()
    .add(0, 'session.start', { mode: 'study' })
    .add(100, 'item.start', { item: 'intro' })
    .add(900, 'item.end', { item: 'intro' })
    .add(1_000, 'item.start', { item: 'practice' })
    .add(1_100, 'paint', { row: 0, col: 0, color: 1 })
    .add(1_200, 'item.end', { item: 'practice' })
    .add(2_000, 'item.start', { item: 'arc' })
    .add(2_100, 'resize', { rows: 9, cols: 9 })
    .add(2_200, 'tool', { tool: 'fill' })
    .add(2_300, 'fill', { row: 0, col: 0, color: 7 })
    .add(2_350, 'select', {})
    .add(2_400, 'visibility', { state: 'hidden' })
    .add(4_400, 'visibility', { state: 'visible' })
    .add(4_500, 'paint', { row: 1, col: 1, color: 0 })
    .add(4_600, 'idle', { state: 'idle' })
    .add(9_600, 'heartbeat', {})
    .add(9_700, 'blur', {})
    .add(9_800, 'paint', { row: 1, col: 2, color: 0 })
    .add(10_000, 'submit', { index: 0, trial: 1, verdict: 'wrong' })
    .judged('arc', 0, 1, 'wrong', 10_000)
    .add(11_000, 'undo', {})
    .add(11_500, 'submit', { index: 0, trial: 2, verdict: 'correct' })
    .judged('arc', 0, 2, 'correct', 11_500)
    .add(12_000, 'item.end', { item: 'arc' })
    .add(12_100, 'paint', { row: 0, col: 0, color: 3 })
    .add(13_000, 'item.start', { item: 'two' })
    .add(13_100, 'paint', { row: 0, col: 0, color: 1 })
    .add(13_200, 'submit', { index: 0, trial: 1, verdict: 'correct' })
    .judged('two', 0, 1, 'correct', 13_200)
    .add(13_300, 'submit', { index: 1, trial: 1, verdict: 'duplicate' })
    .judged('two', 1, null, 'duplicate', 13_300)
    .add(20_000, 'item.start', { item: 'lamps' })
    .play('glow', `RESET,ACTION6:0:0,${L1},ACTION6:16:23,ACTION7,RESET,${L2},ACTION6:40:19`, 20_000, 400)
    .add(30_000, 'item.end', { item: 'lamps' })
    .add(31_000, 'item.start', { item: 'q' })
    .add(31_100, 'question.choice', { item: 'q', label: 'A' })
    .add(31_200, 'question.choice', { item: 'q', label: 'B' })
    .add(31_300, 'question.submit', { item: 'q', choice: 'B', verdict: 'wrong' })
    .add(31_400, 'item.end', { item: 'q' }),
  // A doctored game log (unverified), an item started again after its end, events before any item.
  doctored: new Log()
    .add(0, 'heartbeat', {})
    .add(10, 'paint', { row: 0, col: 0, color: 1 })
    .add(100, 'item.start', { item: 'arc' })
    .add(200, 'paint', { row: 0, col: 0, color: 2 })
    .add(300, 'item.end', { item: 'arc' })
    .add(400, 'item.start', { item: 'arc' })
    .add(500, 'paint', { row: 0, col: 1, color: 2 })
    .add(600, 'item.start', { item: 'lamps' })
    .play('glow', `RESET,${L1},${L2}`, 600, 1000, 2),
  // Cycling through items with no action: low effort.
  idle: new Log()
    .add(0, 'item.start', { item: 'arc' })
    .add(50, 'item.start', { item: 'two' })
    .add(60, 'item.start', { item: 'lamps' })
    .add(70, 'item.start', { item: 'q' })
    .add(80, 'item.start', { item: 'unknown' })
    .add(90, 'paint', {}),
};

describe('digest fold', () => {
  for (const [name, log] of Object.entries(REAL_SESSIONS)) {
    it(`gives the whole log's digest for the "${name}" session, however its log is cut into parts`, () => {
      const order = [0, 1, 2, 3, 4, 5];
      const whole = digestSession(STUDY, session(order), log.events, log.subs, testCount, replay);
      if (name === 'complete')
        expect([whole.games.lamps?.status, whole.tasks.arc.solvedWithin, whole.questions.q.parts.length]).toEqual([
          'verified',
          [false, true, true],
          1,
        ]);
      if (name === 'doctored') expect(whole.flags).toContain('game_log_unverified:lamps');
      const random = prng(name.length * 7919);
      for (let run = 0; run < 25; run++) {
        const fold = foldInParts(STUDY, order, log.events, random);
        expect(fold.seq).toBe(log.events.length - 1);
        expect(finishDigest(STUDY, session(order), fold, log.subs, testCount, replay)).toEqual(whole);
      }
      // Also without a replay (game logs left unverified) and with another order of items.
      const other = [5, 2, 4, 3];
      expect(
        finishDigest(STUDY, session(other), foldInParts(STUDY, other, log.events, random), log.subs, testCount, null),
      ).toEqual(digestSession(STUDY, session(other), log.events, log.subs, testCount, null));
    });
  }

  it("leaves a proctor's break out of an item's times, by the digest and its fold alike", () => {
    const log = new Log()
      .add(0, 'item.start', { item: 'two' })
      .add(500, 'pause', { state: 'paused' })
      .add(10_500, 'pause', { state: 'resumed' })
      .add(11_000, 'paint', {})
      .add(12_000, 'pause', { state: 'paused' })
      .add(72_000, 'pause', { state: 'resumed' })
      .add(73_000, 'submit', { verdict: 'correct' })
      .add(74_000, 'submit', { verdict: 'correct' })
      .judged('two', 0, 1, 'correct', 73_000)
      .judged('two', 1, 1, 'correct', 74_000)
      .add(75_000, 'item.end', { item: 'two' })
      .add(75_000, 'item.start', { item: 'q' })
      .add(76_000, 'pause', { state: 'paused' })
      .add(96_000, 'item.end', { item: 'q' });
    const order = [3, 5];
    const whole = digestSession(STUDY, session(order), log.events, log.subs, testCount, null);
    // 11 s to the first edit less its 10 s break; 74 s to the solve less both breaks (70 s).
    expect([whole.tasks.two.firstActionMs, whole.tasks.two.solveMs]).toEqual([1_000, 4_000]);
    // The question's break was still open at its end: its 20 s are left out to the end.
    expect(whole.questions.q.timeMs).toBe(1_000);
    const random = prng(5);
    expect(
      finishDigest(STUDY, session(order), foldInParts(STUDY, order, log.events, random), log.subs, testCount, null),
    ).toEqual(whole);
  });

  it('refuses an event it has already folded, so that a part is never counted twice', () => {
    const log = REAL_SESSIONS.complete.events;
    const fold = foldEvents(STUDY, [2], newDigestFold(), log.slice(0, 10));
    expect(() => foldEvents(STUDY, [2], fold, log.slice(9, 12))).toThrow(
      /Event 9 is not after the digest's last event 9/,
    );
  });

  it("gives the whole log's digest for generated logs of every kind of event, cut anywhere (property)", () => {
    const KINDS = [
      'paint',
      'fill',
      'undo',
      'tool',
      'select',
      'copy',
      'paste',
      'resize',
      'copy.input',
      'submit',
      'visibility',
      'idle',
      'heartbeat',
      'blur',
      'pause',
      'question.choice',
      'question.input',
      'game.open',
      'game.action',
      'item.start',
      'item.end',
      'stroke.end',
    ];
    const ITEMS = ['intro', 'practice', 'arc', 'two', 'lamps', 'q', 'nowhere'];
    for (let seed = 1; seed <= 200; seed++) {
      const random = prng(seed);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
      const log = new Log();
      let t = 0;
      const n = Math.floor(random() * 120);
      for (let i = 0; i < n; i++) {
        // Time may stand still or go back (a log's clock is the browser's).
        t += Math.floor(random() * 3000) - (random() < 0.05 ? 5000 : 0);
        const kind = pick(KINDS);
        const data: Record<string, unknown> =
          kind === 'item.start' || kind === 'item.end'
            ? { item: random() < 0.95 ? pick(ITEMS) : 7 }
            : kind === 'submit'
              ? { verdict: pick(['correct', 'wrong', 'duplicate']) }
              : kind === 'visibility'
                ? { state: pick(['hidden', 'visible', 'odd']) }
                : kind === 'idle' || kind === 'pause'
                  ? { state: pick(kind === 'idle' ? ['idle', 'active'] : ['paused', 'resumed']) }
                  : kind === 'question.choice'
                    ? { item: 'q', label: pick(['A', 'B', 'C']), index: pick([0, undefined]) }
                    : kind === 'question.input'
                      ? { item: 'q', text: pick(['1', '2']) }
                      : kind === 'game.action'
                        ? {
                            game: pick(['glow', 'other']),
                            action: pick(['RESET', 'ACTION1', 'ACTION6', 'ACTION7']),
                            x: 3,
                            y: 4,
                            level: Math.floor(random() * 3),
                            state: pick(['NOT_FINISHED', 'WIN', 'GAME_OVER']),
                          }
                        : kind === 'game.open'
                          ? { game: pick(['glow', 'other']), seed: 0 }
                          : {};
        log.add(t, kind, data);
      }
      for (let k = Math.floor(random() * 6); k > 0; k--) {
        log.judged(
          pick(['arc', 'two', 'q', 'practice']),
          pick([0, 1]),
          pick([1, 2, 3, 4, null]),
          pick(['correct', 'wrong', 'duplicate'] as const),
          Math.floor(random() * 50_000),
        );
      }
      const order = ITEMS.slice(0, 6)
        .map((_, i) => i)
        .filter(() => random() < 0.8);
      const whole = digestSession(STUDY, session(order), log.events, log.subs, testCount, replay);
      const folded = finishDigest(
        STUDY,
        session(order),
        foldInParts(STUDY, order, log.events, random),
        log.subs,
        testCount,
        replay,
      );
      expect(folded, `seed ${seed}`).toEqual(whole);
    }
  });
});
