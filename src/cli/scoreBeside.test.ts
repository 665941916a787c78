/**
 * `arc-studio score-answers --study`: a model's answers beside the people of a study stored in a
 * PGlite data folder (written through the real routes), as a table and as JSON, and the
 * errors a user meets (no database, no such study, --version without --study).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../server/app';
import { TaskLibrary } from '../server/collections/collections';
import { hashToken } from '../server/people/auth';
import { gameIds, replayWithEngine } from '../server/study/studies';
import { openStore } from '../server/store/open';
import { seedDataDir } from '../server/store/testing';
import { runCli } from './testing';

const ROOT = path.resolve(__dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-beside-'));
const dataDir = path.join(dir, 'data');
const answers = path.join(dir, 'model.jsonl');
const ADMIN = 'researcher-token-for-cli-beside-tests-01';

/** The example question study as it was first written: single questions only, so the figures below stay fixed. */
const QUESTION_STUDY = {
  title: 'Science and reasoning questions',
  consent: 'You agree to take part.',
  completion: { code: 'QUESTIONS-DONE' },
  items: [
    { kind: 'question', id: 'puddle', collection: 'science', question: 'sci-001' },
    { kind: 'question', id: 'food-chain', collection: 'science', question: 'sci-006' },
    { kind: 'question', id: 'renewable', collection: 'science', question: 'sci-007' },
    { kind: 'question', id: 'shop-sign', collection: 'arb-sample', question: 'arb-law-1' },
    { kind: 'question', id: 'incline', collection: 'arb-sample', question: 'arb-phys-1' },
    { kind: 'question', id: 'recurrence', collection: 'arb-sample', question: 'arb-math-1' },
  ],
};

/** `arc-studio score-answers` in this process (questions.test.ts runs the real binary). */
const cli = (...args: string[]) => runCli(['score-answers', ...args], { DATABASE_URL: undefined });

