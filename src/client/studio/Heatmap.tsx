import { useEffect, useRef } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { createRun, renderRun } from '../../core/game';
import { decodeFrames } from '../../core/formats/frames';
import { gridCells } from '../../core/game/serverGame';
import type { Frame } from '../../core/game/types';
import { games } from '../../games';
import { renderFrame } from '../game/render';
import { adminJson } from './auth';
import { findArc3Game, useArc3Games } from './Arc3Playtest';

/**
 * The first frame of a level of a game the server runs, from the study's stored runs (the step at
 * which a run first completed `level` levels); null when no stored run reached it.
 */
const levelFrameQuery = (studyId: string, gameId: string, level: number) =>
  queryOptions({
    queryKey: ['admin', 'level-frame', studyId, gameId, level],
    queryFn: async (): Promise<Frame | null> => {
      try {
        const r = await adminJson<{ frames: string }>(
          `/api/admin/studies/${encodeURIComponent(studyId)}/games/${encodeURIComponent(gameId)}/levels/${level}/frame`,
        );
        const [grid] = decodeFrames(r.frames);
        return grid ? gridCells(grid) : null;
      } catch (e) {
        if ((e as { status?: number }).status === 404) return null;
        throw e;
      }
    },
    staleTime: Infinity,
  });

/**
 * The clicks of a level where there are some: the heatmap when players clicked in this level,
 * otherwise a sentence saying why there is none. A game that takes no clicks (a built-in game
 * without ACTION6, a server-run game whose engine offers none) or in which nobody clicked gets no
 * empty "0 clicks" map.
 */
export function LevelClicks({
  gameId,
  title,
  level,
  clicks,
  gameClicks,
  studyId,
}: {
  gameId: string;
  title: string;
  level: number;
  clicks: readonly [number, number, number][];
  /** Clicks in every level of the game, to tell "nobody clicked in this game" from "not in this level". */
  gameClicks: number;
  studyId?: string;
}) {
  // Which actions a server-run game offers, its engine says (the game list); a built-in game declares them.
  const served = useArc3Games().data?.games;
  if (clicks.length > 0) return <Heatmap gameId={gameId} level={level} clicks={clicks} studyId={studyId} />;
  const actions = games[gameId]?.actions ?? (served ? findArc3Game(served, gameId)?.actions : undefined);
  const keysOnly = actions !== undefined && !actions.includes(6);
  const why = keysOnly
    ? `${title} has no clicks: its players use the keys only, so there is no click heatmap.`
    : gameClicks === 0
      ? `No player clicked in ${title}, so there is no click heatmap.`
      : `No player clicked in level ${level + 1}; the other levels' heatmaps show where they did.`;
  return (
    <p
      className="max-w-xs rounded-lg border border-slate-800 bg-slate-900/60 p-3 text-sm text-slate-300"
      data-testid="no-clicks"
    >
      {why}
    </p>
  );
}

/**
 * Where players clicked in a level, drawn over the level's first frame: rendered by the engine for
 * a built-in game, taken from the stored steps (`studyId` needed) for a game the server runs.
 */
export function Heatmap({
  gameId,
  level,
  clicks,
  scale = 5,
  studyId,
}: {
  gameId: string;
  level: number;
  clicks: readonly [number, number, number][];
  scale?: number;
  studyId?: string;
}) {
  const ref = useRef<HTMLCanvasElement>(null);
  const builtIn = games[gameId];
  const stored = useQuery({
    ...levelFrameQuery(studyId ?? '', gameId, level),
    enabled: !builtIn && studyId !== undefined && level >= 0,
  });
  useEffect(() => {
    const canvas = ref.current;
    const game = games[gameId];
    let frame: Frame | null = null;
    if (game && level >= 0 && level < game.levels.length) frame = renderRun(createRun(game, { level }));
    else if (!game) frame = stored.data ?? null;
    if (!canvas || !frame) return;
    const dpr = window.devicePixelRatio || 1;
    renderFrame(canvas, frame, scale, dpr);
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
  }, [gameId, level, clicks, scale, stored.data]);
  const total = clicks.reduce((a, c) => a + c[2], 0);
  return (
    <figure className="rounded-lg border border-slate-800 bg-slate-900/60 p-3">
      <figcaption className="mb-2 text-xs text-slate-400">
        <span className="font-semibold uppercase tracking-wide">Clicks, level {level + 1}</span> · {total} clicks
      </figcaption>
      {!builtIn && stored.data === null && (
        <p className="mb-1 text-xs text-slate-500">
          No stored run reached this level, so its first frame is not shown.
        </p>
      )}
      <canvas
        ref={ref}
        className="grid-canvas"
        data-testid="heatmap"
        data-clicks={total}
        role="img"
        aria-label={`Click heatmap of level ${level + 1}: ${total} clicks`}
      />
    </figure>
  );
}
