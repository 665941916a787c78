/**
 * Recording lines of server-run games as UTF-8 bytes, written straight into byte arrays: the
 * same text as `toolkitRecordingLine` (the official toolkit's line), made without a string per
 * cell or per field. A recording is mostly its frames (4,096 cells each), and an export writes
 * hundreds of megabytes of them, so this is what makes an export of many runs fast.
 */
import { pythonIsoTimestamp, pythonJson, type ToolkitStep } from './recording';

/** A step as {@link toolkitRecordingBytes} takes it: its frames as cells (`decodeFrameCells`). */
export type ToolkitStepCells = Omit<ToolkitStep, 'frames'> & {
  readonly frames: { readonly width: number; readonly height: number; readonly frames: readonly Uint8Array[] };
};

const TEXT = new TextEncoder();
const COMMA = 0x2c;
const SPACE = 0x20;
const OPEN = 0x5b;
const CLOSE = 0x5d;

/**
 * The last frame {@link writeToolkitLine} wrote, kept for the next one of the same run: the
 * rows a step leaves as they were (most of them) are copied as text, not written again. Make one
 * per run and pass it to every line of the run, in order.
 */
export class FrameRowsCache {
  /** @internal The last frame's cells, its line's bytes, and where each of its rows' text is in them. */
  cells: Uint8Array | null = null;
  width = 0;
  bytes: Uint8Array = new Uint8Array(0);
  starts: Int32Array = new Int32Array(0);
  ends: Int32Array = new Int32Array(0);
}

/**
 * A frame's cells as 32-bit words when its rows are whole words (64 cells are 16 words): rows are
 * then compared a word at a time. Null when they are not (a frame of odd width).
 */
function words(cells: Uint8Array, w: number): Int32Array | null {
  return w % 4 === 0 && cells.byteOffset % 4 === 0
    ? new Int32Array(cells.buffer, cells.byteOffset, cells.length >> 2)
    : null;
}

