/**
 * Golden pins of the games: per game its version and the engine's, and per level the hash of
 * the frame that shows the level won (its recorded solution played from the level's start) and
 * a hash of every frame the solution shows on the way. `src/games/golden.json` holds the pins;
 * `games.test.ts` compares them with the games as they are and says what changed.
 */
import {
  ENGINE_VERSION,
  createRun,
  hash64,
  hashFrame,
  parseActions,
  step,
  versionedGameId,
  type GameDefinition,
  type Run,
} from '../core/game';

/** One level's pin. */
export interface LevelPin {
  /** 1-based. */
  readonly level: number;
  /** Actions of the recorded solution. */
  readonly actions: number;
  /** `hashFrame` of the frame showing the level won (the winning state, before the next level). */
  readonly finalFrame: string;
  /** `hash64` of the `hashFrame`s of every frame the solution shows, comma-joined. */
  readonly frames: string;
}

/** One game's pins. */
export interface GamePin {
  /** `versionedGameId`, e.g. `push-f39e6e1680aa`. */
  readonly version: string;
  readonly engine: string;
  readonly levels: readonly LevelPin[];
}

/** The pins of `game` as it is now, from its recorded solutions (one action string per level). */
export function goldenPin(game: GameDefinition<unknown, unknown>, solutions: readonly string[]): GamePin {
  const levels = game.levels.map((_, level): LevelPin => {
    let run: Run<unknown> = createRun(game, { level });
    const inputs = parseActions(solutions[level] ?? '');
    const hashes: string[] = [];
    let finalFrame = '';
    for (const input of inputs) {
      const r = step(run, input);
      run = r.run;
      hashes.push(...r.response.frame.map(hashFrame));
      // The winning state is shown before the next level's start (or the settled WIN frame).
      if (run.levelsCompleted > level && !finalFrame)
        finalFrame = hashFrame(r.response.frame[r.response.frame.length - 2]);
    }
    return { level: level + 1, actions: inputs.length, finalFrame, frames: hash64(hashes.join(',')) };
  });
  return { version: versionedGameId(game), engine: ENGINE_VERSION, levels };
}

/** What differs between a pinned and a current pin, one line each (empty when they agree). */
export function pinChanges(pinned: GamePin, now: GamePin): string[] {
  const out: string[] = [];
  if (pinned.version !== now.version) out.push(`version ${pinned.version} -> ${now.version}`);
  if (pinned.engine !== now.engine) out.push(`engine ${pinned.engine} -> ${now.engine}`);
  const n = Math.max(pinned.levels.length, now.levels.length);
  for (let k = 0; k < n; k++) {
    const a = pinned.levels[k],
      b = now.levels[k];
    if (!a) {
      out.push(`level ${k + 1} added`);
      continue;
    }
    if (!b) {
      out.push(`level ${k + 1} removed`);
      continue;
    }
    if (a.actions !== b.actions) out.push(`level ${k + 1}: solution ${a.actions} -> ${b.actions} actions`);
    if (a.finalFrame !== b.finalFrame) out.push(`level ${k + 1}: final frame ${a.finalFrame} -> ${b.finalFrame}`);
    else if (a.frames !== b.frames) out.push(`level ${k + 1}: frames on the way ${a.frames} -> ${b.frames}`);
  }
  return out;
}