beforeAll(async () => {
  // A question study; three people answer puddle (sci-001, key B, Easy) and food-chain (sci-006, key B, Challenge).
  seedDataDir(dataDir);
  const store = await openStore({ dataDir });
  try {
    const library = new TaskLibrary();
    await library.questions.mount(path.join(ROOT, 'data/questions/science.jsonl'));
    await library.questions.mount(path.join(ROOT, 'data/questions/arb-sample.jsonl'));
    const app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds },
    });
    const req = async (url: string, token: string | null, body: unknown) => {
      const res = await app.request(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
      return res.json() as Promise<Record<string, string>>;
    };
    await req('/admin/studies/questions', ADMIN, { definition: QUESTION_STUDY });
    for (const [pid, picks] of [
      ['p1', ['B', 'B']],
      ['p2', ['B', 'A']],
      ['p3', ['C', 'A']],
    ] as const) {
      const s = await req('/studies/questions/sessions', null, { params: { PROLIFIC_PID: pid } });
      let seq = 0;
      for (const [i, item] of ['puddle', 'food-chain'].entries()) {
        await req(`/sessions/${s.sessionId}/events`, s.token, {
          events: [{ seq: seq++, t: seq * 1000, kind: 'item.start', data: { item, kind: 'question' } }],
        });
        await req(`/sessions/${s.sessionId}/answers`, s.token, {
          key: `${pid}-${item}`,
          item,
          answer: { choice: picks[i] },
        });
        await req(`/sessions/${s.sessionId}/events`, s.token, {
          events: [{ seq: seq++, t: seq * 1000, kind: 'item.end', data: { item } }],
        });
      }
    }
  } finally {
    await store.close();
  }
  // The model: right on sci-001, wrong on sci-006 (C), right on every other science question.
  const keys: Record<string, string> = {
    'sci-001': 'B',
    'sci-002': 'A',
    'sci-003': '2',
    'sci-004': 'C',
    'sci-005': 'C',
    'sci-006': 'C',
    'sci-007': '2',
    'sci-008': 'C',
    'sci-009': 'C',
    'sci-010': 'B',
    'sci-011': '2',
    'sci-012': 'A',
  };
  writeFileSync(
    answers,
    Object.entries(keys)
      .map(([id, k]) => JSON.stringify({ id, response: `The answer is (${k})` }))
      .join('\n'),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('arc-studio score-answers --study', () => {
  it("prints the model beside the study's people per subset", async () => {
    const r = await cli(
      '--questions',
      'data/questions/science.jsonl',
      '--answers',
      answers,
      '--study',
      'questions',
      '--data-dir',
      dataDir,
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = r.out.split('\n');
    expect(out).toContain(
      `Beside the people of study "questions" (PGlite in ${path.join(dataDir, 'db')}): 6 counted answers to 2 of these questions. People's accuracy pools the answers; the interval is a 95% Wilson interval. "model (same questions)" is the model on the questions people answered.`,
    );
    const table = out.slice(out.findIndex((l) => l.startsWith('subset ') && l.includes('people (questions)')));
    expect(table[0].split(/\s{2,}/)).toEqual([
      'subset',
      'questions',
      'model',
      'model (same questions)',
      'people (questions)',
      '95% CI',
      'answers',
      'asked',
      'awaiting grading',
    ]);
    // Easy: puddle, 2 of 3 people right (Wilson 20.8%-93.9%); the model 6 of 6, and right on puddle.
    expect(table[1].split(/\s{2,}/)).toEqual([
      'Easy',
      '6',
      '100.0% (6/6)',
      '100.0% (1/1)',
      '66.7%',
      '20.8%-93.9%',
      '3',
      '1',
      '0',
    ]);
    // Challenge: food-chain, 1 of 3 right; the model 5 of 6, wrong on food-chain.
    expect(table[2].split(/\s{2,}/)).toEqual([
      'Challenge',
      '6',
      '83.3% (5/6)',
      '0.0% (0/1)',
      '33.3%',
      '6.1%-79.2%',
      '3',
      '1',
      '0',
    ]);
    expect(table[3].split(/\s{2,}/)).toEqual([
      'all',
      '12',
      '91.7% (11/12)',
      '50.0% (1/2)',
      '50.0%',
      '18.8%-81.2%',
      '6',
      '2',
      '0',
    ]);
  });

  it('gives the same as JSON', async () => {
    const r = await cli(
      '--questions',
      'data/questions/science.jsonl',
      '--answers',
      answers,
      '--study',
      'questions',
      '--data-dir',
      dataDir,
      '--json',
    );
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as {
      overall: { correct: number };
      human: {
        study: { id: string };
        beside: {
          subsets: { subset: string; human: { correct: number; judged: number; ci: { low: number; high: number } } }[];
        };
      };
    };
    expect(j.overall.correct).toBe(11);
    expect(j.human.study.id).toBe('questions');
    const easy = j.human.beside.subsets.find((s) => s.subset === 'Easy')!;
    expect(easy.human).toMatchObject({ correct: 2, judged: 3 });
    // scipy.stats.binomtest(2, 3).proportion_ci(method="wilson")
    expect(easy.human.ci.low).toBeCloseTo(0.20766, 5);
    expect(easy.human.ci.high).toBeCloseTo(0.938508, 5);
  });

  it('says what is wrong: no database, no such study, --version alone', async () => {
    const none = await cli(
      '--questions',
      'data/questions/science.jsonl',
      '--answers',
      answers,
      '--study',
      'questions',
      '--data-dir',
      path.join(dir, 'nothing'),
    );
    expect(none.code).not.toBe(0);
    expect(none.err).toContain(
      `no database in ${path.join(dir, 'nothing', 'db')}: give the --data-dir that "arc-studio serve" uses`,
    );
    const missing = await cli(
      '--questions',
      'data/questions/science.jsonl',
      '--answers',
      answers,
      '--study',
      'nope',
      '--data-dir',
      dataDir,
    );
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain('No study "nope". Check --study, and --data-dir or DATABASE_URL.');
    const alone = await cli('--questions', 'data/questions/science.jsonl', '--answers', answers, '--version', '2');
    expect(alone.code).not.toBe(0);
    expect(alone.err).toContain('--version needs --study');
  });
});
