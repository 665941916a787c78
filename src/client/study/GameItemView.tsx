/** A game in a study, built in or run by the server, and how the participant leaves it. */
import { useCallback, useMemo, useState } from 'react';
import type { LogEvent } from '../../core/log/events';
import type { GameState } from '../../core/game';
import { games } from '../../games';
import { GamePlayer } from '../game/GamePlayer';
import { ServerGamePlayer } from '../game/ServerGamePlayer';
import { sessionRunApi } from '../game/serverController';
import { Button } from '../ui/Button';
import type { SessionItem } from './api';
import type { Running } from './running';
import { LeaveItem, PracticeTag } from './LeaveItem';

export function GameItemView({
  run,
  item,
  resume,
  notice,
  giveUp,
  onNext,
  allowReset,
  showCounter,
}: {
  run: Running;
  item: Extract<SessionItem, { kind: 'game' }>;
  resume: LogEvent[];
  notice: React.ReactNode;
  giveUp: React.ReactNode;
  onNext: (r: string) => void;
  allowReset: boolean;
  showCounter: boolean;
}) {
  const [state, setState] = useState<GameState>('NOT_PLAYED');
  const [levels, setLevels] = useState(0);
  const onState = useCallback((s: GameState, l: number) => {
    setState(s);
    setLevels(l);
  }, []);
  const { record } = run;
  const api = useMemo(() => sessionRunApi(record.id, record.token, item.id, run.outbox), [record, item.id, run.outbox]);
  // Leaving after levels were won is a finish, not a surrender.
  const finishHere = (
    <LeaveItem
      label="Finish and continue"
      title="Finish this game?"
      confirmLabel="Finish and move on"
      onLeave={() => onNext('finished_levels')}
    >
      <p>
        You completed {levels === 1 ? '1 level' : `${levels} levels`}, and {levels === 1 ? 'it is' : 'they are'} saved.
        The study moves on to the next item, and you cannot come back to this game.
      </p>
    </LeaveItem>
  );
  const toolbar = (
    <>
      <PracticeTag practice={item.practice} />
      {state === 'WIN' ? (
        <Button tone="primary" onClick={() => onNext('finished')}>
          Next
        </Button>
      ) : levels > 0 ? (
        finishHere
      ) : (
        giveUp
      )}
    </>
  );
  return (
    <div className="flex h-full flex-col">
      {notice}
      <div className="min-h-0 flex-1 overflow-y-auto">
        {item.server ? (
          <ServerGamePlayer
            info={{ id: item.game, ...item.server }}
            api={api}
            sink={run.outbox}
            resume={resume}
            allowReset={allowReset}
            showCounter={showCounter}
            onState={onState}
            toolbar={toolbar}
          />
        ) : (
          <GamePlayer
            game={games[item.game]}
            sink={run.outbox}
            seed={item.seed}
            resume={resume}
            allowReset={allowReset}
            showCounter={showCounter}
            onState={onState}
            toolbar={toolbar}
          />
        )}
      </div>
    </div>
  );
}
