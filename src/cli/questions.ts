/**
 * `arc-studio questions check` (validate question files) and `arc-studio score-answers` (score
 * a model's answers to a question set). The formats are described in `src/core/questions/schema.ts`.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from './command';
import { parseCommandArgs, selectSubcommand, usageError } from './args';
import {
  formatQuestionProblem,
  parseQuestionFile,
  type QuestionFileParse,
  type QuestionProblem,
} from '../core/questions/parse';
import { RESPONSE_RULES, type ResponseRule } from '../core/questions/judge';
import { parseAnswersFile, scoreAnswers, type ScoreReport } from '../core/questions/score';
import type { QuestionItem } from '../core/questions/schema';
import { questionImages } from '../server/collections/questions';
import { besideHumans, formatBeside, type BesideHumans } from '../core/questions/beside';
import { questionFacts, type QuestionResult } from '../core/analysis/questions';
import { computeStudyResults } from '../server/digests/studyDigests';
import { TaskLibrary } from '../server/collections/collections';
import { openStore, redact } from '../server/store/open';
import { replayWithEngine } from '../server/study/studies';
import { bundledTaskDirs } from './serve';

/** File names read as question files inside a folder. */
const QUESTION_FILE = /\.(jsonl|json)$/i;

export interface QuestionCheck {
  /** Items that parsed. */
  valid: number;
  /** Items (lines, or list entries) with at least one problem; a file that cannot be read counts as one. */
  invalid: number;
  problems: QuestionProblem[];
  items: QuestionItem[];
}

/** Reads one question file; problems for an unreadable file instead of an exception. */
export async function readQuestionFile(file: string): Promise<QuestionFileParse> {
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => e);
  if (text instanceof Error) {
    const why =
      text.code === 'ENOENT'
        ? 'no such file; check the path'
        : text.code === 'EISDIR'
          ? 'is a folder; name a .jsonl or .json question file'
          : `cannot be read (${text.message})`;
    return { items: [], problems: [{ place: file, field: '', reason: why }] };
  }
  const parsed = parseQuestionFile(file, text);
  // An item whose image is missing is invalid too: the server would refuse the file.
  const { problems } = await questionImages(file, parsed.items);
  if (problems.length === 0) return parsed;
  const bad = new Set(problems.map((p) => p.id));
  return {
    items: parsed.items.filter((q) => !bad.has(q.id)),
    problems: [
      ...parsed.problems,
      ...problems.map((p) => ({ place: `${file} item "${p.id}"`, field: 'images', reason: `"${p.src}" ${p.reason}` })),
    ],
  };
}

/** Validates every question file named, or found (`.jsonl`, `.json`) in the folders named. */
export async function checkQuestionPaths(paths: readonly string[]): Promise<QuestionCheck> {
  const result: QuestionCheck = { valid: 0, invalid: 0, problems: [], items: [] };
  for (const p of paths) {
    const info = await stat(p).catch(() => null);
    let files = [p];
    if (info?.isDirectory()) {
      files = (await readdir(p))
        .filter((f) => QUESTION_FILE.test(f))
        .sort()
        .map((f) => path.join(p, f));
      if (files.length === 0) {
        result.invalid++;
        result.problems.push({ place: p, field: '', reason: 'folder holds no .jsonl or .json question files' });
        continue;
      }
    }
    for (const file of files) {
      const r = await readQuestionFile(file);
      result.valid += r.items.length;
      result.invalid += new Set(r.problems.map((x) => x.place)).size;
      result.problems.push(...r.problems);
      result.items.push(...r.items);
    }
  }
  return result;
}

const CHECK = {
  command: 'questions check',
  usage: 'questions check <file|dir>...',
  summary:
    'Validate question files (AI2 ARC JSONL, ARB-style JSONL or JSON): one line per problem with its place (file:line) and reason, then "N valid, M invalid" counting items. Exit 0 only when all are valid.',
  positionals: { name: '<file|dir>...', help: 'question .jsonl/.json files, or folders holding them' },
  options: {},
} as const;

export const questionsCommand: Command = {
  summary: CHECK.summary,
  usage: CHECK.usage,
  async run(args) {
    const { rest } = selectSubcommand({ command: 'questions', usage: CHECK.usage }, { check: CHECK }, args);
    const { positionals: paths } = parseCommandArgs(CHECK, rest);
    if (paths.length === 0) throw usageError(CHECK, 'name at least one question file or folder.');
    const r = await checkQuestionPaths(paths);
    for (const p of r.problems) console.log(formatQuestionProblem(p));
    console.log(`${r.valid} valid, ${r.invalid} invalid`);
    return r.invalid === 0 ? 0 : 1;
  },
};

