/**
 * The Validate panel's Web Worker: one run per worker (the page terminates it to cancel, and
 * starts a new one for the next run). The layout library loads only when a graph is drawn.
 */
import { runJob } from './job';
import type { ValidateReply, ValidateRequest } from './protocol';

// The project's types are the DOM's: a worker's global needs only these two members here.
const scope = self as unknown as { onmessage: ((e: MessageEvent<ValidateRequest>) => void) | null; postMessage: (reply: ValidateReply) => void };

scope.onmessage = (e: MessageEvent<ValidateRequest>) => {
  void runJob(e.data, {
    post: (reply: ValidateReply) => scope.postMessage(reply),
    now: () => performance.now(),
    layout: async (shape) => (await import('./layout')).layoutGraph(shape),
  });
};
