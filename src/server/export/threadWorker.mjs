// Entry of an export worker thread: worker threads do not inherit the main thread's tsx loader,
// so each registers it before loading the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./threadWorker.ts');
