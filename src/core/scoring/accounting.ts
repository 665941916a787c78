/**
 * Run and per-level action accounting, as the official ARC-AGI-3 scorecard does it, over any
 * sequence of steps: a participant's logged `game.action` events or the lines of a recording.
 * The rules are written once, in core/game/accounting.ts, which the engine uses too; this module
 * is where scoring code imports them from.
 */
export { isCounted, isFullReset, levelCounts, splitRuns, type AccountedStep, type RunCount } from '../game/accounting';
