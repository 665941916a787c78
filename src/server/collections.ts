/**
 * Task collections: folders of ARC task JSON files mounted by `serve --tasks DIR`.
 * Files are listed at start and read on demand, so mounting a clone of a large ARC repository
 * costs one directory walk.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { type ArcTask, parseTaskText, formatProblem } from '../core/formats/arcTask';

export interface CollectionInfo {
  readonly id: string;
  readonly name: string;
  readonly count: number;
}

interface Collection extends CollectionInfo {
  readonly dir: string;
  /** Task id (path below the folder, without `.json`) -> file path. */
  readonly files: ReadonlyMap<string, string>;
}

export type TaskLookup =
  | { ok: true; task: ArcTask }
  | { ok: false; status: 404 | 422; message: string };

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

export function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'tasks';
}

export class TaskLibrary {
  private readonly collections = new Map<string, Collection>();

  /**
   * Mounts a folder. `spec` is `DIR` or `NAME=DIR`; the collection id is the slug of the name
   * (the folder's own name by default), made unique with a number when needed.
   */
  async mount(spec: string, cwd = process.cwd()): Promise<CollectionInfo> {
    const eq = spec.indexOf('=');
    const dirPart = eq > 0 ? spec.slice(eq + 1) : spec;
    const dir = path.resolve(cwd, dirPart);
    const info = await stat(dir).catch(() => null);
    if (!info?.isDirectory()) throw new Error(`--tasks ${dirPart}: no such folder. Give a folder that holds ARC task .json files.`);
    const name = eq > 0 ? spec.slice(0, eq) : path.basename(dir);
    let id = slug(name);
    for (let n = 2; this.collections.has(id); n++) id = `${slug(name)}-${n}`;
    const files = new Map<string, string>();
    for (const rel of await listTaskFiles(dir)) files.set(rel.replace(/\.json$/i, ''), path.join(dir, rel));
    const c: Collection = { id, name, dir, files, count: files.size };
    this.collections.set(id, c);
    return { id, name, count: c.count };
  }

  list(): CollectionInfo[] {
    return [...this.collections.values()].map(({ id, name, count }) => ({ id, name, count }));
  }

  taskIds(collectionId: string): string[] | null {
    const c = this.collections.get(collectionId);
    return c ? [...c.files.keys()] : null;
  }

  async task(collectionId: string, taskId: string): Promise<TaskLookup> {
    const c = this.collections.get(collectionId);
    if (!c) return { ok: false, status: 404, message: `No collection "${collectionId}". Open the task browser to see the collections this server has.` };
    const file = c.files.get(taskId);
    if (!file) return { ok: false, status: 404, message: `No task "${taskId}" in collection "${c.name}".` };
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) return { ok: false, status: 404, message: `Task file ${file} can no longer be read: it was moved or deleted after the server started. Restart the server to list the folder again.` };
    const parsed = parseTaskText(text);
    if (!parsed.ok) return { ok: false, status: 422, message: `${path.basename(file)}: ${parsed.problems.map(formatProblem).join('; ')}` };
    return { ok: true, task: parsed.task };
  }
}
