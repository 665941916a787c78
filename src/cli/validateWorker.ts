/**
 * A worker thread of `games validate`: runs the tasks it is sent on a built-in game and answers
 * each with its result and the milliseconds it took, sending progress as it goes.
 */
import { parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { runValidationTask, type TaskResult, type ValidationTask } from '../core/game/validate';
import { getGame } from '../games';

/** Main thread to worker. */
export interface TaskMessage {
  readonly id: number;
  readonly gameId: string;
  readonly task: ValidationTask;
}

/** Worker to main thread. */
export type ThreadReply =
  | { readonly type: 'progress'; readonly id: number; readonly steps: number }
  | { readonly type: 'done'; readonly id: number; readonly result: TaskResult; readonly ms: number }
  | { readonly type: 'error'; readonly id: number; readonly message: string };

const port = parentPort;
if (port) {
  port.on('message', (msg: TaskMessage) => {
    try {
      const game = getGame(msg.gameId);
      const t0 = performance.now();
      const result = runValidationTask(game, msg.task, (steps) =>
        port.postMessage({ type: 'progress', id: msg.id, steps } satisfies ThreadReply),
      );
      port.postMessage({ type: 'done', id: msg.id, result, ms: performance.now() - t0 } satisfies ThreadReply);
    } catch (e) {
      port.postMessage({
        type: 'error',
        id: msg.id,
        message: e instanceof Error ? e.message : String(e),
      } satisfies ThreadReply);
    }
  });
}
