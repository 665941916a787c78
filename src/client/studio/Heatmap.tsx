import { useEffect, useRef } from 'react';
import { createRun, renderRun } from '../../core/game';
import { games } from '../../games';
import { renderFrame } from '../game/render';

/** Where players clicked in a level, drawn over the level's first frame. */
export function Heatmap({ gameId, level, clicks, scale = 5 }: { gameId: string; level: number; clicks: readonly [number, number, number][]; scale?: number }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const canvas = ref.current;
    const game = games[gameId];
    if (!canvas || !game || level < 0 || level >= game.levels.length) return;
    const dpr = window.devicePixelRatio || 1;
    renderFrame(canvas, renderRun(createRun(game, { level })), scale, dpr);
    const ctx = canvas.getContext('2d')!;
    // Dim the frame so the clicks stand out, then draw each clicked cell by its share of the most.
    ctx.fillStyle = 'rgba(2,6,23,0.45)';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const most = Math.max(1, ...clicks.map((c) => c[2]));
    const k = scale * dpr;
    for (const [x, y, n] of clicks) {
      const a = 0.25 + 0.75 * (n / most);
      ctx.fillStyle = `rgba(250, 204, 21, ${a})`;
      ctx.beginPath();
      ctx.arc((x + 0.5) * k, (y + 0.5) * k, Math.max(k * 0.6, k * 1.6 * Math.sqrt(n / most)), 0, Math.PI * 2);
      ctx.fill();
    }
  }, [gameId, level, clicks, scale]);
  const total = clicks.reduce((a, c) => a + c[2], 0);
  return (
    <figure className="rounded-lg border border-slate-800 bg-slate-900/60 p-3">
      <figcaption className="mb-2 text-xs text-slate-400"><span className="font-semibold uppercase tracking-wide">Clicks, level {level + 1}</span> · {total} clicks</figcaption>
      <canvas ref={ref} className="grid-canvas" data-testid="heatmap" data-clicks={total} role="img" aria-label={`Click heatmap of level ${level + 1}: ${total} clicks`} />
    </figure>
  );
}
