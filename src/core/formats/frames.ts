/**
 * A compact, exact text encoding of the frames one ARC-AGI-3 action returned (1..N grids of
 * colours 0-15, usually 64x64), small enough to store with every logged action as JSON text.
 *
 * Each frame is written in whichever of three forms is shortest:
 * - `rle`: runs of one colour over the cells in row-major order;
 * - `delta`: runs over the cell-wise XOR with the frame before it (the previous frame of the
 *   same response, or for the first frame the `reference` passed in: the last frame of the
 *   previous action), so an unchanged cell is a 0 and a step that moves a sprite costs a few bytes;
 * - `delta2`: the same against the frame two before (blinking animations repeat every other frame);
 * - `raw`: two cells per byte (noise, where runs do not pay).
 *
 * A run is one byte `colour << 4 | n`: `n` 0-14 is a run of `n + 1` cells, `n` 15 a run of
 * `16 + v` cells with `v` an unsigned LEB128 varint that follows.
 *
 * Binary layout, then base64 (standard alphabet, padded):
 * `0xF1` (format 1) | flags (bit 0: the first frame is a delta against the reference) |
 * frame count (varint) | width | height | [FNV-1a hash of the reference, 4 bytes, when bit 0] |
 * per frame: kind (0 rle, 1 delta, 2 raw, 3 delta2) then its cells.
 *
 * WARNING: an encoding made with a reference decodes only with that same reference (the hash
 * catches a wrong one). A reader that must open an action alone needs `reference` null at that
 * action: encode without a reference at each level start, RESET, and every so many actions.
 *
 * Sizes are bounded before anything is allocated, so a corrupt or hostile text fails at once
 * with a {@link FrameCodecError}, never with a hang or a huge allocation.
 *
 * @example
 * const text = encodeFrames(response.frame, lastFrameOfPreviousAction);
 * const frames = decodeFrames(text, lastFrameOfPreviousAction); // deep-equal to response.frame
 */

/** A frame as the official API sends it: rows of colour indices 0-15. */
export type FrameGrid = readonly (readonly number[])[];

/** Largest width or height: ARC-AGI-3 frames are 64x64. */
export const MAX_FRAME_SIDE = 64;
/** Most frames one response may carry (the official engine stops an action after 1,000). */
export const MAX_FRAMES_PER_RESPONSE = 1024;
/** Longest text {@link decodeFrames} accepts: every frame raw, plus headers. */
export const MAX_ENCODED_LENGTH =
  Math.ceil((MAX_FRAMES_PER_RESPONSE * (1 + (MAX_FRAME_SIDE * MAX_FRAME_SIDE) / 2) + 16) / 3) * 4;

const FORMAT = 0xf1;
const FLAG_REFERENCE = 1;
const KIND_RLE = 0;
const KIND_DELTA = 1;
const KIND_RAW = 2;
const KIND_DELTA2 = 3;

export type FrameCodecCode = 'bad-frames' | 'corrupt' | 'reference-missing' | 'reference-mismatch' | 'too-large';

