/**
 * The order Vitest starts test files in: longest first, so that near the end of a run both
 * processes are on short files and finish together, instead of one waiting idle while the other
 * is still on a minute-long file it started last.
 *
 * The files of a project whose files share processes (`isolate: false`: `server-shared` and
 * `pure`) come after the others and together, each project's longest first: Vitest hands a
 * process it ends a file in to the next file only when that file is of the same project, so
 * spread among the others they would each start a process of their own after all. The project
 * with the most seconds in all comes last, so that the run ends on its many short files.
 *
 * A file's weight is the larger of its seconds below and its duration in Vitest's cache of the
 * last run (so a file that became slow since moves up without a change here). The seconds are
 * each file's time from its process's start to its end in a whole `npx vitest run` on two cores
 * at a load of 10-12 (other work on the machine), so a fresh checkout orders well too; a file
 * made quicker since is scaled by its own time before and after. A file neither knows goes after
 * them: the list holds every file of 5 s or more, so such a file is a short one, or a new one
 * that the cache places from its first run on. Keep the list to files of 5 s or more; `npm test`
 * prints the slowest at its end.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SLOW_FILES: Readonly<Record<string, number>> = {
  'src/server/arc3/storedRuns.test.ts': 53,
  'src/server/arc3/worker.test.ts': 53,
  'src/server/arc3/crash.arc3.test.ts': 51,
  'src/server/study/longReads.test.ts': 46,
  'src/server/export/export.test.ts': 45,
  'src/cli/validate.test.ts': 38,
  'src/server/campaign/simulation.test.ts': 42,
  'src/server/campaign/campaign.test.ts': 42,
  'src/server/store/folderLock.test.ts': 41,
  'src/server/export/thread.test.ts': 38,
  'src/server/arc3/routes.test.ts': 36,
  'src/server/export/gameVersions.test.ts': 36,
  'src/cli/export.arc3.test.ts': 31,
  'src/server/serve.twoServers.test.ts': 25,
  'src/server/digests/maintainer.test.ts': 24,
  'src/server/study/admission.test.ts': 23,
  'src/server/arc3/gameCode.test.ts': 23,
  'src/server/arc3/remote.test.ts': 22,
  'src/server/arc3/fixture.test.ts': 21,
  'src/server/study/routes.test.ts': 21,
  'src/cli/games.arc3.test.ts': 20,
  'src/server/study/hostile.test.ts': 18,
  'src/server/serve.crash.test.ts': 18,
  'src/server/export/zip.test.ts': 17,
  'src/server/results/surveySummary.test.ts': 16,
  'src/cli/export.test.ts': 16,
  'src/games/games.test.ts': 16,
  'src/server/store/store.test.ts': 16,
  'src/server/export/surveys.test.ts': 15,
  'src/server/study/responses.test.ts': 15,
  'src/cli/validateArc3.test.ts': 14,
  'src/server/study/curation.test.ts': 14,
  'src/server/arc3/officialCounts.test.ts': 13,
  'src/server/http.test.ts': 13,
  'src/server/export/robust.test.ts': 13,
  'src/server/arc3/graph.test.ts': 13,
  'src/core/game/validate.test.ts': 12,
  'src/cli/compiled.test.ts': 12,
  'src/server/digests/gap.test.ts': 12,
  'src/core/game/graph.test.ts': 12,
  'src/server/agents/agents.test.ts': 12,
  'src/server/host/workers.test.ts': 11,
  'src/server/grading/routes.test.ts': 11,
  'src/server/collections/routes.test.ts': 11,
  'src/server/study/sessionLimits.test.ts': 11,
  'src/server/questions/results.test.ts': 11,
  'src/client/study/outbox.test.ts': 11,
  'src/server/results/gameBaselines.test.ts': 10,
  'src/server/store/curation.test.ts': 10,
  'src/server/collections/sealing.test.ts': 9,
  'src/server/results/digest.test.ts': 9,
  'src/server/agents/shared.test.ts': 9,
  'src/server/load.test.ts': 9,
  'src/server/agents/service.test.ts': 9,
  'src/server/arc3/graphRoute.test.ts': 9,
  'src/server/load.participantsFirst.test.ts': 8,
  'src/server/study/storageBudget.test.ts': 8,
  'src/server/questions/questions.test.ts': 8,
  'src/server/arc3/determinism.test.ts': 7,
  'src/server/arc3/serve.arc3.test.ts': 7,
  'src/server/serve.pgRestart.test.ts': 7,
  'src/server/digests/serverRuns.test.ts': 7,
  'scripts/cycles.test.ts': 6,
  'src/server/digests/pool.test.ts': 6,
  'src/server/study/studies.test.ts': 6,
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification): number => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join('/');
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      return Math.max(SLOW_FILES[file] ?? 0, (cached?.duration ?? 0) / 1000);
    };
    const weight = new Map(files.map((f) => [f, seconds(f)]));
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
