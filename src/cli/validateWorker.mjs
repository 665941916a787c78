// Entry of a validation worker thread started from the sources (compiled, the entry is the thread's code
// itself): the compiled thread while the compiled server is current, else the TypeScript through tsx.
import { loadThread } from '../server/host/compiled.mjs';

await loadThread('validateWorker', () => import('./validateWorker.ts'));