/** Why frames could not be encoded or decoded; `code` names the case for callers. */
export class FrameCodecError extends Error {
  override readonly name = 'FrameCodecError';
  constructor(
    readonly code: FrameCodecCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Encodes a response's frames. `reference` is the last frame of the previous action (or null to
 * make the text decodable on its own); it is used only when its size matches.
 */
export function encodeFrames(frames: readonly FrameGrid[], reference: FrameGrid | null = null): string {
  const p = prepare(frames);
  if (p === null) return empty();
  const ref = referenceCells(p, reference);
  return write(
    p,
    ref,
    p.flat.map((cells, i) => choose(cells, i, p.flat, ref)),
  );
}

/** A frame read into its cells, row by row (what {@link encodeFramesBoth} answers as `last`). */
export interface FrameCells {
  readonly width: number;
  readonly height: number;
  readonly cells: Uint8Array;
}

/**
 * The two encodings of one response a server keeps: `alone`, `encodeFrames(frames, null)` (what a
 * participant is answered), and `changes`, `encodeFrames(frames, reference)` (what is stored
 * between keyframes), made together: the frames are read once, and each frame from the third on,
 * whose encoding does not depend on the reference, is chosen once for both. `last` is the last
 * frame's cells (null when there are none), to hash and to pass as the next response's
 * `reference` without reading that frame again.
 */
export function encodeFramesBoth(
  frames: readonly FrameGrid[],
  reference: FrameGrid | FrameCells | null,
): { alone: string; changes: string; last: FrameCells | null } {
  const p = prepare(frames);
  if (p === null) return { alone: empty(), changes: empty(), last: null };
  const chosen = p.flat.map((cells, i) => choose(cells, i, p.flat, null));
  const alone = write(p, null, chosen);
  const last = { width: p.width, height: p.height, cells: p.flat[p.flat.length - 1] };
  const ref = referenceCells(p, reference);
  if (ref === null) return { alone, changes: alone, last };
  // Frames 0 and 1 may be written as changes to the reference (delta, delta2); the rest never are.
  const withRef = chosen.map((c, i) => (i < 2 ? choose(p.flat[i], i, p.flat, ref) : c));
  return { alone, changes: write(p, ref, withRef), last };
}

/** The frames of one response, checked and read into cells. */
interface Prepared {
  readonly width: number;
  readonly height: number;
  readonly flat: readonly Uint8Array[];
}

/** No frames: the format, no flags and a count of 0. */
const empty = (): string => toBase64(Uint8Array.of(FORMAT, 0, 0));

function prepare(frames: readonly FrameGrid[]): Prepared | null {
  if (frames.length > MAX_FRAMES_PER_RESPONSE) {
    throw new FrameCodecError(
      'too-large',
      `a response of ${frames.length} frames is more than the ${MAX_FRAMES_PER_RESPONSE} a stored action may carry`,
    );
  }
  if (frames.length === 0) return null;
  const height = frames[0].length;
  const width = height > 0 ? frames[0][0].length : 0;
  if (width < 1 || height < 1 || width > MAX_FRAME_SIDE || height > MAX_FRAME_SIDE) {
    throw new FrameCodecError(
      'bad-frames',
      `frame 0 is ${width}x${height}; frames must be 1 to ${MAX_FRAME_SIDE} cells on each side`,
    );
  }
  return { width, height, flat: frames.map((grid, i) => flatten(grid, width, height, `frame ${i}`)) };
}

function referenceCells(p: Prepared, reference: FrameGrid | FrameCells | null): Uint8Array | null {
  if (reference === null) return null;
  if ('cells' in reference)
    return reference.width === p.width && reference.height === p.height ? reference.cells : null;
  return sameSize(reference, p.width, p.height) ? flatten(reference, p.width, p.height, 'the reference frame') : null;
}

/**
 * Frame `i`'s shortest form, given the frames before it (the reference first when there is one):
 * runs, runs of the changes to the frame one or two before, or raw.
 */
function choose(
  cells: Uint8Array,
  i: number,
  flat: readonly Uint8Array[],
  ref: Uint8Array | null,
): { kind: number; body: Uint8Array } {
  const before = (back: number): Uint8Array | undefined => {
    const j = i - back;
    return j >= 0 ? flat[j] : j === -1 ? (ref ?? undefined) : undefined;
  };
  let best = { kind: KIND_RLE, body: runs(cells) };
  const bases: [number, Uint8Array | undefined][] = [
    [KIND_DELTA, before(1)],
    [KIND_DELTA2, before(2)],
  ];
  for (const [kind, base] of bases) {
    if (base === undefined) continue;
    const delta = runs(xor(cells, base));
    if (delta.length < best.body.length) best = { kind, body: delta };
  }
  const rawLength = Math.ceil(cells.length / 2);
  if (rawLength < best.body.length) best = { kind: KIND_RAW, body: packNibbles(cells) };
  return best;
}

function write(p: Prepared, ref: Uint8Array | null, chosen: readonly { kind: number; body: Uint8Array }[]): string {
  const out = new ByteWriter();
  out.byte(FORMAT);
  out.byte(ref !== null ? FLAG_REFERENCE : 0);
  out.varint(p.flat.length);
  out.byte(p.width);
  out.byte(p.height);
  if (ref !== null) out.u32(hashCells(ref, p.width, p.height));
  for (const { kind, body } of chosen) {
    out.byte(kind);
    out.append(body);
  }
  return toBase64(out.bytes());
}

/**
 * Decodes what {@link encodeFrames} wrote, given the same `reference` if one was used.
 * Throws a {@link FrameCodecError} on any text it did not write.
 */
export function decodeFrames(text: string, reference: FrameGrid | null = null): number[][][] {
  const d = decodeFrameCells(text, reference);
  return d.frames.map((cells) => toGrid(cells, d.width, d.height));
}

/** Frames as their cells, row-major, one byte a cell: what {@link decodeFrameCells} answers. */
export interface DecodedCells {
  readonly width: number;
  readonly height: number;
  readonly frames: readonly Uint8Array[];
}

/**
 * {@link decodeFrames} without making rows of numbers: each frame's cells in one byte array (for
 * writers of large files, which turn them into text themselves). `reference` may be given as the
 * last frame's cells (`{ width, height, cells }`, as a previous answer of this gives them).
 * @throws FrameCodecError as {@link decodeFrames}.
 */
export function decodeFrameCells(
  text: string,
  reference: FrameGrid | { readonly width: number; readonly height: number; readonly cells: Uint8Array } | null = null,
): DecodedCells {
  if (text.length > MAX_ENCODED_LENGTH) {
    throw new FrameCodecError(
      'too-large',
      `stored frames of ${text.length} characters are longer than any encoding (${MAX_ENCODED_LENGTH}); the data is corrupt`,
    );
  }
  const input = new ByteReader(fromBase64(text));
  const format = input.byte();
  if (format !== FORMAT) {
    throw new FrameCodecError(
      'corrupt',
      `stored frames start with 0x${format.toString(16)}, not 0xf1: not frames this version of ARC Studio wrote, or corrupt`,
    );
  }
  const flags = input.byte();
  if ((flags & ~FLAG_REFERENCE) !== 0) throw corrupt(`unknown flags 0x${flags.toString(16)}`);
  const count = input.varint();
  if (count > MAX_FRAMES_PER_RESPONSE) throw corrupt(`${count} frames (at most ${MAX_FRAMES_PER_RESPONSE})`);
  if (count === 0) {
    input.end();
    return { width: 0, height: 0, frames: [] };
  }
  const width = input.byte();
  const height = input.byte();
  if (width < 1 || height < 1 || width > MAX_FRAME_SIDE || height > MAX_FRAME_SIDE)
    throw corrupt(`a frame size of ${width}x${height}`);
  // Every frame costs at least two bytes (its kind and one run): refuse counts the text cannot hold.
  if (count * 2 > input.remaining()) throw corrupt(`${count} frames in ${input.remaining()} bytes`);
  const before: Uint8Array[] = [];
  if ((flags & FLAG_REFERENCE) !== 0) {
    const expected = input.u32();
    if (reference === null) {
      throw new FrameCodecError(
        'reference-missing',
        "these frames were stored as changes to the previous action's last frame; decode them with that frame",
      );
    }
    const refCells = 'cells' in reference ? reference : null;
    if (
      refCells
        ? refCells.width !== width || refCells.height !== height
        : !sameSize(reference as FrameGrid, width, height)
    ) {
      throw new FrameCodecError(
        'reference-mismatch',
        `these frames are ${width}x${height} changes to a frame of that size; the frame given is not`,
      );
    }
    const previous = refCells ? refCells.cells : flatten(reference as FrameGrid, width, height, 'the reference frame');
    before.push(previous);
    if (hashCells(previous, width, height) !== expected) {
      throw new FrameCodecError(
        'reference-mismatch',
        'these frames were stored as changes to a different frame than the one given: decode the actions in order, each with the last frame of the one before',
      );
    }
  }
  const cellCount = width * height;
  const frames: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const kind = input.byte();
    let cells: Uint8Array;
    if (kind === KIND_RLE) cells = readRuns(input, cellCount);
    else if (kind === KIND_DELTA || kind === KIND_DELTA2) {
      const base = before.at(kind === KIND_DELTA ? -1 : -2);
      if (base === undefined)
        throw corrupt(`frame ${i} is a delta with no frame ${kind === KIND_DELTA ? 'one' : 'two'} before it`);
      cells = readRuns(input, cellCount, base);
    } else if (kind === KIND_RAW) cells = unpackNibbles(input, cellCount);
    else throw corrupt(`frame ${i} has unknown kind ${kind}`);
    frames.push(cells);
    before.push(cells);
  }
  input.end();
  return { width, height, frames };
}

