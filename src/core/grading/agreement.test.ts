import { describe, expect, it } from 'vitest';
import {
  agreementOf,
  answerStatus,
  cohensKappa,
  disagree,
  type GradeRow,
  meanGrade,
  pearson,
  scoreDistribution,
} from './agreement';
import { type Grade, makeGrade, passMark } from './grade';
import { formatQuestionProblem, parseQuestionFile } from '../questions/parse';

const RUBRIC = {
  criteria: [
    { text: 'closed form', points: 1 },
    { text: 'base case', points: 1 },
    { text: 'step', points: 2 },
    { text: 'conclusion', points: 1 },
  ],
};
const grade = (points: number, maxPoints = 5, pass = points >= maxPoints / 2): Grade => ({
  criteria: [],
  points,
  maxPoints,
  pass,
  note: '',
});
const row = (answer: string, grader: string, points: number, maxPoints = 5, item = 'q'): GradeRow => ({
  ...grade(points, maxPoints),
  answer,
  item,
  grader,
});

describe("Pearson and Cohen's kappa, against figures worked out by hand", () => {
  it('Pearson: x = 1..4, y = 2, 4, 5, 9 gives 11 / sqrt(5 * 26)', () => {
    // means 2.5 and 5; Sxy = 1.5*3 + 0.5*1 + 0 + 1.5*4 = 11; Sxx = 5; Syy = 9 + 1 + 0 + 16 = 26
    expect(pearson([1, 2, 3, 4], [2, 4, 5, 9])).toBeCloseTo(11 / Math.sqrt(130), 12);
    expect(pearson([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
    expect(pearson([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
  });

  it('Pearson is undefined for one pair or a side that does not vary', () => {
    expect(pearson([3], [4])).toBeNull();
    expect(pearson([2, 2, 2], [1, 2, 3])).toBeNull();
    expect(pearson([], [])).toBeNull();
  });

  it('kappa: 7 of 10 agree, pass rates 0.6 and 0.5, chance 0.5, kappa 0.4', () => {
    const a = [true, true, true, false, false, true, false, true, true, false];
    const b = [true, true, false, false, false, true, true, true, false, false];
    expect(cohensKappa(a, b)).toBeCloseTo(0.4, 12);
    // perfect agreement with both marks used: 1; systematic opposite: -1
    expect(cohensKappa([true, false, true, false], [true, false, true, false])).toBeCloseTo(1, 12);
    expect(cohensKappa([true, false], [false, true])).toBeCloseTo(-1, 12);
  });

  it('kappa is undefined without pairs or when both graders give one mark to everything', () => {
    expect(cohensKappa([], [])).toBeNull();
    expect(cohensKappa([true, true, true], [true, true, true])).toBeNull();
  });
});

describe('grades: criterion scores checked and added up, the pass rule', () => {
  it('adds criterion points and passes at half the total by default', () => {
    const g = makeGrade(RUBRIC, {
      criteria: [
        { points: 1, note: '' },
        { points: 1, note: ' ok ' },
        { points: 0.5, note: '' },
        { points: 0, note: '' },
      ],
      note: 'partial',
    });
    expect(g).toEqual({
      ok: true,
      grade: {
        criteria: [
          { points: 1, note: '' },
          { points: 1, note: 'ok' },
          { points: 0.5, note: '' },
          { points: 0, note: '' },
        ],
        points: 2.5,
        maxPoints: 5,
        pass: true,
        note: 'partial',
      },
    });
    expect(passMark(RUBRIC)).toBe(2.5);
    const below = makeGrade(RUBRIC, {
      criteria: [
        { points: 1, note: '' },
        { points: 1, note: '' },
        { points: 0.25, note: '' },
        { points: 0, note: '' },
      ],
      note: '',
    });
    expect(below.ok && below.grade.pass).toBe(false);
  });

  it("uses the rubric's pass mark when it states one", () => {
    const strict = { ...RUBRIC, pass: 4 };
    const g = makeGrade(strict, {
      criteria: [
        { points: 1, note: '' },
        { points: 1, note: '' },
        { points: 1, note: '' },
        { points: 0, note: '' },
      ],
      note: '',
    });
    expect(g.ok && g.grade).toMatchObject({ points: 3, pass: false });
  });

  it("reads a rubric's pass mark from a question file, and refuses one above the total", () => {
    const line = (pass: number) =>
      JSON.stringify({
        id: `p${pass}`,
        prompt: 'Prove it.',
        rubric: {
          criteria: [
            { text: 'a', points: 2 },
            { text: 'b', points: 1 },
          ],
          pass,
        },
      });
    const parsed = parseQuestionFile('q.jsonl', [line(2), line(4)].join('\n'));
    expect(parsed.items.map((q) => q.rubric?.pass)).toEqual([2]);
    expect(parsed.problems.map(formatQuestionProblem)).toEqual([
      expect.stringContaining("rubric.pass: is more than the criteria's total points"),
    ]);
  });

  it('marks an item without a rubric correct (1 of 1) or incorrect (0 of 1)', () => {
    expect(makeGrade(null, { correct: true, note: '' })).toEqual({
      ok: true,
      grade: { criteria: [], points: 1, maxPoints: 1, pass: true, note: '' },
    });
    expect(makeGrade(null, { correct: false, note: 'no' })).toMatchObject({
      ok: true,
      grade: { points: 0, pass: false },
    });
  });

  it('refuses points out of range, too many decimals, a wrong count of criteria and the wrong kind of grade', () => {
    const scores = (...p: number[]) => p.map((points) => ({ points, note: '' }));
    const bad = (r: ReturnType<typeof makeGrade>) => (r.ok ? [] : r.problems);
    expect(bad(makeGrade(RUBRIC, { criteria: scores(1, 1, 3, 0), note: '' }))).toEqual([
      'criteria[2].points is 3; it must be from 0 to 2',
    ]);
    expect(bad(makeGrade(RUBRIC, { criteria: scores(-1, 1, 1, 0), note: '' }))).toEqual([
      'criteria[0].points is -1; it must be from 0 to 1',
    ]);
    expect(bad(makeGrade(RUBRIC, { criteria: scores(0.333, 1, 1, 0), note: '' }))).toEqual([
      'criteria[0].points is 0.333; use at most two decimals',
    ]);
    expect(bad(makeGrade(RUBRIC, { criteria: scores(NaN, 1, 1, 0), note: '' }))[0]).toMatch(/must be from 0 to 1/);
    expect(bad(makeGrade(RUBRIC, { criteria: scores(1, 1, 1, 0, 1), note: '' }))[0]).toMatch(
      /has 5 scores; the rubric has 4 criteria/,
    );
    expect(bad(makeGrade(RUBRIC, { correct: true, note: '' }))[0]).toMatch(/has a rubric of 4 criteria/);
    expect(bad(makeGrade(null, { criteria: scores(1), note: '' }))[0]).toMatch(/no rubric/);
    expect(bad(makeGrade(null, { correct: true, note: 'x'.repeat(2001) }))[0]).toMatch(/note is 2001 characters/);
  });
});

describe('disagreements and final grades', () => {
  it('disagree: pass/fail differs, or totals more than a quarter of the total apart', () => {
    expect(disagree(grade(3), grade(2))).toBe(true); // 3 passes, 2 fails (mark 2.5)
    expect(disagree(grade(5), grade(3))).toBe(true); // 2 apart > 1.25
    expect(disagree(grade(4), grade(3))).toBe(false); // 1 apart, both pass
    expect(disagree(grade(0), grade(1.25))).toBe(false); // exactly a quarter apart
  });

  it('one grade is final; agreeing grades average; disagreeing wait; an adjudication decides', () => {
    expect(answerStatus([], null)).toEqual({ status: 'ungraded' });
    expect(answerStatus([grade(4)], null)).toEqual({ status: 'final', source: 'single', grade: grade(4) });
    expect(answerStatus([grade(4), grade(3)], null)).toMatchObject({
      status: 'final',
      source: 'agreed',
      grade: { points: 3.5, pass: true },
    });
    expect(answerStatus([grade(5), grade(1)], null)).toEqual({ status: 'disagreement' });
    expect(answerStatus([grade(5), grade(1)], grade(2))).toEqual({
      status: 'final',
      source: 'adjudicated',
      grade: grade(2),
    });
  });

  it('the mean of agreeing rubric grades goes criterion by criterion', () => {
    const a = {
      criteria: [
        { points: 1, note: '' },
        { points: 2, note: '' },
      ],
      points: 3,
      maxPoints: 3,
      pass: true,
      note: 'a',
    };
    const b = {
      criteria: [
        { points: 1, note: '' },
        { points: 1, note: '' },
      ],
      points: 2,
      maxPoints: 3,
      pass: true,
      note: '',
    };
    expect(meanGrade([a, b])).toEqual({
      criteria: [
        { points: 1, note: '' },
        { points: 1.5, note: '' },
      ],
      points: 2.5,
      maxPoints: 3,
      pass: true,
      note: 'a',
    });
  });

  it('agreement per pair and pooled, over the answers both graders graded', () => {
    // Graders A and B on four answers: points (A, B) = (1,2), (2,4), (3,5), (4,9) of 10; C grades two.
    const rows = [
      row('s1', 'A', 1, 10),
      row('s1', 'B', 2, 10),
      row('s2', 'A', 2, 10),
      row('s2', 'B', 4, 10),
      row('s3', 'A', 3, 10),
      row('s3', 'B', 5, 10),
      row('s4', 'A', 4, 10),
      row('s4', 'B', 9, 10),
      row('s1', 'C', 2, 10),
      row('s2', 'C', 8, 10),
    ];
    const r = agreementOf(rows, ['A', 'B', 'C'], false);
    const ab = r.pairs.find((p) => p.a === 'A' && p.b === 'B')!;
    expect(ab.n).toBe(4);
    expect(ab.pearson).toBeCloseTo(11 / Math.sqrt(130), 12);
    // pass at 5 of 10: A fails all, B passes s3 and s4: agreement 2/4; A never varies, so kappa is 0 (pe = 0.5, po = 0.5)
    expect(ab.passAgreement).toBe(0.5);
    expect(ab.kappa).toBeCloseTo(0, 12);
    expect(r.pairs.map((p) => `${p.a}${p.b}:${p.n}`)).toEqual(['AB:4', 'AC:2', 'BC:2']);
    expect(r.n).toBe(8);
    // relative points are points / 10: the same correlation for the pair
    expect(
      agreementOf(
        rows.filter((x) => x.grader !== 'C'),
        ['A', 'B'],
        true,
      ).pearson,
    ).toBeCloseTo(11 / Math.sqrt(130), 12);
  });

  it('score distribution: counts per final total, lowest first', () => {
    expect(scoreDistribution([grade(3), grade(1), grade(3), grade(5)])).toEqual([
      { points: 1, count: 1 },
      { points: 3, count: 2 },
      { points: 5, count: 1 },
    ]);
  });
});
