/**
 * The payload of every event kind a client may send, as zod schemas: one table, read by the
 * server at the door (a batch with one bad event is refused whole, naming the event and the
 * field), by the docs, and by anything that replays a log. A kind not listed here is refused.
 *
 * Objects accept extra fields (a newer client may log more), but every event also passes
 * `jsonProblem` first, which bounds depth, size and strings whatever the kind.
 */
import { z } from 'zod';
import { MAX_SIZE } from '../grid/grid';
import { GAME_ACTIONS } from '../game/types';

/** Longest id-like string (task ids, item ids, game ids, hashes). */
const ID_MAX = 200;
/** Longest free text (a user agent, a mistyped size, a reason). */
const TEXT_MAX = 1000;
/** Most characters of a pasted text a `text.paste` event keeps (a description holds at most 5,000). */
export const PASTE_TEXT_MAX = 5000;
/** Most test inputs a task may have (a task file allows at most 100 pairs in all). */
export const MAX_TESTS = 100;

const id = z.string().min(1).max(ID_MAX);
const text = z.string().max(TEXT_MAX);
const int = (min: number, max: number) => z.number().int().min(min).max(max);
const symbol = int(0, 9);
const coord = int(0, MAX_SIZE - 1);
const empty = z.looseObject({});

/** An ARC grid: 1-30 rows of 1-30 symbols 0-9, every row as long as the first. */
export const GridSchema = z
  .array(z.array(symbol).min(1).max(MAX_SIZE))
  .min(1)
  .max(MAX_SIZE)
  .refine((g) => g.every((row) => row.length === g[0].length), 'rows must all have the same length');
const rect = z
  .object({ r0: coord, c0: coord, r1: coord, c1: coord })
  .refine((r) => r.r0 <= r.r1 && r.c0 <= r.c1, 'must have r0 <= r1 and c0 <= c1');
const side = z.enum(['input', 'output']);
/** A cell as `[row, col]`; a set of cells holds at most one grid's worth. */
const cellPair = z.tuple([coord, coord]);
const cellSet = z
  .array(cellPair)
  .min(1)
  .max(MAX_SIZE * MAX_SIZE);
/** A move of at most a grid's width or height. */
const offset = int(-(MAX_SIZE - 1), MAX_SIZE - 1);
const verdict = z.enum(['correct', 'wrong', 'duplicate']);
const clientInfo = {
  wallClock: text.optional(),
  userAgent: text.optional(),
  viewport: z
    .object({
      width: z.number().nonnegative().max(100_000),
      height: z.number().nonnegative().max(100_000),
      dpr: z.number().positive().max(100),
    })
    .optional(),
};

const gameAction = z.enum(GAME_ACTIONS);
/** A question's place in a question block. */
const qIndex = int(0, 99);
const stage = z.enum(['first', 'last']);
const surveyValue = z.union([z.string().max(5000), z.number(), z.array(z.string().max(200)).max(50)]);
/** Frame coordinates of ACTION6: column `x` and row `y`, 0-63. */
const frameCoord = int(0, 63);

