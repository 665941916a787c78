/**
 * The official ARC-AGI-3 scorecard's book-keeping of an agent's plays, rebuilt from recording
 * lines, so recordings score as the toolkit scored them live. See docs/scoring.md, "Plays", for
 * each rule with the place in the toolkit it follows.
 *
 * - A line whose frame is empty is not scored: after GAME_OVER or WIN the engine answers any
 *   action but RESET with an empty frame, and the toolkit only updates the scorecard for
 *   responses with a frame. A recording without frames says nothing about them, so the engine's
 *   rule decides: a non-RESET action while the game is over is not scored (`isCounted`, the
 *   rule every count of the studio uses).
 * - A RESET starts a new play (a full reset) by the engine's rule (`isFullReset`): the first one,
 *   one after WIN, one with no action taken in the level since it was entered or reset. A line
 *   that says `full_reset: true` is one too. `full_reset: false` is not trusted: responses of the
 *   REST API never carry the field, so recordings made by REST clients say false on every line.
 *   Any other RESET resets the level and counts as one action.
 * - A line of a game session that has not started with a RESET counts in the latest play of the
 *   same game (the scorecard looks plays up by game, then by guid, falling back to the latest);
 *   with no play of the game yet, it is not scored.
 * - Each change of `levels_completed` is noted with the play's action count at that moment; the
 *   official scoring splits a play's actions into levels at those notes, not by level number.
 */
import { isCounted, isFullReset } from '../game/accounting';
import type { GameAction, GameState } from '../game/types';

/** One recording line as the scorecard sees it. */
export interface ScorecardStep {
  readonly gameId: string;
  /** The game session (one engine instance); plays of different sessions never mix. */
  readonly guid: string | null;
  readonly action: GameAction;
  readonly state: GameState;
  readonly levelsCompleted: number;
  /** The line's `full_reset`, when it has one. */
  readonly fullReset?: boolean;
  /** True when the line has `frame: []`, false when it has frames, absent when it has no `frame`. */
  readonly emptyFrame?: boolean;
}

/** A level change in a play: `levels_completed` became `levelsCompleted` after `actions` actions. */
export interface LevelChange {
  readonly levelsCompleted: number;
  readonly actions: number;
}

/** One play: from a full reset to the next full reset of the same game session. */
export interface Play {
  readonly gameId: string;
  readonly guid: string | null;
  /** Indexes of the play's first and last scored steps. */
  readonly first: number;
  readonly last: number;
  /** Scored actions: every ACTION1-7 and every level RESET. */
  readonly actions: number;
  /** Level RESETs. */
  readonly resets: number;
  /** `levels_completed` of the play's last scored step. */
  readonly levelsCompleted: number;
  /** The last GAME_OVER or WIN seen in the play, or NOT_FINISHED. */
  readonly state: 'NOT_FINISHED' | 'GAME_OVER' | 'WIN';
  readonly levelChanges: readonly LevelChange[];
}

/** A step that no play counts, and why. */
export interface UnscoredStep {
  readonly index: number;
  readonly reason: 'empty-frame' | 'after-game-over' | 'before-reset';
}

/** What `scorecardPlays` finds. */
export interface ScorecardPlays {
  readonly plays: Play[];
  readonly unscored: UnscoredStep[];
  /** Indexes of RESET steps that say `full_reset: false` but start a new play by the engine's rule. */
  readonly fullResetsInferred: number[];
}

interface OpenPlay {
  gameId: string;
  guid: string | null;
  first: number;
  last: number;
  actions: number;
  resets: number;
  levelsCompleted: number;
  state: Play['state'];
  levelChanges: LevelChange[];
}

interface Session {
  /** The engine's state after the last scored step. */
  state: GameState;
  /** Non-RESET actions in the current level since it was entered or reset. */
  levelActions: number;
  play: OpenPlay | null;
}

/**
 * Splits recording steps into the plays the official scorecard keeps, in the order they start.
 * @example
 * scorecardPlays([
 *   { gameId: 'g', guid: 'a', action: 'RESET', state: 'NOT_FINISHED', levelsCompleted: 0 },
 *   { gameId: 'g', guid: 'a', action: 'ACTION1', state: 'NOT_FINISHED', levelsCompleted: 1 },
 *   { gameId: 'g', guid: 'a', action: 'RESET', state: 'NOT_FINISHED', levelsCompleted: 1, fullReset: false },
 * ]).plays.length // 2: the second RESET comes with nothing done in level 2, so it is a full reset
 */
export function scorecardPlays(steps: readonly ScorecardStep[]): ScorecardPlays {
  const plays: OpenPlay[] = [];
  const unscored: UnscoredStep[] = [];
  const fullResetsInferred: number[] = [];
  const sessions = new Map<string, Session>();
  const latest = new Map<string, OpenPlay>();
  steps.forEach((s, i) => {
    const key = `${s.gameId}\u0000${s.guid ?? ''}`;
    let session = sessions.get(key);
    if (!session) sessions.set(key, (session = { state: 'NOT_PLAYED', levelActions: 0, play: null }));
    if (s.action !== 'RESET') {
      if (!isCounted(s.action, session.state, s.emptyFrame)) {
        unscored.push({ index: i, reason: s.emptyFrame ? 'empty-frame' : 'after-game-over' });
        return;
      }
      const play = session.play ?? latest.get(s.gameId);
      if (!play) {
        unscored.push({ index: i, reason: 'before-reset' });
        return;
      }
      play.actions++;
      session.levelActions++;
    } else if (!session.play || s.fullReset === true || isFullReset(session.state, session.levelActions)) {
      if (s.fullReset === false) fullResetsInferred.push(i);
      session.play = {
        gameId: s.gameId,
        guid: s.guid,
        first: i,
        last: i,
        actions: 0,
        resets: 0,
        levelsCompleted: 0,
        state: 'NOT_FINISHED',
        levelChanges: [],
      };
      plays.push(session.play);
      latest.set(s.gameId, session.play);
      session.levelActions = 0;
    } else {
      session.play.actions++;
      session.play.resets++;
      session.levelActions = 0;
    }
    const play = (session.play ?? latest.get(s.gameId))!;
    play.last = i;
    if (s.state === 'GAME_OVER' || s.state === 'WIN') play.state = s.state;
    if (s.levelsCompleted !== play.levelsCompleted) {
      play.levelChanges.push({ levelsCompleted: s.levelsCompleted, actions: play.actions });
      // Entering the next level starts its action count afresh (the last level ends in WIN instead).
      if (s.levelsCompleted > play.levelsCompleted && s.state !== 'WIN') session.levelActions = 0;
      play.levelsCompleted = s.levelsCompleted;
    }
    session.state = s.state;
  });
  return { plays, unscored, fullResetsInferred };
}

/**
 * A play's actions per level as the official scoring splits them: one entry per level change
 * (the actions since the previous change), then, unless the play ended in WIN, the actions since
 * the last change. The first `levelChanges.length` entries are the levels it counts as completed.
 * @example playLevelActions({ actions: 9, state: 'NOT_FINISHED', levelChanges: [{ levelsCompleted: 1, actions: 4 }] }) // [4, 5]
 */
export function playLevelActions(play: Pick<Play, 'actions' | 'state' | 'levelChanges'>): number[] {
  const out: number[] = [];
  let prev = 0;
  for (const c of play.levelChanges) {
    out.push(c.actions - prev);
    prev = c.actions;
  }
  if (play.state !== 'WIN') out.push(play.actions - prev);
  return out;
}