function corrupt(what: string): FrameCodecError {
  return new FrameCodecError('corrupt', `stored frames are corrupt: ${what}`);
}

function sameSize(grid: FrameGrid, width: number, height: number): boolean {
  return grid.length === height && grid.every((row) => row.length === width);
}

function flatten(grid: FrameGrid, width: number, height: number, what: string): Uint8Array {
  if (grid.length !== height)
    throw new FrameCodecError(
      'bad-frames',
      `${what} has ${grid.length} rows; the frames of one response must all be ${width}x${height}`,
    );
  const cells = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = grid[y];
    if (row.length !== width)
      throw new FrameCodecError(
        'bad-frames',
        `${what} row ${y} has ${row.length} cells; the frames of one response must all be ${width}x${height}`,
      );
    for (let x = 0; x < width; x++) {
      const v = row[x];
      if (!Number.isInteger(v) || v < 0 || v > 15)
        throw new FrameCodecError(
          'bad-frames',
          `${what} has ${String(v)} at x=${x}, y=${y}; colours are integers 0-15`,
        );
      cells[y * width + x] = v;
    }
  }
  return cells;
}

function toGrid(cells: Uint8Array, width: number, height: number): number[][] {
  const grid: number[][] = new Array<number[]>(height);
  for (let y = 0; y < height; y++) grid[y] = Array.from(cells.subarray(y * width, (y + 1) * width));
  return grid;
}

