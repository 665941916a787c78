/**
 * The order Vitest starts test files in: longest first, so that near the end of a run both
 * processes are on short files and finish together, instead of one waiting idle while the other
 * is still on a minute-long file it started last.
 *
 * A file's weight is the larger of its seconds below (measured in a full `npm test`, so a fresh
 * checkout orders well too; a file made quicker since is scaled by its own time before and
 * after) and its duration in Vitest's cache of the last run (so a file that became slow since
 * moves up without a change here). A file neither knows goes after them: the list holds every
 * file of 5 s or more, so such a file is a short one, or a new one that the cache places from its
 * first run on. Keep the list to files of 5 s or more; `npm test` prints the slowest at its end.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SLOW_FILES: Readonly<Record<string, number>> = {
  'src/server/campaign/simulation.test.ts': 60,
  'src/server/store/folderLock.test.ts': 51,
  'src/server/arc3/gameCode.test.ts': 44,
  'src/server/campaign/campaign.test.ts': 43,
  'src/server/arc3/crash.arc3.test.ts': 42,
  'src/server/studyApi.test.ts': 41,
  'src/server/twoServers.test.ts': 38,
  'src/cli/validate.test.ts': 36,
  'src/server/arc3/worker.test.ts': 36,
  'src/server/arc3/storedRuns.test.ts': 34,
  'src/server/store/store.test.ts': 34,
  'src/server/arc3/routes.test.ts': 32,
  'src/server/arc3/graph.test.ts': 31,
  'src/server/digests/maintainer.test.ts': 31,
  'src/cli/export.test.ts': 30,
  'src/server/export/zip.test.ts': 30,
  'src/cli/export.arc3.test.ts': 29,
  'src/server/crash.test.ts': 27,
  'src/server/hostile.test.ts': 27,
  'src/cli/games.arc3.test.ts': 26,
  'src/server/participantsFirst.test.ts': 25,
  'src/server/digests/pool.test.ts': 25,
  'src/games/games.test.ts': 23,
  'src/server/arc3/officialCounts.test.ts': 23,
  'src/server/http.test.ts': 22,
  'src/server/arc3/remote.test.ts': 22,
  'src/cli/compiled.test.ts': 19,
  'src/cli/validateArc3.test.ts': 19,
  'src/server/study/curation.test.ts': 19,
  'src/server/arc3fixture.test.ts': 17,
  'src/server/export/thread.test.ts': 17,
  'src/server/export/export.test.ts': 16,
  'src/server/agents/service.test.ts': 16,
  'src/server/study/admission.test.ts': 15,
  'src/cli/questions.test.ts': 14,
  'src/server/workers.test.ts': 13,
  'src/core/game/graph.test.ts': 13,
  'src/server/responsesApi.test.ts': 12,
  'src/core/game/validate.test.ts': 11,
  'src/server/pgRestart.test.ts': 10,
  'src/server/resultsDigest.test.ts': 10,
  'src/server/store/curation.test.ts': 10,
  'src/server/digests/serverRuns.test.ts': 9,
  'src/server/export/robust.test.ts': 8,
  'src/server/questionsApi.test.ts': 7,
  'src/server/questionResults.test.ts': 6,
  'src/server/agents/shared.test.ts': 6,
  'scripts/cycles.test.ts': 5,
  'src/client/study/outbox.test.ts': 5,
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
    return [...files].sort((a, b) => weight.get(b)! - weight.get(a)!);
  }
}
