/**
 * The line protocol between the server (`Arc3Worker`, worker.ts) and its Python workers
 * (`worker.py`), in one place: what each command asks, what it answers, and the schemas every
 * answer is checked against before the server uses it (a worker is a separate program running
 * code from a games folder; its answers are input, not trusted values). `protocol.test.ts`
 * speaks this protocol to `worker.py` line by line.
 *
 * The server starts `python3 worker.py --games DIR [--games DIR ...]` (each DIR in the toolkit's
 * layout, `<game>/<version>/<game>.py` + `metadata.json`) and writes one JSON object per line on
 * its stdin: `{"id": <int>, "cmd": <name>, ...fields}`. The worker answers each on one line of its
 * stdout, in order, with the same id and either `"ok": true` and the command's fields, or
 * `"ok": false, "error": {"code", "message", "traceback"?}` (codes: {@link WORKER_ERROR_CODES}).
 * After an error the worker keeps serving. What a game prints goes to stderr. The server may
 * write a request before the ones ahead of it are answered (the actions of live runs are; see
 * `Arc3Worker.act`): the worker reads the next line as soon as it has answered one.
 *
 * | command | fields | answer |
 * |---|---|---|
 * | `hello` | | {@link Arc3Hello}: Python and arcengine versions (arcengine null, and why, when missing) |
 * | `list` | | `games`: {@link Arc3GameInfo}[] (the folders are scanned again) |
 * | `open` | `run`, `game_id`, `seed?`, `level?`, `code_dir?` | frame data of the toolkit's initial RESET (then `set_level(level)` when level > 0); `code_dir`: a folder holding one pinned version of the game's files (`gameCode.ts`), loaded from there instead of the mounted folders (its class is kept: such a folder never changes) |
 * | `act` | `run`, `action` (RESET, ACTION1..7), `x?`, `y?` (ACTION6) | frame data |
 * | `replay` | `run`, `game_id`, `seed?`, `level?`, `code_dir?`, `actions`: {@link Arc3Action}[] | `open`, then every action; the last frame data and `count` |
 * | `inspect` | `run` | {@link Arc3Inspection} |
 * | `close` | `run` | `closed`: whether the run was open |
 * | `reload` | `game_id` | `game_id`, `file`: the game's file, executed again |
 * | `quit` | | nothing; the worker exits |
 * | `explore_start` | `run`, `game_id`, `seed?`, `level?`, `code_dir?` | {@link Arc3ExploredState} of the level's start (node 0): opens the run for a state-graph exploration (`graph.ts`) |
 * | `explore_expand` | `run`, `node` (a node not expanded yet), `actions`: {@link Arc3Action}[] | `results`: {@link Arc3ExploredState}[], one per action, each played on a copy of the state |
 *
 * Frame data holds the official `FrameData` fields: `game_id`, `guid`, the frames (every frame
 * the action rendered, 64x64 grids of colour indices; none after GAME_OVER or WIN for a non-RESET
 * action) as `frame_b64` (base64 of each grid's row-major bytes) with `frame_dims` ([height,
 * width] of each), or as nested lists in `frame` when a cell does not fit a byte; `state`,
 * `levels_completed`, `win_levels`, `available_actions`, `full_reset`.
 */
import { z } from 'zod';
import type { Arc3GameState, Arc3Inspection } from '../../core/protocol/arc3';

export type Arc3ActionName =
  'RESET' | 'ACTION1' | 'ACTION2' | 'ACTION3' | 'ACTION4' | 'ACTION5' | 'ACTION6' | 'ACTION7';

/** One action as sent to a game; x and y (0-63) only for ACTION6. */
export interface Arc3Action {
  action: Arc3ActionName;
  x?: number;
  y?: number;
}

export type { Arc3GameState, Arc3Inspection };

/** The official FrameData fields, as the engine returned them for one action (frames decoded). */
export interface Arc3FrameData {
  game_id: string;
  guid: string;
  /** Every frame the action rendered (64x64 grids of colour indices); empty after GAME_OVER/WIN for a non-RESET action. */
  frame: number[][][];
  state: Arc3GameState;
  levels_completed: number;
  win_levels: number;
  available_actions: number[];
  full_reset: boolean;
}

/** A game found in a mounted folder (from its metadata.json). */
export interface Arc3GameInfo {
  game_id: string;
  game: string;
  version: string;
  title: string;
  tags: string[];
  default_fps: number;
  baseline_actions: number[];
  class_name: string;
  dir: string;
  /** Known once the class was built; null when it could not be (see `error`). */
  level_count: number | null;
  /** The actions the engine says the game offers (its `available_actions`); null until the class was built. */
  available_actions?: number[] | null;
  error?: { code: string; message: string };
}

export interface Arc3Hello {
  python: string;
  executable: string;
  pid: number;
  dirs: string[];
  arcengine: string | null;
  arcengine_path?: string;
  arcengine_error?: string;
}

/**
 * A state met while exploring a level (`explore_start`, `explore_expand`). States are told apart
 * by a SHA-256 digest of the frame, the level, state and score, every sprite of the level and the
 * game's public fields; each distinct state gets an id in order of discovery, -1 for a won level.
 * A state met for the first time says `new`, and, unless GAME_OVER, its actions and (when it
 * offers ACTION6) the click targets: the centre of each visible sprite on the frame.
 */
