/**
 * The order Vitest starts test files in: longest first, so that near the end of a run all
 * processes are on short files and finish together, instead of one waiting idle while another is
 * still on a minute-long file it started last.
 *
 * The files of a project whose files share processes (`isolate: false`: `shared` and `pure`) come
 * after the others and together, each project's longest first: Vitest hands a process it ends a
 * file in to the next file only when that file is of the same project, so spread among the
 * others they would each start a process of their own after all. The project with the most
 * seconds in all comes last, so that the run ends on its many short files.
 *
 * A file's seconds come from the last run, the larger of two records of it: Vitest's cache (its
 * tests' time) and the JSON report `npm test` writes (`.tmp/test-reports/`, the time from the
 * file's start to its end, setup included). A file neither records (a new one, or every file of a
 * fresh clone) is given the seconds its size in bytes predicts at the median rate of the files
 * that have records, so a fresh clone orders its files by size until its first run.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The JSON reports of the last run: `npm test` keeps the one before its own run as `vitest.last.json`. */
export const REPORTS = ['.tmp/test-reports/vitest.json', '.tmp/test-reports/vitest.last.json'];

/** Seconds per file (relative to `root`, `/` separators) in the newest report that names it. */
export function reportedSeconds(root: string): Map<string, number> {
  const seconds = new Map<string, number>();
  for (const report of REPORTS) {
    const file = path.join(root, report);
    if (!existsSync(file)) continue;
    try {
      const json = JSON.parse(readFileSync(file, 'utf8')) as {
        testResults?: { name: string; startTime: number; endTime: number }[];
      };
      for (const t of json.testResults ?? []) {
        const rel = path.relative(root, t.name).split(path.sep).join('/');
        if (!seconds.has(rel) && t.endTime >= t.startTime) seconds.set(rel, (t.endTime - t.startTime) / 1000);
      }
    } catch {
      // A report cut short (a run killed while writing it) orders nothing.
    }
  }
  return seconds;
}

/**
 * Seconds for every file: its record where there is one, else its size times the median seconds
 * per byte of the recorded files (or its size alone when none is recorded: only the order counts).
 */
export function estimateSeconds(
  files: readonly { file: string; bytes: number }[],
  recorded: ReadonlyMap<string, number>,
): Map<string, number> {
  const rates = files
    .filter((f) => recorded.has(f.file) && f.bytes > 0)
    .map((f) => recorded.get(f.file)! / f.bytes)
    .sort((a, b) => a - b);
  const rate = rates.length ? rates[Math.floor(rates.length / 2)] : 1;
  return new Map(files.map((f) => [f.file, recorded.get(f.file) ?? f.bytes * rate]));
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rel = (spec: TestSpecification) => path.relative(root, spec.moduleId).split(path.sep).join('/');
    const reported = reportedSeconds(root);
    const recorded = new Map<string, number>();
    for (const spec of files) {
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${rel(spec)}`)?.duration;
      const seconds = Math.max(reported.get(rel(spec)) ?? 0, (cached ?? 0) / 1000);
      if (seconds > 0) recorded.set(rel(spec), seconds);
    }
    const estimated = estimateSeconds(
      files.map((spec) => ({ file: rel(spec), bytes: statSync(spec.moduleId).size })),
      recorded,
    );
    const weight = new Map(files.map((f) => [f, estimated.get(rel(f))!]));
    const longestFirst = (a: TestSpecification, b: TestSpecification) => weight.get(b)! - weight.get(a)!;
    const own = files.filter((f) => f.project.config.isolate !== false).sort(longestFirst);
    // Each sharing project's files together, the project with the most seconds in all last.
    const sharing = new Map<string, TestSpecification[]>();
    for (const f of files)
      if (f.project.config.isolate === false) sharing.set(f.project.name, [...(sharing.get(f.project.name) ?? []), f]);
    const total = (fs: TestSpecification[]) => fs.reduce((s, f) => s + weight.get(f)!, 0);
    const groups = [...sharing.values()].sort((a, b) => total(a) - total(b));
    return [...own, ...groups.flatMap((g) => g.sort(longestFirst))];
  }
}
