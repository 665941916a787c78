/**
 * Judging a submitted grid. The player talks only to this interface: in practice mode the
 * browser holds the answers and checks them itself; in study mode the server judges and the
 * browser never sees an answer.
 */
import { gridsEqual, type Grid } from '../../core/grid/grid';
import type { ArcTask } from '../../core/formats/arcTask';

export type JudgeVerdict = 'correct' | 'wrong' | 'duplicate';

export interface Judge {
  readonly mode: 'practice' | 'study';
  /** Judges `grid` as the answer to test input `testIndex`. Rejects with a user-readable message. */
  submit(testIndex: number, grid: Grid): Promise<{ verdict: JudgeVerdict }>;
}

/** Checks in the browser against the task's own test outputs, exactly, dimensions included. */
export function practiceJudge(task: ArcTask): Judge {
  return {
    mode: 'practice',
    async submit(testIndex, grid) {
      const answer = task.test[testIndex]?.output;
      if (!answer) throw new Error(`This task file has no answer for test input ${testIndex + 1}, so a submission cannot be checked. No trial was used.`);
      return { verdict: gridsEqual(grid, answer) ? 'correct' : 'wrong' };
    },
  };
}
