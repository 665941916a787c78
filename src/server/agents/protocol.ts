/**
 * The ARC-AGI-3 REST protocol as ARC Studio serves it to agents: the request bodies (checked
 * with zod before anything acts on them), the response fields, and the named errors. The
 * official toolkit's `arc_agi` client (ONLINE mode) and the agents built on it talk to these
 * routes without a line changed; docs/api.md, "Agents: the ARC-AGI-3 protocol", states the rules.
 */
import { z } from 'zod';
import type { GameAction, GameState } from '../../core/game/types';

/** The header the toolkit sends its key in (HTTP header names are case-insensitive). */
export const API_KEY_HEADER = 'X-API-Key';

/** The official limit on `reasoning` and `opaque`: 16 KiB of compact JSON. */
export const MAX_BLOB_BYTES = 16 * 1024;

/** The official error names (`arc_agi.models.APIError`), plus ARC Studio's for keys and limits. */
export type ProtocolError =
  | 'VALIDATION_ERROR'
  | 'GAME_NOT_AVAILABLE_ERROR'
  | 'SERVER_ERROR'
  | 'GAME_NOT_STARTED_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND';

const blob = (what: string) =>
  z.unknown().refine((v) => v === undefined || Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8') <= MAX_BLOB_BYTES, {
    message: `${what} is larger than ${MAX_BLOB_BYTES} bytes of JSON; send a smaller one`,
  });

const id = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .max(200, `${what} is longer than 200 characters`);

/** A coordinate of ACTION6: a whole number 0-63 (column x, row y, from the top left). */
const coordinate = (axis: 'x' | 'y') =>
  z
    .number({ error: `${axis} must be a number from 0 to 63` })
    .int(`${axis} must be a whole number from 0 to 63`)
    .min(0, `${axis} must be from 0 to 63 (0 is the ${axis === 'x' ? 'left column' : 'top row'})`)
    .max(63, `${axis} must be from 0 to 63 (the frame is 64x64)`);

export const OpenScorecardSchema = z.object({
  tags: z
    .array(z.string().max(200, 'a tag is longer than 200 characters'), { error: 'tags must be a list of strings' })
    .max(50, 'at most 50 tags')
    .optional(),
  source_url: z
    .string({ error: 'source_url must be a string' })
    .max(2000, 'source_url is longer than 2,000 characters')
    .nullish(),
  opaque: blob('opaque').optional(),
  competition_mode: z.unknown().optional(),
});

export const CloseScorecardSchema = z.object({ card_id: id('card_id') });

export const CommandSchema = z.object({
  game_id: id('game_id'),
  card_id: id('card_id').nullish(),
  guid: id('guid').nullish(),
  x: z.unknown().optional(),
  y: z.unknown().optional(),
  reasoning: blob('reasoning').optional(),
});
export type Command = z.infer<typeof CommandSchema>;

/** The coordinates of an ACTION6 command, or the message saying what is wrong with them. */
export function clickOf(body: Command): { x: number; y: number } | { problem: string } {
  if (body.x === undefined || body.y === undefined || body.x === null || body.y === null) {
    return {
      problem:
        'ACTION6 needs "x" and "y", whole numbers from 0 to 63 (column and row of the 64x64 frame, from the top left)',
    };
  }
  const x = coordinate('x').safeParse(body.x);
  const y = coordinate('y').safeParse(body.y);
  const problems = [x, y].flatMap((r, i) =>
    r.success ? [] : [`${r.error.issues[0].message}, got ${JSON.stringify(i ? body.y : body.x)}`],
  );
  if (problems.length) return { problem: `ACTION6 refused: ${problems.join('; ')}` };
  return { x: x.data!, y: y.data! };
}

/** Every action response, field for field as the official `FrameData` (plus `full_reset`, always present). */
export interface ProtocolFrame {
  readonly game_id: string;
  readonly guid: string;
  readonly frame: readonly (readonly (readonly number[])[])[];
  readonly state: GameState;
  readonly levels_completed: number;
  readonly win_levels: number;
  readonly available_actions: readonly number[];
  readonly full_reset: boolean;
  readonly action_input: { id: number; data: Record<string, unknown>; reasoning?: unknown };
}

/** The routes' action names, in `GameAction` order (RESET is 0). */
export const COMMANDS: readonly GameAction[] = [
  'RESET',
  'ACTION1',
  'ACTION2',
  'ACTION3',
  'ACTION4',
  'ACTION5',
  'ACTION6',
  'ACTION7',
];

/**
 * The JSON text of a response. Frames are written as ASCII bytes straight from the cells into
 * one buffer: an action answers 4,096 numbers per frame, and building nested arrays (or strings
 * cell by cell) only to serialise them costs several times the engine's step.
 */
export function frameJson(
  head: Omit<ProtocolFrame, 'frame'>,
  frames: readonly (Uint8Array | readonly (readonly number[])[])[],
): string {
  const parts: string[] = [];
  for (const f of frames)
    parts.push(f instanceof Uint8Array ? gridJson(f) : '[' + f.map((r) => '[' + r.join(',') + ']').join(',') + ']');
  const rest = JSON.stringify(head);
  return `{"frame":[${parts.join(',')}],${rest.slice(1)}`;
}

const OPEN = 0x5b;
const CLOSE = 0x5d;
const COMMA = 0x2c;
const ZERO = 0x30;
const ascii = new TextDecoder();
let scratch = new Uint8Array(16 * 1024);

/** A square grid of byte cells as a JSON array of rows (`[[0,1,...],...]`). */
function gridJson(cells: Uint8Array): string {
  const side = Math.round(Math.sqrt(cells.length));
  // At most three digits and a comma per cell, and two brackets and a comma per row.
  const bound = cells.length * 4 + side * 3 + 2;
  if (scratch.length < bound) scratch = new Uint8Array(bound);
  const out = scratch;
  let n = 0;
  out[n++] = OPEN;
  for (let y = 0; y < side; y++) {
    if (y > 0) out[n++] = COMMA;
    out[n++] = OPEN;
    for (let x = 0, i = y * side; x < side; x++, i++) {
      if (x > 0) out[n++] = COMMA;
      const v = cells[i];
      if (v >= 100) {
        out[n++] = ZERO + ((v / 100) | 0);
        out[n++] = ZERO + (((v / 10) | 0) % 10);
        out[n++] = ZERO + (v % 10);
      } else if (v >= 10) {
        out[n++] = ZERO + ((v / 10) | 0);
        out[n++] = ZERO + (v % 10);
      } else out[n++] = ZERO + v;
    }
    out[n++] = CLOSE;
  }
  out[n++] = CLOSE;
  return ascii.decode(out.subarray(0, n));
}
