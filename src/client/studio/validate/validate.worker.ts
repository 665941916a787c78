/**
 * The Validate panel's Web Worker (and the layout of an arcengine game's state graph): one run per worker (the page terminates it to cancel, and
 * starts a new one for the next run). The layout library loads only when a graph is drawn.
 */
import { runJob } from './job';
import type { LayoutRequest, ValidateReply, ValidateRequest } from './protocol';

// The project's types are the DOM's: a worker's global needs only these two members here.
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<ValidateRequest | LayoutRequest>) => void) | null;
  postMessage: (reply: ValidateReply) => void;
};

scope.onmessage = (e: MessageEvent<ValidateRequest | LayoutRequest>) => {
  const request = e.data;
  if (request.type === 'layout') {
    import('./layout')
      .then(({ layoutGraph }) =>
        scope.postMessage({ type: 'laid-out', drawing: { ...request.shape, positions: layoutGraph(request.shape) } }),
      )
      .catch((err: Error) =>
        scope.postMessage({
          type: 'error',
          message: `The graph could not be laid out (${err.message}): reload the page and run again.`,
        }),
      );
    return;
  }
  void runJob(request, {
    post: (reply: ValidateReply) => scope.postMessage(reply),
    now: () => performance.now(),
    layout: async (shape) => (await import('./layout')).layoutGraph(shape),
  });
};