function xor(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] ^ b[i];
  return out;
}

/**
 * FNV-1a over the size and the cells. One plain loop: a decoder checks a reference with it at
 * every stored action, so an export of many runs hashes every frame once.
 */
function hashCells(cells: Uint8Array, width: number, height: number): number {
  let h = Math.imul(0x811c9dc5 ^ width, 0x01000193);
  h = Math.imul(h ^ height, 0x01000193);
  for (let i = 0; i < cells.length; i++) h = Math.imul(h ^ cells[i], 0x01000193);
  return h >>> 0;
}

function runs(cells: Uint8Array): Uint8Array {
  const out = new ByteWriter();
  let i = 0;
  while (i < cells.length) {
    const colour = cells[i];
    let j = i + 1;
    while (j < cells.length && cells[j] === colour) j++;
    const length = j - i;
    if (length <= 15) out.byte((colour << 4) | (length - 1));
    else {
      out.byte((colour << 4) | 15);
      out.varint(length - 16);
    }
    i = j;
  }
  return out.bytes();
}

/**
 * A frame's cells from its runs; with `base`, the runs are the changes to it (`xor(runs, base)`):
 * a copy of `base` with each run of a colour other than 0 applied, so the cells a step leaves as
 * they were (most of them) cost nothing but the copy.
 */
function readRuns(input: ByteReader, cellCount: number, base: Uint8Array | null = null): Uint8Array {
  const cells = base ? base.slice() : new Uint8Array(cellCount);
  let i = 0;
  while (i < cellCount) {
    const b = input.byte();
    const n = b & 15;
    const length = n < 15 ? n + 1 : 16 + input.varint();
    if (length > cellCount - i) throw corrupt(`a run of ${length} cells where ${cellCount - i} remain`);
    const colour = b >> 4;
    if (!base) cells.fill(colour, i, i + length);
    else if (colour !== 0) for (let k = i; k < i + length; k++) cells[k] ^= colour;
    i += length;
  }
  return cells;
}

