/**
 * What a determinism check of an ARC-AGI-3 game finds (`server/arc3/determinism.ts` plays the
 * runs): where two plays of the same actions first gave different frames, and the words the
 * command line and the playtest page both use for it.
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
}

export type DeterminismReport =
  | { readonly deterministic: true; readonly steps: number }
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
): (Omit<Divergence, 'step' | 'action'> & { index: number }) | null {
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

/** The report's lines for a determinism check. */
export function formatDeterminism(r: DeterminismReport): string[] {
  if (r.deterministic)
    return [`Deterministic: the same ${r.steps} actions played twice gave the same frames at every step.`];
  const d = r.divergence;
  return [
    `NOT DETERMINISTIC: the same actions played twice on the same seed gave different frames at step ${d.step} (${d.action}): ${whereFramesDiffer(d)}.`,
    `  ${NOT_EXACT}`,
  ];
}

/** Why a game that is not deterministic is a problem, and what to do: the CLI and the playtest page say the same. */
export const NOT_EXACT =
  "The game draws from something its seed does not fix (an unseeded random generator such as numpy's global one, or the clock). Verification of its recorded sessions cannot be exact: give the game a seeded generator (e.g. random.Random(seed)) to fix it.";