/** Whether row `y` (`w` cells wide) of two frames holds the same cells, by words when both have them. */
function sameRow(a: Uint8Array, aw: Int32Array | null, b: Uint8Array, bw: Int32Array | null, y: number, w: number) {
  if (aw && bw) {
    const n = w >> 2;
    for (let i = y * n, end = i + n; i < end; i++) if (aw[i] !== bw[i]) return false;
    return true;
  }
  for (let i = y * w, end = i + w; i < end; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Strings of a run's lines (its game, guid, states, actions) as JSON, made once each. */
const jsonStrings = new Map<string, string>();
function jsonString(s: string): string {
  let j = jsonStrings.get(s);
  if (j === undefined) {
    if (jsonStrings.size >= 256) jsonStrings.clear();
    j = pythonJson(s);
    jsonStrings.set(s, j);
  }
  return j;
}

/**
 * Everything of a line before its frames, as `toolkitRecordingLine` writes it (the frames are
 * its last field): `{"timestamp": ..., "data": {..., "frame": `. Built from its fields, each
 * written as `pythonJson` writes it, rather than by `pythonJson` walking an object per line.
 */
export function toolkitLineHead(s: Omit<ToolkitStep, 'frames'>): string {
  const input = s.input.action === 'ACTION6' ? `{"x": ${pythonJson(s.input.x)}, "y": ${pythonJson(s.input.y)}}` : '{}';
  let available = '';
  for (let i = 0; i < s.available.length; i++) available += (i ? ', ' : '') + pythonJson(s.available[i]);
  return (
    `{"timestamp": ${pythonJson(pythonIsoTimestamp(s.epochMs))}, "data": {"game_id": ${jsonString(s.gameId)}, ` +
    `"state": ${jsonString(s.state)}, "levels_completed": ${pythonJson(s.levelsCompleted)}, ` +
    `"win_levels": ${pythonJson(s.winLevels)}, "action_input": {"id": ${jsonString(s.input.action)}, ` +
    `"data": ${input}, "reasoning": null}, "guid": ${jsonString(s.guid)}, "full_reset": ${pythonJson(s.fullReset)}, ` +
    `"available_actions": [${available}], "frame": `
  );
}

/** The most bytes {@link writeToolkitLine} writes for a step whose head ({@link toolkitLineHead}) is `head`. */
export function toolkitLineBound(head: string, s: ToolkitStepCells): number {
  const { width: w, height: h, frames } = s.frames;
  // At most three bytes a UTF-16 unit of the head; two digits and ", " a cell, "[", "]" and ", " a row and a frame.
  return head.length * 3 + 8 + frames.length * (4 + h * (4 + w * 4));
}

/**
 * Writes the line of step `s` (the text of `toolkitRecordingLine`, with its line end) into `out`
 * from `at`, which must have {@link toolkitLineBound} bytes free; answers where the line ends.
 * With `rows`, a row equal to the same row of the frame before (in this line or the run's
 * previous one) is copied from that frame's text, which must still be where it was written.
 */
export function writeToolkitLine(
  s: ToolkitStepCells,
  head: string,
  out: Uint8Array,
  from: number,
  rows?: FrameRowsCache,
): number {
  const { width: w, height: h, frames } = s.frames;
  let at = from + TEXT.encodeInto(head, out.subarray(from)).written;
  out[at++] = OPEN;
  for (let f = 0; f < frames.length; f++) {
    if (f) {
      out[at++] = COMMA;
      out[at++] = SPACE;
    }
    out[at++] = OPEN;
    const cells = frames[f];
    const before = rows?.cells && rows.width === w && rows.cells.length === cells.length ? rows : null;
    const cellWords = before ? words(cells, w) : null;
    const beforeWords = before ? words(before.cells!, w) : null;
    const starts = new Int32Array(h);
    const ends = new Int32Array(h);
    for (let y = 0; y < h; y++) {
      if (y) {
        out[at++] = COMMA;
        out[at++] = SPACE;
      }
      if (before && sameRow(before.cells!, beforeWords, cells, cellWords, y, w)) {
        // The rows from y on that the frame before has too: their text, separators included, in one copy.
        let last = y;
        while (last + 1 < h && sameRow(before.cells!, beforeWords, cells, cellWords, last + 1, w)) last++;
        const start = before.starts[y];
        const to = before.ends[last];
        if (before.bytes === out) out.copyWithin(at, start, to);
        else out.set(before.bytes.subarray(start, to), at);
        for (let k = y; k <= last; k++) {
          starts[k] = before.starts[k] - start + at;
          ends[k] = before.ends[k] - start + at;
        }
        at += to - start;
        y = last;
        continue;
      }
      starts[y] = at;
      out[at++] = OPEN;
      for (let x = 0, i = y * w; x < w; x++, i++) {
        if (x) {
          out[at++] = COMMA;
          out[at++] = SPACE;
        }
        const v = cells[i];
        if (v >= 10) {
          out[at++] = 0x31;
          out[at++] = 0x26 + v; // '0' + v - 10
        } else out[at++] = 0x30 + v;
      }
      out[at++] = CLOSE;
      ends[y] = at;
    }
    out[at++] = CLOSE;
    if (rows) {
      rows.cells = cells;
      rows.width = w;
      rows.bytes = out;
      rows.starts = starts;
      rows.ends = ends;
    }
  }
  out[at++] = CLOSE;
  out[at++] = 0x7d;
  out[at++] = 0x7d;
  out[at++] = 0x0a;
  return at;
}

/**
 * `toolkitRecordingLine` with its line end, as UTF-8 bytes, from frames given as cells (see
 * {@link writeToolkitLine}, which writes many lines into one array).
 */
export function toolkitRecordingBytes(s: ToolkitStepCells, rows?: FrameRowsCache): Uint8Array {
  const head = toolkitLineHead(s);
  const out = new Uint8Array(toolkitLineBound(head, s));
  return out.subarray(0, writeToolkitLine(s, head, out, 0, rows));
}