function packNibbles(cells: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(cells.length / 2));
  for (let i = 0; i < cells.length; i++) out[i >> 1] |= (i & 1) === 0 ? cells[i] << 4 : cells[i];
  return out;
}

function unpackNibbles(input: ByteReader, cellCount: number): Uint8Array {
  const bytes = input.take(Math.ceil(cellCount / 2));
  const cells = new Uint8Array(cellCount);
  for (let i = 0; i < cellCount; i++) cells[i] = (i & 1) === 0 ? bytes[i >> 1] >> 4 : bytes[i >> 1] & 15;
  return cells;
}

class ByteWriter {
  private buf = new Uint8Array(256);
  private n = 0;
  byte(v: number): void {
    if (this.n === this.buf.length) this.grow(1);
    this.buf[this.n++] = v;
  }
  varint(v: number): void {
    let rest = v;
    while (rest >= 0x80) {
      this.byte((rest & 0x7f) | 0x80);
      rest = Math.floor(rest / 128);
    }
    this.byte(rest);
  }
  u32(v: number): void {
    for (let s = 24; s >= 0; s -= 8) this.byte((v >>> s) & 0xff);
  }
  append(bytes: Uint8Array): void {
    if (this.n + bytes.length > this.buf.length) this.grow(bytes.length);
    this.buf.set(bytes, this.n);
    this.n += bytes.length;
  }
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.n);
  }
  private grow(need: number): void {
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + need));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }
}

class ByteReader {
  private i = 0;
  constructor(private readonly buf: Uint8Array) {}
  remaining(): number {
    return this.buf.length - this.i;
  }
  byte(): number {
    if (this.i >= this.buf.length) throw corrupt('the data ends early');
    return this.buf[this.i++];
  }
  /** An unsigned LEB128 of at most 3 bytes (below 2^21: more than any run or count). */
  varint(): number {
    let v = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const b = this.byte();
      v |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
    }
    throw corrupt('a number longer than 3 bytes');
  }
  u32(): number {
    let v = 0;
    for (let k = 0; k < 4; k++) v = v * 256 + this.byte();
    return v;
  }
  take(n: number): Uint8Array {
    if (n > this.remaining()) throw corrupt('the data ends early');
    const out = this.buf.subarray(this.i, this.i + n);
    this.i += n;
    return out;
  }
  end(): void {
    if (this.i !== this.buf.length) throw corrupt(`${this.buf.length - this.i} bytes after the last frame`);
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i];
    const b = i + 1 < bytes.length ? bytes[i + 1] : 0;
    const c = i + 2 < bytes.length ? bytes[i + 2] : 0;
    out += ALPHABET[a >> 2] + ALPHABET[((a & 3) << 4) | (b >> 4)];
    out += i + 1 < bytes.length ? ALPHABET[((b & 15) << 2) | (c >> 6)] : '=';
    out += i + 2 < bytes.length ? ALPHABET[c & 63] : '=';
  }
  return out;
}

function fromBase64(text: string): Uint8Array {
  if (text.length === 0 || text.length % 4 !== 0)
    throw corrupt(`base64 text of length ${text.length} (a positive multiple of 4 is expected)`);
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const q = [0, 0, 0, 0];
    for (let k = 0; k < 4; k++) {
      const code = text.charCodeAt(i + k);
      const isPad = code === 61 && i + 4 === text.length && k >= 4 - pad;
      const v = isPad ? 0 : code < 128 ? DECODE[code] : -1;
      if (v < 0) throw corrupt(`character ${JSON.stringify(text[i + k])} at ${i + k} is not base64`);
      q[k] = v;
    }
    const n = (q[0] << 18) | (q[1] << 12) | (q[2] << 6) | q[3];
    out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 0xff;
    if (o < out.length) out[o++] = n & 0xff;
  }
  return out;
}
