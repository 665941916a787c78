/**
 * Task collections: folders of ARC task JSON files mounted by `serve --tasks DIR` (sealed) or
 * `serve --practice-tasks DIR` (practice). Files are listed at start and read on demand, so
 * mounting a clone of a large ARC repository costs one directory walk.
 *
 * Sealing (docs/api.md, "Sealing"): a sealed collection's tasks and answers go to the researcher
 * only, and studies may count its tasks. A practice collection's tasks go to anyone without
 * their test outputs, and the server checks answers without limit, so a study may use a practice
 * collection for practice items only (`sealingProblems`).
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { taskContentHash } from '../../core/analysis/versions';
import { type ArcTask, parseTaskText, formatProblem } from '../../core/formats/arcTask';
import type { StudyDefinition } from '../../core/study/schema';
import { QuestionLibrary } from './questions';
import { slug } from './slug';

import type { CollectionAccess, CollectionInfo } from '../../core/protocol/api';
export type { CollectionAccess, CollectionInfo } from '../../core/protocol/api';

interface Collection extends CollectionInfo {
  readonly dir: string;
  /** Task id (path below the folder, without `.json`) -> file path. */
  readonly files: ReadonlyMap<string, string>;
}

export type TaskLookup = { ok: true; task: ArcTask } | { ok: false; status: 404 | 422; message: string };

/** A parsed task file, with what identifies the file's state when it was read. */
interface KeptTask {
  readonly stamp: string;
  readonly task: ArcTask;
  readonly hash: string;
}

/** Parsed task files kept at most; the oldest read is dropped first. */
const KEPT_TASKS = 2000;

/** Lists every `.json` file below `dir`, sorted, as paths relative to it with `/` separators. */
export async function listTaskFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child);
      else if (e.isFile() && e.name.toLowerCase().endsWith('.json')) out.push(child);
    }
  };
  await walk('');
  return out.sort();
}

export class TaskLibrary {
  private readonly collections = new Map<string, Collection>();

  /**
   * Parsed tasks by file. A task file may be edited while the server runs, and what a
   * participant is judged against must be the file as it is now (each submission records its
   * content hash), so each lookup checks the file's state with one synchronous stat and reads the
   * file again when it changed; a restart is never needed.
   */
  private readonly kept = new Map<string, KeptTask>();

  /** `log` hears of a task file whose content changed under the running server. */
  constructor(private readonly opts: { log?: (line: string) => void } = {}) {}

  /** Question collections (`serve --questions`), sealed like task collections. */
  readonly questions = new QuestionLibrary();

  /** Practice collections' (test input, answer) fingerprints -> where they are; built on first use. */
  private practicePairs: Promise<Map<string, string>> | null = null;

  /**
   * Mounts a folder, sealed unless `access` is `practice`. `spec` is `DIR` or `NAME=DIR`; the
   * collection id is the slug of the name (the folder's own name by default), made unique with
   * a number when needed.
   */
  async mount(spec: string, cwd = process.cwd(), access: CollectionAccess = 'sealed'): Promise<CollectionInfo> {
    const eq = spec.indexOf('=');
    const dirPart = eq > 0 ? spec.slice(eq + 1) : spec;
    const dir = path.resolve(cwd, dirPart);
    const info = await stat(dir).catch(() => null);
    const flag = access === 'practice' ? '--practice-tasks' : '--tasks';
    if (!info?.isDirectory())
      throw new Error(`${flag} ${dirPart}: no such folder. Give a folder that holds ARC task .json files.`);
    const name = eq > 0 ? spec.slice(0, eq) : path.basename(dir);
    let id = slug(name);
    for (let n = 2; this.collections.has(id); n++) id = `${slug(name)}-${n}`;
    const files = new Map<string, string>();
    for (const rel of await listTaskFiles(dir)) files.set(rel.replace(/\.json$/i, ''), path.join(dir, rel));
    const c: Collection = { id, name, dir, files, count: files.size, access };
    this.collections.set(id, c);
    if (access === 'practice') this.practicePairs = null;
    return { id, name, count: c.count, access };
  }

  list(): CollectionInfo[] {
    return [...this.collections.values()].map(({ id, name, count, access }) => ({ id, name, count, access }));
  }

  /** The collection's access, or null when there is no such collection. */
  access(collectionId: string): CollectionAccess | null {
    return this.collections.get(collectionId)?.access ?? null;
  }

  taskIds(collectionId: string): string[] | null {
    const c = this.collections.get(collectionId);
    return c ? [...c.files.keys()] : null;
  }

  /** Test counts by task file, with the file's time and size they were read at. */
  private readonly testCounts = new Map<string, { mtimeMs: number; size: number; count: number | null }>();

