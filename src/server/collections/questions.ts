/**
 * Question collections: question files (AI2 ARC or ARB-style, `src/core/questions`) mounted by
 * `serve --questions [NAME=]FILE`. They are sealed, as task collections mounted with `--tasks`
 * are: a participant's browser gets a question without its answer or rubric
 * (`publicQuestion`), and the server judges what is submitted.
 *
 * A file is read and validated when it is mounted; a file with any invalid item stops the
 * server with every problem listed, as `questions check` prints them. Images are files beside
 * the question file (or below its folder), PNG, JPEG, GIF or WebP; only the images items name
 * are served (`GET /api/question-collections/:cid/images/:src`).
 */
import path from 'node:path';
import { readFile, stat } from 'node:fs/promises';
import { formatQuestionProblem, parseQuestionFile, publicQuestion } from '../../core/questions/parse';
import type { PublicQuestion, QuestionItem } from '../../core/questions/schema';
import { slug } from './slug';

export interface QuestionCollectionInfo {
  readonly id: string;
  readonly name: string;
  readonly count: number;
}

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/**
 * The image files `items` of the question file `file` name (src -> absolute path), and the
 * problems of those that are missing, outside the file's folder or not pictures.
 */
export async function questionImages(
  file: string,
  items: readonly QuestionItem[],
): Promise<{ images: Map<string, string>; problems: { id: string; src: string; reason: string }[] }> {
  const images = new Map<string, string>();
  const problems: { id: string; src: string; reason: string }[] = [];
  const dir = path.dirname(file);
  for (const item of items) {
    for (const { src } of item.images ?? []) {
      const abs = path.resolve(dir, src);
      const rel = path.relative(dir, abs);
      const reason = !IMAGE_TYPES[path.extname(src).toLowerCase()]
        ? 'is not a .png, .jpg, .jpeg, .gif or .webp file'
        : rel.startsWith('..') || path.isAbsolute(rel) || /^[a-z]+:/i.test(src)
          ? "must be a file in the question file's folder or below it"
          : !(await stat(abs).catch(() => null))?.isFile()
            ? 'does not exist'
            : null;
      if (reason) problems.push({ id: item.id, src, reason });
      else images.set(src, abs);
    }
  }
  return { images, problems };
}

export class QuestionLibrary {
  private readonly collections = new Map<
    string,
    { info: QuestionCollectionInfo; items: Map<string, QuestionItem>; images: Map<string, string> }
  >();

  /** Mounts `[NAME=]FILE`; the id is the slug of NAME (the file name without extension by default). */
  async mount(spec: string, cwd = process.cwd()): Promise<QuestionCollectionInfo> {
    const eq = spec.indexOf('=');
    const filePart = eq > 0 ? spec.slice(eq + 1) : spec;
    const file = path.resolve(cwd, filePart);
    const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => e);
    if (text instanceof Error)
      throw new Error(
        `--questions ${filePart}: ${text.code === 'ENOENT' ? 'no such file' : text.code === 'EISDIR' ? 'is a folder' : text.message}. Give a question file (.jsonl or .json).`,
      );
    const parsed = parseQuestionFile(filePart, text);
    if (parsed.problems.length)
      throw new Error(
        `--questions ${filePart} has problems (arc-studio questions check lists the same):\n  ${parsed.problems.map(formatQuestionProblem).join('\n  ')}`,
      );
    const { images, problems } = await questionImages(file, parsed.items);
    if (problems.length)
      throw new Error(
        `--questions ${filePart} has problems:\n  ${problems.map((p) => `${filePart} item "${p.id}" image "${p.src}" ${p.reason}`).join('\n  ')}`,
      );
    const name = eq > 0 ? spec.slice(0, eq) : path.basename(file).replace(/\.(jsonl|json)$/i, '');
    let id = slug(name);
    for (let n = 2; this.collections.has(id); n++) id = `${slug(name)}-${n}`;
    const info = { id, name, count: parsed.items.length };
    this.collections.set(id, { info, items: new Map(parsed.items.map((q) => [q.id, q])), images });
    return info;
  }

  list(): QuestionCollectionInfo[] {
    return [...this.collections.values()].map((c) => c.info);
  }

  /** A collection's questions in file order (with their answers: server only), or null for an unknown collection. */
  items(collectionId: string): QuestionItem[] | null {
    const c = this.collections.get(collectionId);
    return c ? [...c.items.values()] : null;
  }

  /** An image an item of the collection names: its file and content type, or null. */
  image(collectionId: string, src: string): { file: string; type: string } | null {
    const file = this.collections.get(collectionId)?.images.get(src);
    return file ? { file, type: IMAGE_TYPES[path.extname(file).toLowerCase()] } : null;
  }

  /** The question as a participant's browser gets it: no answer or rubric; image sources as URLs of this server. */
  publicView(collectionId: string, item: QuestionItem): PublicQuestion {
    const pub = publicQuestion(item);
    if (!pub.images) return pub;
    return {
      ...pub,
      images: pub.images.map((im) => ({
        ...im,
        src: `/api/question-collections/${encodeURIComponent(collectionId)}/images/${encodeURIComponent(im.src)}`,
      })),
    };
  }

  /** The question with its answer (server only), or why there is none. */
  question(
    collectionId: string,
    questionId: string,
  ): { ok: true; item: QuestionItem } | { ok: false; message: string } {
    const c = this.collections.get(collectionId);
    if (!c)
      return {
        ok: false,
        message: `No question collection "${collectionId}"; mount its file with serve --questions ${collectionId}=FILE.`,
      };
    const item = c.items.get(questionId);
    if (!item) return { ok: false, message: `No question "${questionId}" in question collection "${c.info.name}".` };
    return { ok: true, item };
  }
}
