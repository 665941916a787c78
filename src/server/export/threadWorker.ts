/**
 * An export's worker thread (`thread.ts`): writes one export from the job in `workerData`, with a
 * store whose calls are made by the main thread, and posts the file in chunks of about 64 KB,
 * each after the main thread has taken the one before.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { replayWithEngine } from '../study/studies';
import type { Store } from '../store/types';
import type { StoredEvent } from '../../core/study/rules';
import type { ExportContext } from './context';
import { EXPORT_FORMATS } from './formats';
import type { FromWorker, ThreadJob, ToWorker } from './thread';

const CHUNK_BYTES = 64 * 1024;

const port = parentPort!;
const job = workerData as ThreadJob;
const calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
let nextCall = 1;
let pulled: (() => void) | null = null;
let credit = 1;

port.on('message', (m: ToWorker) => {
  if (m.type === 'pull') {
    credit++;
    const p = pulled;
    pulled = null;
    p?.();
    return;
  }
  const c = calls.get(m.id);
  if (!c) return;
  calls.delete(m.id);
  if (m.type === 'result') c.resolve(m.value);
  else c.reject(new Error(m.message));
});

const call = (path: readonly string[], args: readonly unknown[]) =>
  new Promise<unknown>((resolve, reject) => {
    const id = nextCall++;
    calls.set(id, { resolve, reject });
    port.postMessage({ type: 'call', id, path, args } satisfies FromWorker);
  });

/** A store whose every method is the main thread's; `streamEvents` reads a page (as JSON text) per call. */
function remoteStore(path: readonly string[] = []): Store {
  return new Proxy(
    {},
    {
      get(_, key) {
        if (typeof key !== 'string' || key === 'then') return undefined;
        if (path.length === 0 && key === 'streamEvents') {
          return async function* streamEvents(sessionId: string, opts: { batchSize?: number; afterSeq?: number } = {}) {
            const size = Math.max(1, Math.floor(opts.batchSize ?? 5000));
            let after = opts.afterSeq ?? -1;
            for (;;) {
              const page = JSON.parse(
                (await call(['eventsPage'], [sessionId, after, size])) as string,
              ) as StoredEvent[];
              if (page.length === 0) return;
              after = page[page.length - 1].seq;
              yield page;
              if (page.length < size) return;
            }
          };
        }
        if (path.length === 0 && key === 'grading') return remoteStore(['grading']);
        return (...args: unknown[]) => call([...path, key], args);
      },
    },
  ) as Store;
}

async function main(): Promise<void> {
  const counts = new Map(job.testCounts);
  const ctx: ExportContext = {
    store: remoteStore(),
    studyId: job.studyId,
    version: job.version,
    versions: new Map(job.versions),
    sessions: job.sessions,
    testCount: (collection, task) => counts.get(`${collection}\u0000${task}`) ?? null,
    replay: job.verify ? replayWithEngine : null,
    games: job.games,
    now: job.now,
    pageSize: job.pageSize,
  };
  const enc = new TextEncoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  const flush = async () => {
    if (!size) return;
    while (credit === 0)
      await new Promise<void>((r) => {
        pulled = r;
      });
    credit--;
    const out = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    parts = [];
    size = 0;
    port.postMessage({ type: 'chunk', data: out } satisfies FromWorker, [out.buffer]);
  };
  for await (const c of EXPORT_FORMATS[job.format].write(ctx)) {
    const b = typeof c === 'string' ? enc.encode(c) : c;
    parts.push(b);
    size += b.length;
    if (size >= CHUNK_BYTES) await flush();
  }
  await flush();
  port.postMessage({ type: 'done' } satisfies FromWorker);
}

main().catch((e: unknown) => {
  port.postMessage({ type: 'failed', message: e instanceof Error ? e.message : String(e) } satisfies FromWorker);
});
