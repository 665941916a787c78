/**
 * Draws a 64x64 game frame on a canvas at a whole-number scale, crisp: the frame is written as
 * pixels into a 64x64 bitmap once, then scaled up with smoothing off.
 */
import { FRAME_SIZE, PALETTE, type Frame } from '../../core/game/types';

const RGBA = PALETTE.map((hex) => {
  const n = parseInt(hex.slice(1), 16);
  // ImageData is little-endian RGBA in memory: pack as ABGR for a Uint32Array view.
  return ((0xff << 24) | ((n & 0xff) << 16) | (n & 0xff00) | ((n >> 16) & 0xff)) >>> 0;
});

const scratch = new Map<HTMLCanvasElement, { small: HTMLCanvasElement; image: ImageData; words: Uint32Array }>();

/** The largest whole-number scale at which a frame fits in `width` x `height` CSS pixels. */
export function frameScale(width: number, height: number, min = 2, max = 16): number {
  return Math.max(min, Math.min(max, Math.floor(Math.min(width, height) / FRAME_SIZE)));
}

export function renderFrame(canvas: HTMLCanvasElement, frame: Frame, scale: number, dpr: number): void {
  let s = scratch.get(canvas);
  if (!s) {
    const small = document.createElement('canvas');
    small.width = FRAME_SIZE;
    small.height = FRAME_SIZE;
    const image = new ImageData(FRAME_SIZE, FRAME_SIZE);
    s = { small, image, words: new Uint32Array(image.data.buffer) };
    scratch.set(canvas, s);
  }
  for (let i = 0; i < frame.length; i++) s.words[i] = RGBA[frame[i]] ?? 0xffff00ff;
  s.small.getContext('2d')!.putImageData(s.image, 0, 0);
  const css = FRAME_SIZE * scale;
  const px = Math.round(css * dpr);
  if (canvas.width !== px) {
    canvas.width = px;
    canvas.height = px;
  }
  canvas.style.width = `${css}px`;
  canvas.style.height = `${css}px`;
  const ctx = canvas.getContext('2d')!;
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(s.small, 0, 0, px, px);
}

/** The frame cell (x column, y row) under a pointer, or null outside the frame. */
export function frameCellAt(
  canvas: HTMLCanvasElement,
  clientX: number,
  clientY: number,
): { x: number; y: number } | null {
  const r = canvas.getBoundingClientRect();
  const x = Math.floor(((clientX - r.left) / r.width) * FRAME_SIZE);
  const y = Math.floor(((clientY - r.top) / r.height) * FRAME_SIZE);
  return x >= 0 && y >= 0 && x < FRAME_SIZE && y < FRAME_SIZE ? { x, y } : null;
}
