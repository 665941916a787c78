/**
 * Action strings: the compact text form used by the CLI, recorded solutions and logs.
 * `RESET`, `ACTION1` ... `ACTION7`, and `ACTION6:x:y` for a click at column x, row y (0-63).
 */
import { FRAME_SIZE, GAME_ACTIONS, type ActionInput, type GameAction } from './types';

/** A malformed action string. The message says what is wrong and what is accepted. */
export class ActionParseError extends Error {
  override readonly name = 'ActionParseError';
}

const ACCEPTED = 'accepted: RESET, ACTION1-ACTION5, ACTION6:x:y (x, y in 0-63), ACTION7';

/** True when `s` names an action (`RESET`, `ACTION1` ... `ACTION7`). */
export function isGameAction(s: string): s is GameAction {
  return (GAME_ACTIONS as readonly string[]).includes(s);
}

/**
 * Parses one action string.
 * @example parseAction('ACTION6:12:30') // { action: 'ACTION6', x: 12, y: 30 }
 * @throws ActionParseError on anything else than the accepted forms.
 */
export function parseAction(text: string): ActionInput {
  const s = text.trim();
  const [name, ...coords] = s.split(':');
  if (!isGameAction(name)) throw new ActionParseError(`"${s}" is not an action; ${ACCEPTED}.`);
  if (name !== 'ACTION6') {
    if (coords.length) throw new ActionParseError(`"${s}": only ACTION6 takes coordinates; write ${name} alone.`);
    return { action: name };
  }
  if (coords.length !== 2) throw new ActionParseError(`"${s}": ACTION6 needs a column and a row, e.g. ACTION6:12:30.`);
  const [x, y] = coords.map((c) => (/^\d{1,2}$/.test(c) ? Number(c) : NaN));
  for (const [label, v, raw] of [
    ['column x', x, coords[0]],
    ['row y', y, coords[1]],
  ] as const) {
    if (!(v >= 0 && v < FRAME_SIZE))
      throw new ActionParseError(`"${s}": ${label} "${raw}" must be a whole number from 0 to 63.`);
  }
  return { action: 'ACTION6', x, y };
}

/** Parses a comma-separated list such as `RESET,ACTION1,ACTION6:12:30,ACTION7` (spaces allowed). */
export function parseActions(text: string): ActionInput[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  return parts.map((p, i) => {
    try {
      return parseAction(p);
    } catch (e) {
      throw new ActionParseError(`action ${i + 1}: ${(e as Error).message}`);
    }
  });
}

/** The action string of an input: `ACTION6:12:30`, `ACTION1`, ... */
export function formatAction(input: ActionInput): string {
  return input.action === 'ACTION6' ? `ACTION6:${input.x ?? 0}:${input.y ?? 0}` : input.action;
}

/** The inverse of `parseActions`. */
export function formatActions(inputs: readonly ActionInput[]): string {
  return inputs.map(formatAction).join(',');
}
