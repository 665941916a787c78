import { useMemo, useState } from 'react';
import type { ServerGameInfo } from '../../core/game/serverGame';
import type { LogEvent } from '../../core/log/events';
import type { EventSink } from '../player/controller';
import { GameView, type GameViewProps } from './GamePlayer';
import { ServerGameController, type RunApi } from './serverController';

export interface ServerGamePlayerProps extends Omit<GameViewProps, 'controller' | 'title' | 'id' | 'blocked' | 'side'> {
  /** Extra panel under the controls, given the controller (e.g. a designer's inspector). */
  readonly side?: (controller: ServerGameController) => React.ReactNode;
  readonly info: Pick<ServerGameInfo, 'id' | 'title' | 'fps' | 'levels'>;
  readonly api: RunApi;
  readonly sink: EventSink;
  /** This item's events logged before (a reload): play continues in the same run. */
  readonly resume?: readonly LogEvent[];
  /** Called with each error the server answered (e.g. a game that raised, with its traceback for a researcher). */
  readonly onError?: (e: { message: string; details?: unknown }) => void;
  /** Creates a new run when this changes (e.g. a designer's restart). */
  readonly restartKey?: number;
}

/** A game the server runs (an ARC-AGI-3 game on the official engine), in the same player as the built-in games. */
export function ServerGamePlayer({
  info,
  api,
  sink,
  resume,
  onError,
  restartKey = 0,
  side,
  ...view
}: ServerGamePlayerProps) {
  const [blocked, setBlocked] = useState<string | null>(null);
  const controller = useMemo(
    () =>
      new ServerGameController(info, api, sink, resume, (e) => {
        onError?.({ message: e.message, details: e.details });
        if (e.code !== 'game_error') setBlocked(e.message);
      }),
    // A new controller (a new run) only when the game, the log or the restart key changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [info.id, api, sink, resume, restartKey],
  );
  return (
    <GameView
      controller={controller}
      title={info.title}
      id={info.id}
      side={side?.(controller)}
      {...view}
      blocked={
        blocked ? (
          <p role="alert" className="max-w-md rounded-lg border border-rose-500/50 bg-rose-950/80 p-4 text-rose-100">
            {blocked}
          </p>
        ) : undefined
      }
    />
  );
}
