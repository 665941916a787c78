/**
 * What a determinism check of an ARC-AGI-3 game finds (`server/arc3/determinism.ts` plays the
 * runs, in the first play's engine process and in fresh ones): where two plays of the same
 * actions first gave different frames, and the words the command line and the playtest page
 * both use for it.
 */

/** Where two plays of the same actions first gave different frames. */
export interface Divergence {
  /** 1-based step after the opening RESET (0: the opening frame itself). */
  readonly step: number;
  readonly action: string;
  /** 1-based animation frame of the step, and how many the first play rendered. */
  readonly frame: number;
  readonly frames: number;
  /** How many frames the second play rendered. */
  readonly framesAgain: number;
  /** Cells that differ in that frame, and the first of them (row by row): its colour in each play. */
  readonly cells: number;
  readonly first: { readonly x: number; readonly y: number; readonly was: number; readonly now: number } | null;
  /**
   * Where the second play was made: `same`, the first play's engine process; `fresh`, a new
   * process with `PYTHONHASHSEED` = `hashSeed` (a game ordering by `id()` or string hashes
   * differs only there).
   */
  readonly process: 'same' | 'fresh';
  readonly hashSeed?: string;
}

export type DeterminismReport =
  | {
      readonly deterministic: true;
      readonly steps: number;
      /** Fresh engine processes that also gave the same frames (0: the source cannot start one, e.g. a remote server). */
      readonly processes: number;
    }
  | {
      readonly deterministic: false;
      readonly steps: number;
      readonly divergence: Divergence;
      /** The differing frame of each play (null where a play rendered no such frame). */
      readonly grids: { readonly first: number[][] | null; readonly second: number[][] | null };
    };

/** The first difference between two frame lists of one step, or null when they are equal. */
export function compareFrames(
  a: readonly number[][][],
  b: readonly number[][][],
): (Omit<Divergence, 'step' | 'action' | 'process' | 'hashSeed'> & { index: number }) | null {
  for (let k = 0; k < Math.max(a.length, b.length); k++) {
    const fa = a[k],
      fb = b[k];
    if (!fa || !fb)
      return { index: k, frame: k + 1, frames: a.length, framesAgain: b.length, cells: 64 * 64, first: null };
    let cells = 0;
    let first: Divergence['first'] = null;
    for (let y = 0; y < fa.length; y++) {
      for (let x = 0; x < fa[y].length; x++) {
        if (fa[y][x] === fb[y]?.[x]) continue;
        cells++;
        first ??= { x, y, was: fa[y][x], now: fb[y]?.[x] ?? -1 };
      }
    }
    if (cells) return { index: k, frame: k + 1, frames: a.length, framesAgain: b.length, cells, first };
  }
  return null;
}

/** Where the frames of the differing step differ, in words. */
export function whereFramesDiffer(d: Divergence): string {
  return d.first
    ? `animation frame ${d.frame} of ${d.frames} differs in ${d.cells} cell${d.cells === 1 ? '' : 's'}, the first at x=${d.first.x}, y=${d.first.y} (colour ${d.first.was}, then ${d.first.now})`
    : `the first play rendered ${d.frames} animation frame${d.frames === 1 ? '' : 's'}, the second ${d.framesAgain}`;
}

/** Which play differed from the first, in words. */
export function whichPlay(d: Divergence): string {
  return d.process === 'fresh'
    ? `in a fresh engine process (PYTHONHASHSEED=${d.hashSeed ?? '?'}), while a second play in the same process agreed`
    : 'in the same engine process';
}

/** What a passed check covered, in words. */
export function howChecked(r: Extract<DeterminismReport, { deterministic: true }>): string {
  return r.processes > 0
    ? `played again in the same engine process and in ${r.processes} fresh ones with other hash seeds`
    : 'played again in the same process only (this source cannot start a fresh engine process, so an order that changes between processes is not checked)';
}

/** The report's lines for a determinism check. */
export function formatDeterminism(r: DeterminismReport): string[] {
  if (r.deterministic)
    return [`Deterministic: the same ${r.steps} actions, ${howChecked(r)}, gave the same frames at every step.`];
  const d = r.divergence;
  return [
    `NOT DETERMINISTIC: the same actions played again on the same seed gave different frames at step ${d.step} (${d.action}) ${whichPlay(d)}: ${whereFramesDiffer(d)}.`,
    `  ${notExact(d)}`,
  ];
}

/** Why a game that is not deterministic is a problem, and what to do: the CLI and the playtest page say the same. */
export const NOT_EXACT =
  "The game draws from something its seed does not fix (an unseeded random generator such as numpy's global one, or the clock). Verification of its recorded sessions cannot be exact: give the game a seeded generator (e.g. random.Random(seed)) to fix it.";

/** The same, for a game that is the same within a process and differs between processes. */
export const NOT_SAME_ACROSS_PROCESSES =
  'The game orders things by something that changes from one Python process to the next (the id() of objects, the hash of strings, e.g. iterating a set of names). A restarted server or a check of a recorded session plays it in another process, so verification cannot be exact: order by a stable key (a name, a position, an index) instead.';

/** What to do about the divergence `d`. */
export function notExact(d: Divergence): string {
  return d.process === 'fresh' ? NOT_SAME_ACROSS_PROCESSES : NOT_EXACT;
}
