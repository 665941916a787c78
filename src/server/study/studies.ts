/**
 * Studies: files in `data/studies/<id>.json`, loaded and validated at start and saved as
 * versions in the store; researchers edit them through the admin API.
 */
import { access, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type StudyDefinition,
  StudyId,
  type WrittenStudy,
  parseStudy,
  questionRefs,
  writtenPath,
} from '../../core/study/schema';
import type { ReplayGame } from '../../core/study/rules';
import { replayRecordedVersion } from '../../core/game';
import { gameVersions, games } from '../../games';
import type { StudyRecord, StudyStore } from '../store/types';
import type { TaskLibrary } from '../collections/collections';

export interface StudyFile {
  readonly id: string;
  readonly file: string;
  readonly study: StudyDefinition;
  /** The study as written, pools and all: what is stored. */
  readonly written: WrittenStudy;
}

/** Reads and validates every `.json` in `dir`. Throws one error naming each bad file and path. */
export async function loadStudyFiles(dir: string): Promise<StudyFile[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
  const out: StudyFile[] = [];
  const problems: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const id = name.slice(0, -5);
    const idOk = StudyId.safeParse(id);
    if (!idOk.success) {
      problems.push(`${file}: the file name "${id}" ${idOk.error.issues[0].message}`);
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(await readFile(file, 'utf8'));
    } catch (e) {
      problems.push(`${file}: not valid JSON (${(e as Error).message})`);
      continue;
    }
    const parsed = parseStudy(json);
    if (!parsed.ok) problems.push(...parsed.problems.map((p) => `${file}: ${p}`));
    else out.push({ id, file, study: parsed.study, written: parsed.written });
  }
  if (problems.length)
    throw new Error(`Study files with problems (fix them or move them out of ${dir}):\n  ${problems.join('\n  ')}`);
  return out;
}

/**
 * The file in `dir` that defines study `id` (and re-creates it at every start), or null when
 * there is none now. Only ids a study file can have are looked up, so no id reaches outside `dir`.
 */
export function studyFileIn(dir: string): (id: string) => Promise<string | null> {
  return async (id) => {
    if (!StudyId.safeParse(id).success) return null;
    const file = path.join(dir, `${id}.json`);
    return access(file).then(
      () => file,
      () => null,
    );
  };
}

/**
 * Brings the store up to date with the study files. A file replaces the stored study only when
 * the stored one came from a file too: edits made in the studio are not overwritten.
 */
export async function syncStudyFiles(store: StudyStore, files: readonly StudyFile[], now: number): Promise<string[]> {
  const notes: string[] = [];
  for (const f of files) {
    const cur = await store.getStudy(f.id);
    // Compared by content: the database returns JSON with its keys in its own order.
    if (cur && canonical(writtenOf(cur)) === canonical(f.written)) continue;
    if (cur && cur.source === 'studio') {
      notes.push(`Study "${f.id}": the studio's edited version is kept; ${f.file} is not loaded.`);
      continue;
    }
    await store.saveStudy(f.id, f.written, 'file', now);
  }
  return notes;
}

/** JSON text with object keys sorted, so that equal values give equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/** Problems with the tasks a study refers to (missing collections, tasks or test indices; counted tasks that are not sealed). */
export async function checkStudyReferences(
  study: StudyDefinition,
  library: TaskLibrary,
  games: ReadonlySet<string> | null,
): Promise<string[]> {
  const { references, sealing } = await studyReferenceProblems(study, library, games);
  return [...references, ...sealing];
}

/**
 * The same problems in two lists: what the study names that this server does not have, and what
 * would leak answers through a practice collection (`TaskLibrary.sealingProblems`: a counted task
 * from a practice collection, or one whose test also sits in a practice folder, as when one
 * folder is mounted both as practice and sealed), which the study editor shows under its own heading.
 */
export async function studyReferenceProblems(
  study: StudyDefinition,
  library: TaskLibrary,
  games: ReadonlySet<string> | null,
): Promise<{ references: string[]; sealing: string[] }> {
  const problems: string[] = [];
  for (const [index, item] of study.items.entries()) {
    const at = writtenPath(study, index);
    if (item.kind === 'task') {
      const found = await library.task(item.collection, item.task);
      if (!found.ok) {
        problems.push(`${at} (${item.id}): ${found.message}`);
        continue;
      }
      const bad = (item.tests ?? []).filter((t) => t >= found.task.test.length);
      if (bad.length)
        problems.push(
          `${at} (${item.id}): test input ${bad.join(', ')} does not exist; the task has ${found.task.test.length}`,
        );
      if (!found.task.test.every((t) => t.output))
        problems.push(`${at} (${item.id}): the task has no test outputs, so submissions cannot be judged`);
    } else if (item.kind === 'question') {
      for (const ref of questionRefs(item)) {
        const found = library.questions.question(ref.collection, ref.question);
        if (!found.ok) problems.push(`${at} (${item.id}): ${found.message}`);
      }
    } else if (item.kind === 'game' && games && !games.has(item.game)) {
      // A short ARC-AGI-3 id is never taken for a version: the study names the version it measures.
      const versions = [...games].filter((g) => g.split('-')[0] === item.game && g !== item.game);
      problems.push(
        versions.length
          ? `${at} (${item.id}): "${item.game}" names no version of the game; name one in full: ${versions.join(', ')}`
          : `${at} (${item.id}): no game "${item.game}"; games: ${[...games].join(', ')}`,
      );
    }
  }
  return { references: problems, sealing: await library.sealingProblems(study) };
}

/** The parsed definition of a stored study as sessions run it (stored definitions were validated when saved). */
export function definitionOf(record: StudyRecord): StudyDefinition {
  return parsedOf(record).study;
}

/** The parsed definition of a stored study as it is written (pools and all). */
export function writtenOf(record: StudyRecord): WrittenStudy {
  return parsedOf(record).written;
}

function parsedOf(record: StudyRecord) {
  const parsed = parseStudy(record.definition);
  if (!parsed.ok)
    throw new Error(`Stored study ${record.id} v${record.version} no longer validates: ${parsed.problems.join('; ')}`);
  return parsed;
}

/**
 * Replays a game item's events with the real engine (`core/game`, games from `src/games`) on the
 * version of the game they were recorded on, when this server has it (`gameVersions`): the
 * verification hook of the session summaries.
 */
export const replayWithEngine: ReplayGame = (gameId, events) => {
  const versions = gameVersions(gameId);
  if (versions.length === 0)
    return {
      problems: [{ seq: events[0]?.seq ?? 0, message: `no game "${gameId}" on this server` }],
      levelsCompleted: 0,
    };
  const r = replayRecordedVersion(versions, events);
  return {
    problems: r.problems,
    levelsCompleted: r.steps.reduce((m, s) => Math.max(m, s.response.levels_completed), 0),
    version: r.version,
    ...(r.otherVersion ? { otherVersion: r.otherVersion } : {}),
  };
};

/** Ids of the registered games. */
export const gameIds: ReadonlySet<string> = new Set(Object.keys(games));

/**
 * Whether every game of a study version is built-in: its logs then replay with the engine
 * (`replayWithEngine`) on any thread, so its digests, summaries and exports may run on workers.
 */
export function builtInGamesOnly(def: StudyDefinition): boolean {
  return def.items.every((item) => item.kind !== 'game' || gameIds.has(item.game));
}
