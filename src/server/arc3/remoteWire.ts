/** The ARC-AGI-3 REST protocol's bodies as a remote source sends and reads them, checked at the door. */
import { Arc3Error, type Arc3Action, type Arc3ActionName, type Arc3FrameData, type Arc3GameState } from './worker';

const ACTIONS: readonly Arc3ActionName[] = [
  'RESET',
  'ACTION1',
  'ACTION2',
  'ACTION3',
  'ACTION4',
  'ACTION5',
  'ACTION6',
  'ACTION7',
];
const STATES: readonly Arc3GameState[] = ['NOT_PLAYED', 'NOT_FINISHED', 'WIN', 'GAME_OVER'];

/** The request body's action fields, checked here so a bad action gets a clear message without a round trip. */
export function actionBody(action: Arc3Action): Record<string, unknown> {
  if (!ACTIONS.includes(action?.action)) {
    throw new Arc3Error(
      'bad_request',
      `unknown action ${JSON.stringify(action?.action)}; use one of ${ACTIONS.join(', ')}`,
    );
  }
  if (action.action !== 'ACTION6') return {};
  const { x, y } = action;
  const ok = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 63;
  if (!ok(x) || !ok(y)) {
    throw new Arc3Error(
      'bad_request',
      `ACTION6 needs integer x and y from 0 to 63 (got x=${String(x)}, y=${String(y)})`,
    );
  }
  return { x, y };
}

/** The Arc3FrameData fields of a REST answer, checked; `full_reset` is set by the caller. */
export function toFrameData(answer: Record<string, unknown>, baseUrl: string, opening: boolean): Arc3FrameData {
  const bad = (what: string) =>
    new Arc3Error(
      'internal',
      `the ARC-AGI-3 server at ${baseUrl} answered a frame data without ${what}; is it an ARC-AGI-3 server?`,
    );
  if (typeof answer !== 'object' || answer === null) throw bad('fields');
  const { game_id, guid, frame, state, levels_completed, win_levels, available_actions } = answer;
  if (!Array.isArray(frame) || !frame.every((g) => Array.isArray(g) && g.every((row: unknown) => Array.isArray(row))))
    throw bad('a list of grids in `frame`');
  if (typeof state !== 'string' || !STATES.includes(state as Arc3GameState)) throw bad('a known `state`');
  return {
    game_id: typeof game_id === 'string' ? game_id : '',
    guid: typeof guid === 'string' ? guid : '',
    frame: frame as number[][][],
    state: state as Arc3GameState,
    levels_completed: typeof levels_completed === 'number' ? levels_completed : 0,
    win_levels: typeof win_levels === 'number' ? win_levels : 0,
    available_actions: Array.isArray(available_actions)
      ? available_actions.filter((a): a is number => typeof a === 'number')
      : [],
    full_reset: opening,
  };
}