export interface Arc3ExploredState {
  node: number;
  state: Arc3GameState;
  levels_completed: number;
  new?: boolean;
  available_actions?: number[];
  targets?: [number, number][];
}

/** The error codes a worker answers with. */
export const WORKER_ERROR_CODES = [
  'bad_request',
  'unknown_game',
  'unknown_run',
  'load_error',
  'game_error',
  'no_engine',
  'internal',
] as const;

const int = z.number().int();
const STATES = ['NOT_PLAYED', 'NOT_FINISHED', 'WIN', 'GAME_OVER'] as const;

/** Every answer's envelope: the request's id, then success or an error. */
export const ReplyEnvelope = z.union([
  z.looseObject({ id: int, ok: z.literal(true) }),
  z.object({
    id: int,
    ok: z.literal(false),
    error: z.object({ code: z.enum(WORKER_ERROR_CODES), message: z.string(), traceback: z.string().optional() }),
  }),
]);

/** Frame data as it comes on the wire (`open`, `act`, `replay`); {@link decodeFrameData} turns it into {@link Arc3FrameData}. */
export const FrameDataWire = z
  .object({
    game_id: z.string(),
    guid: z.string(),
    frame_b64: z.array(z.string()).optional(),
    frame_dims: z.array(z.tuple([int.min(0).max(4096), int.min(0).max(4096)])).optional(),
    frame: z.array(z.array(z.array(int))).optional(),
    state: z.enum(STATES),
    levels_completed: int.min(0),
    win_levels: int.min(0),
    available_actions: z.array(int.min(0).max(7)),
    full_reset: z.boolean(),
    count: int.min(0).optional(),
  })
  .refine((d) => (d.frame_b64 ? d.frame_dims?.length === d.frame_b64.length : d.frame !== undefined), {
    message: 'frames come as frame_b64 with one frame_dims each, or as frame',
  });

export const HelloReply: z.ZodType<Arc3Hello> = z.object({
  python: z.string(),
  executable: z.string(),
  pid: int,
  dirs: z.array(z.string()),
  arcengine: z.string().nullable(),
  arcengine_path: z.string().optional(),
  arcengine_error: z.string().optional(),
});

/** Loose: a newer worker may say more of a game than this server reads. */
export const ListReply: z.ZodType<{ games: Arc3GameInfo[] }> = z.object({
  games: z.array(
    z.looseObject({
      game_id: z.string(),
      game: z.string(),
      version: z.string(),
      title: z.string(),
      tags: z.array(z.string()),
      default_fps: z.number(),
      baseline_actions: z.array(z.number()),
      class_name: z.string(),
      dir: z.string(),
      level_count: int.nullable(),
      available_actions: z.array(int.min(0).max(7)).nullable().optional(),
      error: z.object({ code: z.string(), message: z.string() }).optional(),
    }),
  ),
});

export const InspectReply: z.ZodType<Arc3Inspection> = z.object({
  level_index: int,
  levels: int,
  state: z.enum(STATES),
  levels_completed: int,
  attributes: z.record(z.string(), z.unknown()),
  camera: z.object({
    x: z.number(),
    y: z.number(),
    width: z.number(),
    height: z.number(),
    scale: z.number(),
    x_offset: z.number(),
    y_offset: z.number(),
  }),
  sprites: z.array(
    z.object({
      name: z.string(),
      x: z.number(),
      y: z.number(),
      width: z.number(),
      height: z.number(),
      layer: z.number(),
      visible: z.boolean(),
      tags: z.array(z.string()),
    }),
  ),
});

export const ExploredStateReply: z.ZodType<Arc3ExploredState> = z.object({
  node: int.min(-1),
  state: z.enum(STATES),
  levels_completed: int.min(0),
  new: z.boolean().optional(),
  available_actions: z.array(int.min(0).max(7)).optional(),
  targets: z.array(z.tuple([int.min(0).max(63), int.min(0).max(63)])).optional(),
});

export const ExpandReply = z.object({ results: z.array(ExploredStateReply) });

/**
 * Frame data from the wire, its frames decoded into grids; throws a message naming what is wrong
 * (a frame whose bytes do not fill its dimensions).
 */
export function decodeFrameData(wire: z.infer<typeof FrameDataWire>): Arc3FrameData {
  const { frame_b64: b64, frame_dims: dims, frame: lists, count: _count, ...rest } = wire;
  const frame =
    b64 && dims
      ? b64.map((text, i) => {
          const bytes = Buffer.from(text, 'base64');
          const [h, w] = dims[i];
          if (bytes.length !== h * w) throw new Error(`frame ${i} holds ${bytes.length} cells, not ${h}x${w}`);
          const grid: number[][] = new Array(h);
          for (let r = 0; r < h; r++) {
            const row: number[] = new Array(w);
            for (let c = 0; c < w; c++) row[c] = bytes[r * w + c];
            grid[r] = row;
          }
          return grid;
        })
      : (lists ?? []);
  return { ...rest, frame };
}