const SCORE = {
  command: 'score-answers',
  usage: `score-answers --questions FILE... --answers FILE [--rule ${RESPONSE_RULES.join('|')}] [--study ID [--version N] [--data-dir DIR]] [--json]`,
  summary:
    'Score a model\'s answers (JSONL of {"id", "response"}) against question files: accuracy per subset and overall, as a table or JSON. Questions without an answer count as wrong and are listed. With --study, each subset\'s human accuracy (95% Wilson interval) from that study is shown beside the model\'s; the study is read from the serve store (PGlite in --data-dir, or DATABASE_URL).',
  options: {
    questions: { type: 'string', value: 'FILE', multiple: true, help: 'a question file (AI2 ARC or ARB-style)' },
    answers: { type: 'string', value: 'FILE', help: 'the model\'s answers, one {"id", "response"} per line' },
    rule: {
      type: 'string',
      value: 'NAME',
      default: 'mcpbr',
      help: 'how choice answers are read from a response: mcpbr = the last standalone letter A-E or digit 1-5, case-insensitive',
    },
    json: { type: 'boolean', help: 'print the report as JSON' },
    study: {
      type: 'string',
      value: 'ID',
      help: "a study that asked these questions: its people's accuracy per subset is shown beside the model's",
    },
    version: {
      type: 'integer',
      value: 'N',
      min: 1,
      help: 'with --study: only this version of the study (default: every version)',
    },
    'data-dir': {
      type: 'string',
      value: 'DIR',
      default: '.arc-studio',
      help: 'with --study: the data folder "arc-studio serve" uses; ignored when DATABASE_URL is set',
    },
  },
} as const;

/** Reads, validates and scores; throws with every problem listed when a file is broken. */
export async function scoreAnswerFiles(
  questionFiles: readonly string[],
  answersFile: string,
  rule: ResponseRule,
): Promise<ScoreReport & { questionFiles: readonly string[]; answersFile: string }> {
  const check = await checkQuestionPaths(questionFiles);
  if (check.problems.length) {
    throw new Error(
      `the question files have problems; fix them (arc-studio questions check shows the same list) and run again:\n${check.problems.map(formatQuestionProblem).join('\n')}`,
    );
  }
  const seen = new Set<string>();
  for (const q of check.items) {
    if (seen.has(q.id))
      throw new Error(
        `question id "${q.id}" appears in more than one question file; ids must be unique across the files scored together.`,
      );
    seen.add(q.id);
  }
  const text = await readFile(answersFile, 'utf8').catch((e: NodeJS.ErrnoException) => e);
  if (text instanceof Error)
    throw new Error(
      `cannot read the answers file "${answersFile}" (${text.code === 'ENOENT' ? 'no such file' : text.message}); give a JSONL file of {"id", "response"} lines.`,
    );
  const answers = parseAnswersFile(answersFile, text);
  if (answers.problems.length)
    throw new Error(
      `the answers file has problems; fix them and run again:\n${answers.problems.map(formatQuestionProblem).join('\n')}`,
    );
  return { questionFiles, answersFile, ...scoreAnswers(check.items, answers.answers, rule) };
}

const pct = (v: number | null) => (v === null ? '-' : `${(v * 100).toFixed(1)}%`);

/** The report as the table `score-answers` prints. */
export function formatAnswerReport(r: ScoreReport): string {
  const rows = [['subset', 'questions', 'judged', 'correct', 'missing', 'ungraded', 'accuracy']];
  for (const s of [...r.subsets, r.overall])
    rows.push([s.subset, s.questions, s.judged, s.correct, s.missing, s.ungraded, pct(s.accuracy)].map(String));
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const out = [
    `rule ${r.rule}: choice answers are the last standalone letter A-E or digit 1-5 in the response; numbers the last number, within the item's relative tolerance.`,
    '',
  ];
  out.push(
    ...rows.map((row) =>
      row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '),
    ),
  );
  out.push('');
  const list = (ids: readonly string[]) =>
    ids.length > 20 ? `${ids.slice(0, 20).join(', ')} and ${ids.length - 20} more` : ids.join(', ');
  if (r.missing.length) out.push(`missing answers (counted wrong): ${r.missing.length}: ${list(r.missing)}`);
  if (r.unknown.length)
    out.push(`answers to ids not in the questions (ignored): ${r.unknown.length}: ${list(r.unknown)}`);
  if (r.overall.ungraded) out.push(`ungraded (symbolic or free-response, kept for grading): ${r.overall.ungraded}`);
  return out.join('\n').trimEnd();
}

/** A study's people beside a model's report (`score-answers --study`). */
export interface HumanBaseline {
  readonly study: {
    readonly id: string;
    readonly title: string;
    readonly version: number | null;
    readonly from: string;
  };
  readonly beside: BesideHumans;
}

