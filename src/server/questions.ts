/**
 * Question collections: question files (AI2 ARC or ARB-style, `src/core/questions`) mounted by
 * `serve --questions [NAME=]FILE`. They are sealed, as task collections mounted with `--tasks`
 * are: a participant's browser gets a question without its answer or rubric
 * (`publicQuestion`), and the server judges what is submitted.
 *
 * A file is read and validated when it is mounted; a file with any invalid item stops the
 * server with every problem listed, as `questions check` prints them.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { formatQuestionProblem, parseQuestionFile } from '../core/questions/parse';
import type { QuestionItem } from '../core/questions/schema';
import { slug } from './collections';

export interface QuestionCollectionInfo {
  readonly id: string;
  readonly name: string;
  readonly count: number;
}

export class QuestionLibrary {
  private readonly collections = new Map<string, { info: QuestionCollectionInfo; items: Map<string, QuestionItem> }>();

  /** Mounts `[NAME=]FILE`; the id is the slug of NAME (the file name without extension by default). */
  async mount(spec: string, cwd = process.cwd()): Promise<QuestionCollectionInfo> {
    const eq = spec.indexOf('=');
    const filePart = eq > 0 ? spec.slice(eq + 1) : spec;
    const file = path.resolve(cwd, filePart);
    const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => e);
    if (text instanceof Error) throw new Error(`--questions ${filePart}: ${text.code === 'ENOENT' ? 'no such file' : text.code === 'EISDIR' ? 'is a folder' : text.message}. Give a question file (.jsonl or .json).`);
    const parsed = parseQuestionFile(filePart, text);
    if (parsed.problems.length) throw new Error(`--questions ${filePart} has problems (arc-studio questions check lists the same):\n  ${parsed.problems.map(formatQuestionProblem).join('\n  ')}`);
    const name = eq > 0 ? spec.slice(0, eq) : path.basename(file).replace(/\.(jsonl|json)$/i, '');
    let id = slug(name);
    for (let n = 2; this.collections.has(id); n++) id = `${slug(name)}-${n}`;
    const info = { id, name, count: parsed.items.length };
    this.collections.set(id, { info, items: new Map(parsed.items.map((q) => [q.id, q])) });
    return info;
  }

  list(): QuestionCollectionInfo[] {
    return [...this.collections.values()].map((c) => c.info);
  }

  /** The question with its answer (server only), or why there is none. */
  question(collectionId: string, questionId: string): { ok: true; item: QuestionItem } | { ok: false; message: string } {
    const c = this.collections.get(collectionId);
    if (!c) return { ok: false, message: `No question collection "${collectionId}"; mount its file with serve --questions ${collectionId}=FILE.` };
    const item = c.items.get(questionId);
    if (!item) return { ok: false, message: `No question "${questionId}" in question collection "${c.info.name}".` };
    return { ok: true, item };
  }
}
