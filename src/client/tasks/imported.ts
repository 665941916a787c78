/**
 * Task files imported in the browser (file picker, drag-and-drop, URL). They are validated with
 * the same parser as the server's collections and kept in IndexedDB as the "Imported" collection.
 */
import { queryOptions } from '@tanstack/react-query';
import { MAX_TASK_CHARS, formatProblem, parseTaskText, type ArcTask } from '../../core/formats/arcTask';
import { deleteImportedTask, listImportedTasks, putImportedTasks, type ImportedTask } from '../log/idb';

/** The collection id of imported tasks in routes; server collection ids are slugs, never this. */
export const IMPORTED = '~imported';

export interface ImportOutcome {
  readonly added: string[];
  readonly replaced: string[];
  readonly rejected: { readonly file: string; readonly reason: string }[];
}

/** A task id from a file name: the name without its folder and `.json`. */
export function taskIdFromName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  return base.replace(/\.json$/i, '') || 'task';
}

/** Validates and stores task files; every rejected file is reported with its reason. */
export async function importTaskTexts(
  files: readonly { name: string; text: string; source: string }[],
): Promise<ImportOutcome> {
  const existing = new Set((await listImportedTasks()).map((t) => t.id));
  const ok: ImportedTask[] = [];
  const rejected: { file: string; reason: string }[] = [];
  const now = new Date().toISOString();
  for (const f of files) {
    const parsed = parseTaskText(f.text);
    if (!parsed.ok) rejected.push({ file: f.name, reason: parsed.problems.map(formatProblem).join('; ') });
    else ok.push({ id: taskIdFromName(f.name), text: f.text, source: f.source, importedAt: now });
  }
  if (ok.length) await putImportedTasks(ok);
  return {
    added: ok.filter((t) => !existing.has(t.id)).map((t) => t.id),
    replaced: ok.filter((t) => existing.has(t.id)).map((t) => t.id),
    rejected,
  };
}

/** Reads `File`s as text; files that are not `.json` are reported, not read. */
export async function readTaskFiles(
  files: readonly File[],
  relative = (f: File) => f.webkitRelativePath || f.name,
): Promise<{ texts: { name: string; text: string; source: string }[]; skipped: { file: string; reason: string }[] }> {
  const texts: { name: string; text: string; source: string }[] = [];
  const skipped: { file: string; reason: string }[] = [];
  for (const f of files) {
    const name = relative(f);
    if (!/\.json$/i.test(f.name)) {
      skipped.push({ file: name, reason: 'is not a .json file; ARC tasks are JSON files' });
      continue;
    }
    if (f.size > MAX_TASK_CHARS) {
      skipped.push({
        file: name,
        reason: `is ${(f.size / 1e6).toFixed(1)} MB; a task file may be at most ${MAX_TASK_CHARS / 1e6} MB`,
      });
      continue;
    }
    texts.push({ name, text: await f.text(), source: `file:${name}` });
  }
  return { texts, skipped };
}

/** Every file below the dropped items, folders included (recursively). */
export async function filesFromDrop(items: DataTransferItemList): Promise<{ file: File; path: string }[]> {
  const out: { file: File; path: string }[] = [];
  const entries: FileSystemEntry[] = [];
  // Entries must be taken synchronously, before the first await: the list empties after the event.
  for (const item of [...items]) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry?.();
    if (entry) {
      entries.push(entry);
      continue;
    }
    // Without a file-system entry (some browsers, or files made by scripts) the file itself will do.
    const file = item.getAsFile();
    if (file) out.push({ file, path: file.name });
  }
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
      out.push({ file, path: prefix + entry.name });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      // readEntries returns at most 100 entries per call: read until it returns none.
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
        if (batch.length === 0) break;
        for (const child of batch) await walk(child, `${prefix}${entry.name}/`);
      }
    }
  };
  for (const e of entries) await walk(e, '');
  return out;
}

/** Turns a GitHub page link to a file into its raw-content link; other URLs pass unchanged. */
export function rawUrl(url: string): string {
  const m = /^https?:\/\/github\.com\/([^/]+)\/([^/]+)\/blob\/(.+)$/.exec(url.trim());
  return m ? `https://raw.githubusercontent.com/${m[1]}/${m[2]}/${m[3]}` : url.trim();
}

/** Fetches one task JSON from a URL and imports it. */
export async function importTaskUrl(url: string): Promise<ImportOutcome> {
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(rawUrl(url), window.location.href);
  } catch {
    return {
      added: [],
      replaced: [],
      rejected: [{ file: url, reason: 'is not a URL. Paste a link to one task .json file.' }],
    };
  }
  let text: string;
  try {
    const res = await fetch(parsedUrl.href);
    if (!res.ok)
      return {
        added: [],
        replaced: [],
        rejected: [
          { file: url, reason: `could not be downloaded: the server answered ${res.status} ${res.statusText}` },
        ],
      };
    text = await res.text();
  } catch {
    return {
      added: [],
      replaced: [],
      rejected: [
        {
          file: url,
          reason:
            'could not be downloaded: the site is unreachable, does not allow other sites to read it (CORS), or is a plain http address on another machine (only https is allowed there). Download the file and import it with the file picker instead.',
        },
      ],
    };
  }
  const name = decodeURIComponent(parsedUrl.pathname.split('/').pop() || 'task.json');
  return importTaskTexts([{ name, text, source: parsedUrl.href }]);
}

export const importedListQuery = queryOptions({
  queryKey: ['imported'],
  queryFn: async () => (await listImportedTasks()).map((t) => t.id),
});

/** An imported task, answers included: the user's own file, checked in the browser. */
export const importedTaskQuery = (id: string) =>
  queryOptions({
    queryKey: ['imported', id],
    queryFn: async (): Promise<{ task: ArcTask; answers: 'browser' }> => {
      const t = (await listImportedTasks()).find((x) => x.id === id);
      if (!t) throw new Error(`No imported task "${id}" in this browser. Import it again from the task browser.`);
      const parsed = parseTaskText(t.text);
      if (!parsed.ok) throw new Error(`${id}: ${parsed.problems.map(formatProblem).join('; ')}`);
      return { task: parsed.task, answers: 'browser' };
    },
    staleTime: Infinity,
  });

export { deleteImportedTask };