/**
 * The study's counted answers to the scored questions, from the store `serve` uses, beside the
 * model's report. Study questions are matched to the files' questions by question id.
 * @throws Error naming what to do when there is no database, no such study, or a question id
 * the study asks from two collections.
 */
export async function humanBaseline(
  items: readonly QuestionItem[],
  report: ScoreReport,
  o: { study: string; version: number | null; dataDir: string; databaseUrl?: string },
): Promise<HumanBaseline> {
  if (!o.databaseUrl && !existsSync(path.join(o.dataDir, 'db'))) {
    throw new Error(
      `no database in ${path.join(o.dataDir, 'db')}: give the --data-dir that "arc-studio serve" uses (default .arc-studio), or set DATABASE_URL for PostgreSQL.`,
    );
  }
  const library = new TaskLibrary();
  for (const dir of bundledTaskDirs('tasks')) await library.mount(dir);
  for (const dir of bundledTaskDirs('practice')) await library.mount(dir, undefined, 'practice');
  const byId = new Map(items.map((q) => [q.id, q]));
  const store = await openStore(o.databaseUrl ? { databaseUrl: o.databaseUrl } : { dataDir: o.dataDir });
  try {
    const results = await computeStudyResults(
      {
        store,
        library,
        adminTokenHash: '',
        replay: replayWithEngine,
        questionFacts: (_collection, question) => {
          const q = byId.get(question);
          return q ? questionFacts(q) : null;
        },
      },
      o.study,
      o.version,
    );
    if ('error' in results)
      throw new Error(
        results.error.replace(
          'GET /api/admin/studies lists the studies there are.',
          'Check --study, and --data-dir or DATABASE_URL.',
        ),
      );
    const rows: QuestionResult[] = results.questions.filter((q) => byId.has(q.question));
    const from = new Map<string, Set<string>>();
    for (const q of rows) from.set(q.question, (from.get(q.question) ?? new Set()).add(q.collection));
    const twice = [...from].find(([, c]) => c.size > 1);
    if (twice)
      throw new Error(
        `study "${o.study}" asks question "${twice[0]}" from the collections ${[...twice[1]].join(' and ')}; the answers file cannot say which one it answers. Score against one collection's file at a time.`,
      );
    return {
      study: {
        id: o.study,
        title: results.study.title,
        version: o.version,
        from: o.databaseUrl ? `PostgreSQL at ${redact(o.databaseUrl)}` : `PGlite in ${path.join(o.dataDir, 'db')}`,
      },
      beside: besideHumans(items, report, rows),
    };
  } finally {
    await store.close();
  }
}

export const scoreAnswersCommand: Command = {
  summary: SCORE.summary,
  usage: SCORE.usage,
  async run(args) {
    const { values } = parseCommandArgs(SCORE, args);
    if (values.questions.length === 0) throw usageError(SCORE, 'give the question set with --questions FILE.');
    if (values.answers === undefined) throw usageError(SCORE, "give the model's answers with --answers FILE.");
    const rule = values.rule;
    if (!(RESPONSE_RULES as readonly string[]).includes(rule))
      throw usageError(SCORE, `--rule "${rule}" is not known; use ${RESPONSE_RULES.join(' or ')}.`);
    if (values.study === undefined && values.version !== undefined)
      throw usageError(SCORE, '--version needs --study: name the study whose people to compare with.');
    const report = await scoreAnswerFiles(values.questions, values.answers, rule as ResponseRule);
    if (values.study === undefined) {
      console.log(values.json ? JSON.stringify(report, null, 2) : formatAnswerReport(report));
      return 0;
    }
    const items = (await checkQuestionPaths(values.questions)).items;
    const human = await humanBaseline(items, report, {
      study: values.study,
      version: values.version ?? null,
      dataDir: path.resolve(values['data-dir']),
      databaseUrl: process.env.DATABASE_URL || undefined,
    });
    if (values.json) {
      console.log(JSON.stringify({ ...report, human }, null, 2));
      return 0;
    }
    const h = human.beside.overall.human;
    console.log(
      [
        formatAnswerReport(report),
        '',
        `Beside the people of study "${human.study.id}"${human.study.version === null ? '' : ` version ${human.study.version}`} (${human.study.from}): ${h.judged} counted answer${h.judged === 1 ? '' : 's'} to ${h.questions} of these questions${h.awaiting ? `, ${h.awaiting} awaiting grading` : ''}. People's accuracy pools the answers; the interval is a 95% Wilson interval. "model (same questions)" is the model on the questions people answered.`,
        '',
        formatBeside(human.beside, human.study.id),
      ].join('\n'),
    );
    return 0;
  },
};
