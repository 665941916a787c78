/** The frame a game opens on, small: for the games page and the study editor's game picker. */
import { useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createRun, renderRun, step, type GameDefinition } from '../../core/game';
import { decodeFrames } from '../../core/formats/frames';
import { gridCells } from '../../core/game/serverGame';
import { adminJson } from '../studio/auth';
import { renderFrame } from './render';

/** A built-in game's opening frame, drawn by the engine in this browser (`scale` CSS pixels a cell). */
export function GameThumbnail({ game, scale = 3 }: { game: GameDefinition<unknown, unknown>; scale?: number }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const { run } = step(createRun(game), { action: 'RESET' });
    if (ref.current) renderFrame(ref.current, renderRun(run), scale, window.devicePixelRatio || 1);
  }, [game, scale]);
  return <canvas ref={ref} className="grid-canvas rounded" aria-hidden />;
}

/** The frame an ARC-AGI-3 game opens on, drawn by the server's engine (researchers only). */
export function Arc3Thumbnail({ id, scale = 3 }: { id: string; scale?: number }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const frame = useQuery({
    queryKey: ['admin', 'arc3-frame', id],
    queryFn: () => adminJson<{ frames: string }>(`/api/admin/arc3/games/${encodeURIComponent(id)}/frame`),
    staleTime: 60_000,
  });
  useEffect(() => {
    const grids = frame.data ? decodeFrames(frame.data.frames) : [];
    if (ref.current && grids.length) renderFrame(ref.current, gridCells(grids[0]), scale, window.devicePixelRatio || 1);
  }, [frame.data, scale]);
  if (frame.isError)
    return (
      <span className="text-xs text-rose-300">The opening frame cannot be drawn: {(frame.error as Error).message}</span>
    );
  return <canvas ref={ref} className="grid-canvas self-start rounded bg-slate-950" aria-hidden />;
}