/** Every kind a client may log, with its payload. */
export const EVENT_DATA = {
  // ---- the study shell ----
  'session.start': z.looseObject({
    mode: z.enum(['study', 'practice', 'playtest']).optional(),
    studyId: id.optional(),
    params: z.record(z.string().max(64), text).optional(),
    ...clientInfo,
  }),
  'session.resume': z.looseObject(clientInfo),
  'session.end': z.looseObject({ wallClock: text.optional() }),
  consent: z.looseObject({ agreed: z.boolean() }),
  'instructions.done': empty,
  'item.start': z.looseObject({ item: id, kind: z.enum(['task', 'game', 'page', 'question', 'survey']).optional() }),
  'item.end': z.looseObject({ item: id, reason: text.optional() }),
  /** The item's soft time limit was reached and the participant was told so. */
  'item.soft_limit': z.looseObject({
    item: id,
    softMinutes: z.number().positive().max(100_000),
    hardMinutes: z.number().positive().max(100_000),
  }),
  // ---- presence ----
  visibility: z.looseObject({ state: z.enum(['visible', 'hidden']) }),
  focus: empty,
  blur: empty,
  'window.focus': empty,
  'window.blur': empty,
  idle: z.looseObject({
    state: z.enum(['idle', 'active']).optional(),
    ms: z.number().nonnegative().max(1e10).optional(),
  }),
  heartbeat: empty,
  'page.hide': empty,
  /** A proctor's break began (`paused`) or ended (`resumed`): a testing centre's station logs it. */
  pause: z.looseObject({ state: z.enum(['paused', 'resumed']) }),
  // ---- the grid player (src/core/log/gridPlayer.ts) ----
  'task.open': z.looseObject({
    taskId: id,
    collection: id.optional(),
    tests: int(1, MAX_TESTS),
    trials: int(1, 100).optional(),
  }),
  tool: z.looseObject({ tool: z.enum(['edit', 'select', 'fill', 'wand']) }),
  color: z.looseObject({ color: symbol }),
  symbols: z.looseObject({ show: z.boolean() }),
  paint: z.looseObject({ row: coord, col: coord, color: symbol, stroke: z.number().int().nonnegative() }),
  'stroke.end': z.looseObject({ stroke: z.number().int().nonnegative() }),
  fill: z.looseObject({ row: coord, col: coord, color: symbol }),
  select: z.looseObject({ side, rect, add: z.boolean().optional() }),
  'select.wand': z.looseObject({ side, row: coord, col: coord, add: z.boolean().optional(), cells: cellSet }),
  'select.clear': empty,
  recolor: z.looseObject({ rect, color: symbol, cells: cellSet.optional() }),
  rotate: z.looseObject({ dir: z.enum(['cw', 'ccw']) }),
  flip: z.looseObject({ axis: z.enum(['horizontal', 'vertical']) }),
  move: z
    .looseObject({ dr: offset, dc: offset })
    .refine((m) => m.dr !== 0 || m.dc !== 0, 'must move by at least one cell (dr or dc not 0)'),
  crop: z.looseObject({ rect }),
  copy: z.looseObject({ side, rect, block: GridSchema, cells: cellSet.optional() }),
  paste: z.looseObject({
    row: coord,
    col: coord,
    block: GridSchema,
    cells: cellSet.optional(),
    select: z.boolean().optional(),
  }),
  resize: z.looseObject({ rows: int(1, MAX_SIZE), cols: int(1, MAX_SIZE) }),
  'resize.invalid': z.looseObject({ text }),
  'copy.input': z.looseObject({ grid: GridSchema }),
  reset: empty,
  undo: empty,
  redo: empty,
  'test.select': z.looseObject({ index: int(0, MAX_TESTS - 1) }),
  submit: z.looseObject({
    index: int(0, MAX_TESTS - 1),
    trial: z.number().int().min(0).max(100).nullable(),
    verdict,
    grid: GridSchema,
  }),
  // ---- question items (src/client/study/QuestionItemView.tsx); `index`: the question's place in a block ----
  'question.choice': z.looseObject({ item: id, index: qIndex.optional(), label: z.string().min(1).max(8) }),
  /** The answer box's whole text after typing (logged a moment after typing pauses). */
  'question.input': z.looseObject({ item: id, index: qIndex.optional(), text: z.string().max(20_000) }),
  'question.focus': z.looseObject({ item: id, index: qIndex.optional() }),
  'question.blur': z.looseObject({ item: id, index: qIndex.optional() }),
  'question.submit': z.looseObject({
    item: id,
    index: qIndex.optional(),
    choice: z.string().max(8).optional(),
    text: z.string().max(20_000).optional(),
    verdict: z.enum(['correct', 'wrong', 'ungraded']),
  }),
  // ---- written descriptions after a task or game (src/client/study/DescribeForm.tsx) ----
  'description.open': z.looseObject({ item: id, stage }),
  /** The description's whole text after typing pauses. */
  'description.input': z.looseObject({ item: id, stage, text: z.string().max(5000) }),
  'description.submit': z.looseObject({ item: id, stage, text: z.string().max(5000) }),
  // ---- pastes into written answers (src/client/study/paste.ts) ----
  /**
   * Text pasted into a description (`field: "description"`, with its `stage`) or a question's
   * free-response answer (`field: "answer"`, with its `index` in a block): the pasted `text`,
   * its first `PASTE_TEXT_MAX` characters, and its whole `length`.
   */
  'text.paste': z.looseObject({
    item: id,
    field: z.enum(['description', 'answer']),
    stage: stage.optional(),
    index: qIndex.optional(),
    length: int(0, 10_000_000),
    text: z.string().max(PASTE_TEXT_MAX),
  }),
  // ---- surveys (src/client/study/SurveyItemView.tsx) ----
  /** One question's answer after a change (text after typing pauses). */
  'survey.answer': z.looseObject({ item: id, question: id, value: surveyValue.nullable() }),
  'survey.submit': z.looseObject({ item: id, answers: z.record(z.string().max(64), surveyValue) }),
  // ---- withdrawing (src/client/study/WithdrawDialog.tsx) ----
  'withdraw.open': empty,
  'withdraw.cancel': empty,
  withdraw: z.looseObject({ reason: z.string().min(1).max(64), comment: z.string().max(2000).optional() }),
  // ---- games (src/core/game/replay.ts) ----
  'game.open': z.looseObject({
    game: id,
    seed: z.number().int(),
    level: int(0, 1000).optional(),
    version: id.optional(),
    engine: id.optional(),
  }),
  'game.action': z.looseObject({
    game: id,
    action: gameAction,
    x: frameCoord.optional(),
    y: frameCoord.optional(),
    level: int(0, 1000),
    state: z.enum(['NOT_PLAYED', 'NOT_FINISHED', 'WIN', 'GAME_OVER']),
    frameHash: id,
  }),
  'game.refused': z.looseObject({
    game: id,
    action: gameAction,
    code: id,
    x: z.number().int().optional(),
    y: z.number().int().optional(),
  }),
} as const;

export type EventKind = keyof typeof EVENT_DATA;
export const EVENT_KINDS = Object.keys(EVENT_DATA) as EventKind[];

/** Whether `kind` is one the server accepts. */
export function isEventKind(kind: string): kind is EventKind {
  return Object.prototype.hasOwnProperty.call(EVENT_DATA, kind);
}

/**
 * Why an event's payload is refused ("data.rect.r1: must be ..."), or null when it is valid.
 * Run `jsonProblem` on the body first: this assumes bounded, finite JSON.
 */
export function eventDataProblem(kind: string, data: unknown): string | null {
  if (!isEventKind(kind))
    return `kind "${kind.slice(0, 64)}" is not an event kind of ARC Studio (see docs/api.md, "Event kinds")`;
  const r = EVENT_DATA[kind].safeParse(data);
  if (r.success) return null;
  const issue = r.error.issues[0];
  return `data${issue.path.length ? '.' + issue.path.join('.') : ''} ${issue.message}`;
}
