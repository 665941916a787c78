import { Link, useParams } from 'wouter';
import { games } from '../../games';
import { GamePlayer } from '../game/GamePlayer';
import { practiceLog } from '../log/practice';
import { downloadText } from '../log/sessionLog';
import { Button } from '../ui/Button';

/** Plays one game in practice mode, logged in this browser like the grid tasks. */
export function GamePlayerPage() {
  const { id } = useParams<{ id: string }>();
  const game = games[id];
  const log = practiceLog();
  if (!game) {
    return (
      <div role="alert" className="m-6 max-w-xl rounded-lg border border-rose-500/50 bg-rose-950/60 p-4 text-rose-100">
        <p className="font-semibold">There is no game "{id}".</p>
        <p className="mt-1 text-sm">
          Games here: {Object.keys(games).join(', ')}.{' '}
          <Link href="/games" className="underline">
            See all games
          </Link>
          .
        </p>
      </div>
    );
  }
  return (
    <GamePlayer
      key={id}
      game={game}
      sink={log}
      toolbar={
        <Button
          onClick={() => downloadText(`arc-studio-log-${log.startedAt.replace(/[:.]/g, '-')}.jsonl`, log.toJsonl())}
        >
          Download log
        </Button>
      }
    />
  );
}