  /**
   * How many test inputs a task has, null when it cannot be read. Kept per file while the file's
   * time and size stay, so that a results refresh reads no task file: its size is looked up on
   * the spot (a synchronous stat) instead of waiting for a file read behind the database's work
   * on the same thread.
   */
  async testCount(collectionId: string, taskId: string): Promise<number | null> {
    const file = this.collections.get(collectionId)?.files.get(taskId);
    if (!file) return null;
    let st: { mtimeMs: number; size: number };
    try {
      st = statSync(file);
    } catch {
      return null;
    }
    const kept = this.testCounts.get(file);
    if (kept && kept.mtimeMs === st.mtimeMs && kept.size === st.size) return kept.count;
    const found = await this.task(collectionId, taskId);
    const count = found.ok ? found.task.test.length : null;
    this.testCounts.set(file, { mtimeMs: st.mtimeMs, size: st.size, count });
    return count;
  }

  async task(collectionId: string, taskId: string): Promise<TaskLookup> {
    const c = this.collections.get(collectionId);
    if (!c)
      return {
        ok: false,
        status: 404,
        message: `No collection "${collectionId}". Open the task browser to see the collections this server has.`,
      };
    const file = c.files.get(taskId);
    if (!file) return { ok: false, status: 404, message: `No task "${taskId}" in collection "${c.name}".` };
    const stamp = fileStamp(file);
    const kept = this.kept.get(file);
    if (kept && stamp !== null && kept.stamp === stamp) return { ok: true, task: kept.task };
    const text = stamp === null ? null : await readFile(file, 'utf8').catch(() => null);
    if (text === null)
      return {
        ok: false,
        status: 404,
        message: `Task file ${file} can no longer be read: it was moved or deleted after the server started. Restart the server to list the folder again.`,
      };
    const parsed = parseTaskText(text);
    if (!parsed.ok)
      return {
        ok: false,
        status: 422,
        message: `${path.basename(file)}: ${parsed.problems.map(formatProblem).join('; ')}`,
      };
    const hash = taskContentHash(parsed.task);
    if (kept && kept.hash !== hash)
      this.opts.log?.(
        `Task ${c.id}/${taskId} changed (version ${kept.hash} -> ${hash}): submissions are judged against the new file from now on.`,
      );
    // The file may have changed while it was read: the stamp taken before the read makes the next lookup read it again.
    this.kept.delete(file);
    const oldest = this.kept.keys().next();
    if (this.kept.size >= KEPT_TASKS && !oldest.done) this.kept.delete(oldest.value);
    if (stamp !== null) this.kept.set(file, { stamp, task: parsed.task, hash });
    return { ok: true, task: parsed.task };
  }

  /**
   * Why `study` would leak answers through a practice collection: a counted (non-practice) task
   * item that comes from a practice collection, or whose test input and answer also appear in a
   * practice task, as a test (the practice check would judge the counted answer without limit)
   * or as a demonstration (shown to anyone).
   * Empty when the study is sealed. Tasks that cannot be read are left to the reference check.
   */
  async sealingProblems(study: StudyDefinition): Promise<string[]> {
    const problems: string[] = [];
    for (const [i, item] of study.items.entries()) {
      if (item.kind !== 'task' || item.practice) continue;
      const where = `items[${i}] (${item.id})`;
      if (this.access(item.collection) === 'practice') {
        problems.push(
          `${where}: collection "${item.collection}" is a practice collection, whose answers anyone can check without limit, so it cannot hold a counted item. Mount the folder with --tasks (sealed), or mark the item "practice": true`,
        );
        continue;
      }
      const found = await this.task(item.collection, item.task);
      if (!found.ok) continue;
      const pairs = await this.practiceFingerprints();
      for (const index of item.tests ?? found.task.test.map((_, k) => k)) {
        const test = found.task.test[index];
        const copy = test?.output ? pairs.get(fingerprint(test.input, test.output)) : undefined;
        if (copy)
          problems.push(
            `${where}: test input ${index} and its answer are also in practice task ${copy}, which anyone can see or check without limit. Remove that task from the practice folder, or mark the item "practice": true`,
          );
      }
    }
    return problems;
  }

  private practiceFingerprints(): Promise<Map<string, string>> {
    this.practicePairs ??= (async () => {
      const out = new Map<string, string>();
      for (const c of this.collections.values()) {
        if (c.access !== 'practice') continue;
        for (const taskId of c.files.keys()) {
          const found = await this.task(c.id, taskId);
          if (!found.ok) continue;
          // Demonstrations too: a practice task shows those outright.
          for (const t of [...found.task.train, ...found.task.test])
            if (t.output) out.set(fingerprint(t.input, t.output), `"${taskId}" of "${c.name}"`);
        }
      }
      return out;
    })();
    return this.practicePairs;
  }
}

/**
 * What changes whenever a file's content may have: its inode (an editor that saves by renaming a
 * new file over the old), size and modification and change times in nanoseconds. Null when the
 * file cannot be seen.
 */
function fileStamp(file: string): string | null {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return null;
  }
}

function fingerprint(input: unknown, output: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([input, output]))
    .digest('base64url');
}
