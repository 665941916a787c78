import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './testing';
import { arcStudioArgs } from '../server/testing/command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCIENCE = 'data/questions/science.jsonl';
const ARB = 'data/questions/arb-sample.jsonl';

/** Runs the real command, as a user would from the project folder. */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, arcStudioArgs(args), { cwd: ROOT }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** The same command in this process (`runCli`): each command keeps one test of the real binary above. */
async function run(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await runCli(args);
  return { code: r.code, stdout: r.out, stderr: r.err };
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'arc-studio-questions-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('arc-studio questions check', () => {
  it('finds the sample question sets valid', async () => {
    const r = await cli('questions', 'check', SCIENCE, ARB);
    expect(r).toEqual({ code: 0, stdout: '16 valid, 0 invalid\n', stderr: '' });
  });

  it('names each problem with its file:line, field and reason, and exits 1', async () => {
    const file = path.join(tmp, 'broken.jsonl');
    await writeFile(
      file,
      [
        '{"id": "good", "question": "Which?", "choices": {"label": ["A", "B"], "text": ["x", "y"]}, "answerKey": "A"}',
        '{"id": "bad-key", "question": "Which?", "choices": {"label": ["A", "B"], "text": ["x", "y"]}, "answerKey": "E"}',
        '{"id": "cut", "question": "Whi',
        '{"id": "num", "prompt": "How far?", "answer": {"number": 3, "tolerance": -1}}',
        '{"id": "typo", "prompt": "p", "answer": 2, "rubrik": {}}',
      ].join('\n'),
    );
    const r = await run('questions', 'check', file, path.join(tmp, 'missing.jsonl'));
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toEqual([
      `${file}:2 answerKey: "E" is not one of the labels A, B`,
      expect.stringMatching(
        new RegExp(
          `^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3: is not valid JSON \\(.+\\); each line holds one item$`,
        ),
      ),
      `${file}:4 answer.tolerance: must be 0 or more`,
      `${file}:5: has unknown field "rubrik"`,
      `${path.join(tmp, 'missing.jsonl')}: no such file; check the path`,
      '1 valid, 5 invalid',
    ]);
  });

  it('names an item whose image is missing', async () => {
    const file = path.join(tmp, 'with-image.jsonl');
    await writeFile(
      file,
      jsonl([
        { id: 'fig', prompt: 'See the figure.', answer: 1, images: ['figure.png'] },
        { id: 'plain', prompt: 'p', answer: 2 },
      ]),
    );
    const r = await run('questions', 'check', file);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toEqual([`${file} item "fig" images: "figure.png" does not exist`, '1 valid, 1 invalid']);
  });

  it('refuses a call without files, with the usage', async () => {
    const r = await run('questions', 'check');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('name at least one question file or folder.');
    expect(r.stderr).toContain('Usage: arc-studio questions check <file|dir>...');
  });
});

describe('arc-studio score-answers', () => {
  const answers = [
    { id: 'sci-001', response: 'B' },
    { id: 'sci-002', response: 'The answer is a balance' },
    { id: 'sci-003', response: 'Option 2' },
    { id: 'sci-004', response: 'c' },
    { id: 'sci-005', response: 'A' },
    { id: 'sci-006', response: 'I am not sure.' },
    { id: 'sci-007', response: '2' },
    { id: 'sci-008', response: 'C' },
    { id: 'sci-009', response: 'Either B or C; I choose C' },
    { id: 'sci-010', response: 'B' },
    { id: 'sci-011', response: '2' },
    // sci-012 is not answered.
    { id: 'arb-law-1', response: 'B' },
    { id: 'arb-phys-1', response: 'v = sqrt(2 g h) = 4.95 m/s' },
    { id: 'arb-chem-1', response: '45.0 / 18.02 = 2.6 mol' },
    { id: 'arb-math-1', response: '2^n - 1, by induction' },
    { id: 'not-a-question', response: 'A' },
  ];

  it('prints accuracy per subset; a missing answer is wrong and named', async () => {
    const file = path.join(tmp, 'model.jsonl');
    await writeFile(file, jsonl(answers));
    const r = await cli('score-answers', '--questions', SCIENCE, '--questions', ARB, '--answers', file);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Easy: 001 B ok, 002 "a balance" reads as A (ok), 004 c ok, 007 2 ok, 008 C ok, 011 2 ok -> 6/6.
    // Challenge: 003 ok, 005 A wrong, 006 no letter wrong, 009 C ok, 010 B ok, 012 missing -> 3/6.
    expect(lines(r.stdout).slice(1)).toEqual([
      'subset           questions  judged  correct  missing  ungraded  accuracy',
      'Easy                     6       6        6        0         0    100.0%',
      'Challenge                6       6        3        1         0     50.0%',
      'multiple-choice          1       1        1        0         0    100.0%',
      'numerical                2       2        1        0         0     50.0%',
      'proof                    1       0        0        0         1         -',
      'all                     16      15       11        1         1     73.3%',
      'missing answers (counted wrong): 1: sci-012',
      'answers to ids not in the questions (ignored): 1: not-a-question',
      'ungraded (symbolic or free-response, kept for grading): 1',
    ]);
  });

  it('prints the same report as JSON', async () => {
    const file = path.join(tmp, 'model.jsonl');
    await writeFile(file, jsonl(answers));
    const r = await run('score-answers', '--questions', SCIENCE, '--answers', file, '--rule', 'mcpbr', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.overall).toEqual({
      subset: 'all',
      questions: 12,
      judged: 12,
      correct: 9,
      missing: 1,
      ungraded: 0,
      accuracy: 0.75,
    });
    expect(report.missing).toEqual(['sci-012']);
    expect(report.questions.find((q: { id: string }) => q.id === 'sci-005')).toEqual({
      id: 'sci-005',
      subset: 'Challenge',
      missing: false,
      verdict: 'wrong',
      extracted: 'A',
    });
    expect(report.questions.find((q: { id: string }) => q.id === 'sci-006')).toMatchObject({
      verdict: 'wrong',
      note: 'no standalone letter A-E or digit 1-5 in the response',
    });
  });

  it('refuses broken answer files, an unknown rule and a missing option, saying what to do', async () => {
    const broken = path.join(tmp, 'broken-answers.jsonl');
    await writeFile(broken, '{"id": "sci-001"}\n');
    let r = await run('score-answers', '--questions', SCIENCE, '--answers', broken);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `arc-studio score-answers: the answers file has problems; fix them and run again:\n${broken}:1 response: is missing\n`,
    );
    r = await run('score-answers', '--questions', SCIENCE, '--answers', broken, '--rule', 'first-letter');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--rule "first-letter" is not known; use mcpbr.');
    r = await run('score-answers', '--questions', SCIENCE);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("give the model's answers with --answers FILE.");
    r = await run('score-answers', '--questions', path.join(tmp, 'nope.jsonl'), '--answers', broken);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${path.join(tmp, 'nope.jsonl')}: no such file; check the path`);
  });
});
