/**
 * Judging a submitted grid. The player talks only to this interface. A task the browser holds
 * with its answers (imported in this browser, or a sealed task a researcher previews) is checked
 * here; a practice collection's task comes without answers and is checked by the server; in a
 * study the server judges within the participant's trials (`studyJudge`). See "Sealing" in
 * docs/api.md.
 */
import { gridsEqual, type Grid } from '../../core/grid/grid';
import type { ArcTask } from '../../core/formats/arcTask';
import { ApiError, getJson } from '../api';
import type { PracticeCheckBody } from '../../core/protocol/requests';

export type JudgeVerdict = 'correct' | 'wrong' | 'duplicate';

export interface Judge {
  readonly mode: 'practice' | 'study';
  /** Judges `grid` as the answer to test input `testIndex`. Rejects with a user-readable message. */
  submit(testIndex: number, grid: Grid): Promise<{ verdict: JudgeVerdict }>;
}

/** Checks in the browser against the task's own test outputs, exactly, dimensions included. */
export function browserJudge(task: ArcTask): Judge {
  return {
    mode: 'practice',
    async submit(testIndex, grid) {
      const answer = task.test[testIndex]?.output;
      if (!answer)
        throw new Error(
          `This task file has no answer for test input ${testIndex + 1}, so a submission cannot be checked. No trial was used.`,
        );
      return { verdict: gridsEqual(grid, answer) ? 'correct' : 'wrong' };
    },
  };
}

/** Practice collections: the server holds the answers and checks each grid (`POST .../check`). */
export function serverJudge(collection: string, taskId: string): Judge {
  const url = `/api/collections/${encodeURIComponent(collection)}/tasks/${taskId.split('/').map(encodeURIComponent).join('/')}/check`;
  return {
    mode: 'practice',
    async submit(testIndex, grid) {
      try {
        const r = await getJson<{ correct: boolean }>(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ testIndex, grid } satisfies PracticeCheckBody),
        });
        return { verdict: r.correct ? 'correct' : 'wrong' };
      } catch (e) {
        if (e instanceof ApiError && e.status === 0)
          throw new Error(
            'The server cannot be reached, so your answer was not checked and no trial was used. Check that it is running, then submit again.',
          );
        throw e;
      }
    },
  };
}
