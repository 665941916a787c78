/** Which Python and arcengine a server would run its games with, or what is missing and how to install it. */
import { Arc3Error, Arc3Worker, type Arc3WorkerOptions } from './worker';

/** What `probe()` found: the versions, or what is missing and how to install it. */
export type Arc3Probe =
  | { ok: true; python: string; executable: string; arcengine: string; message: string }
  | { ok: false; python: string | null; arcengine: null; message: string };

/**
 * Starts a worker once and reports which Python and arcengine it found, for the server's start
 * message; or asks `worker`, given a worker, which it leaves running (a server's first pool
 * worker). Never throws.
 * @example
 *   const p = await probe();
 *   console.log(p.message); // "arcengine 0.9.3 on Python 3.11.7 (/usr/bin/python3)"
 */
export async function probe(
  using: (Omit<Arc3WorkerOptions, 'gameDirs'> & { gameDirs?: string[] }) | Arc3Worker = {},
): Promise<Arc3Probe> {
  const given = using instanceof Arc3Worker;
  const worker = given ? using : new Arc3Worker({ gameDirs: [], timeoutMs: 15_000, ...using });
  try {
    const h = await worker.hello();
    if (h.arcengine) {
      return {
        ok: true,
        python: h.python,
        executable: h.executable,
        arcengine: h.arcengine,
        message: `arcengine ${h.arcengine} on Python ${h.python} (${h.executable})`,
      };
    }
    return {
      ok: false,
      python: h.python,
      arcengine: null,
      message:
        h.arcengine_error ??
        `arcengine is not importable by ${h.executable}: pip install arc-agi, or set ARC_STUDIO_PYTHONPATH.`,
    };
  } catch (e) {
    const message =
      e instanceof Arc3Error && e.code === 'no_python'
        ? e.message
        : `the arcengine worker could not start with ${worker.python} (${e instanceof Error ? e.message : String(e)}); check that it is Python 3.10 or later, then \`pip install arc-agi\` or set ARC_STUDIO_PYTHONPATH.`;
    return { ok: false, python: null, arcengine: null, message };
  } finally {
    if (!given) await worker.stop().catch(() => undefined);
  }
}
