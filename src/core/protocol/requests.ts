/**
 * What a participant's browser sends: the request bodies of the participant routes, as zod
 * schemas. The server checks every body with these at the door (`readBody` in
 * `server/study/context.ts`, after `jsonProblem`), and the browser builds its bodies from the
 * types below (`client/study/api.ts`), so both sides read one definition. docs/api.md describes
 * each route; the limits here are its "Limits".
 */
import { z } from 'zod';
import { GAME_ACTIONS } from '../game/types';
import { EventEnvelope } from '../log/events';
import { MAX_BLOCK_QUESTIONS } from '../study/schema';
import { WITHDRAW_REASONS, type AnswerResult, type ResponseStored, type WithdrawReason, type WithdrawResult } from './api';

/** Longest written description and withdrawal comment kept (characters). */
export const DESCRIPTION_MAX = 5000;
export const WITHDRAW_COMMENT_MAX = 2000;

/** The client's id for a request: a retried request with the same key is stored or judged once. */
const Key = z.string().min(1).max(100);
const ItemId = z.string().min(1).max(64);
/** The highest seq the client had logged, so the server can tell a late batch from a wrong item. */
const LastSeq = z.number().int().min(-1);

/** `POST /api/studies/:studyId/sessions`: the participant's params from the study link. */
export const CreateSessionRequest = z.object({
  params: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'names are letters, digits and "_"'), z.string().max(500)).default({}),
}).default({ params: {} });

/** `POST /api/sessions/:sessionId/finish`. */
export const FinishRequest = z.object({ lastSeq: LastSeq });

/** `POST /api/sessions/:sessionId/events`: a batch of logged events (each kind's payload: `./events.ts`). */
export const EventBatchRequest = z.object({ events: z.array(EventEnvelope).min(1, 'must hold at least one event') });

/** `POST /api/sessions/:sessionId/submissions`: a grid for one test input of a task item. */
export const SubmissionRequest = z.object({
  key: Key,
  item: ItemId,
  testIndex: z.number().int().nonnegative(),
  /** Checked as a grid by the route (`gridProblems`), which names the cell at fault. */
  grid: z.unknown(),
  lastSeq: LastSeq.optional(),
});

/** `POST /api/sessions/:sessionId/answers`: the answer to one question of a question item. */
export const AnswerRequest = z.object({
  key: Key,
  item: ItemId,
  /** The question's position in a block; 0 (the default) for a single question. */
  index: z.number().int().min(0).max(MAX_BLOCK_QUESTIONS - 1).default(0),
  answer: z.union([z.strictObject({ choice: z.string().min(1).max(8) }), z.strictObject({ text: z.string().max(20_000) })]),
  lastSeq: LastSeq.optional(),
});

/** `POST /api/sessions/:sessionId/descriptions`: a written description of a task or game. */
export const DescriptionRequest = z.strictObject({
  key: Key,
  item: ItemId,
  stage: z.enum(['first', 'last']),
  text: z.string().trim().min(1, 'must not be empty: write the description first').max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`),
  lastSeq: LastSeq.optional(),
});

/** `POST /api/sessions/:sessionId/survey`: a survey item's answers, by question id. */
export const SurveyRequest = z.strictObject({
  key: Key,
  item: ItemId,
  answers: z.record(z.string().max(64), z.unknown()),
  lastSeq: LastSeq.optional(),
});

/** `POST /api/sessions/:sessionId/withdraw`. */
export const WithdrawRequest = z.strictObject({
  key: Key,
  reason: z.enum(Object.keys(WITHDRAW_REASONS) as [WithdrawReason, ...WithdrawReason[]]),
  comment: z.string().trim().max(WITHDRAW_COMMENT_MAX, `must be at most ${WITHDRAW_COMMENT_MAX} characters`).default(''),
  /** The item the participant was on, if any. */
  item: z.string().max(64).default(''),
});

/** `POST /api/sessions/:sessionId/runs`: open (or resume) the run of a game item the server runs. */
export const RunOpenRequest = z.object({
  item: ItemId,
  /** Continue this run instead of opening one, answering the steps after `after`. */
  resume: z.object({ run: z.uuid(), after: z.number().int().min(-1).max(1_000_000) }).optional(),
  /** So that a run opened right after `item.start` waits for it (`events_pending`). */
  lastSeq: LastSeq.optional(),
});

/** `POST .../runs/:run/actions` (a session's run or a researcher's playtest): one action, by step number. */
export const RunActionRequest = z.object({
  step: z.number().int().min(1).max(1_000_000),
  action: z.enum(GAME_ACTIONS),
  x: z.number().int().min(0).max(63).optional(),
  y: z.number().int().min(0).max(63).optional(),
}).refine((d) => (d.action === 'ACTION6') === (d.x !== undefined && d.y !== undefined), { message: 'x and y are required for ACTION6 and only for it' });

/** `POST /api/admin/arc3/runs`: a researcher's playtest run, not recorded. */
export const PlaytestOpenRequest = z.object({
  game: z.string().min(1).max(100),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  /** Start at this level (0-based), as a designer's playtest does. */
  level: z.number().int().min(0).max(1000).optional(),
});

/** The budget a researcher may give a server-run game's state graph (each state is a few calls into Python). */
export const ARC3_GRAPH_LIMITS = { maxStates: 5_000, maxSeconds: 60 } as const;

/** `POST /admin/arc3/games/:id/graph`: explore a level's state graph (arcengine folders). */
export const GraphExploreRequest = z.object({
  /** The level (0-based). */
  level: z.number().int().min(0).max(1000),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  maxStates: z.number().int().min(1).max(ARC3_GRAPH_LIMITS.maxStates).optional(),
  maxSeconds: z.number().int().min(1).max(ARC3_GRAPH_LIMITS.maxSeconds).optional(),
});

/** Bodies as a client writes them (fields with a default may be left out). */
export type CreateSessionBody = z.input<typeof CreateSessionRequest>;
export type FinishBody = z.input<typeof FinishRequest>;
export type EventBatchBody = z.input<typeof EventBatchRequest>;
export type SubmissionBody = z.input<typeof SubmissionRequest>;
export type AnswerBody = z.input<typeof AnswerRequest>;
export type DescriptionBody = z.input<typeof DescriptionRequest>;
export type SurveyBody = z.input<typeof SurveyRequest>;
export type WithdrawBody = z.input<typeof WithdrawRequest>;
export type RunOpenBody = z.input<typeof RunOpenRequest>;
export type RunActionBody = z.input<typeof RunActionRequest>;
export type PlaytestOpenBody = z.input<typeof PlaytestOpenRequest>;
export type GraphExploreBody = z.input<typeof GraphExploreRequest>;

/** The keyed response routes of a session: each one's body and its answer. */
export interface ResponseRoutes {
  readonly answers: { readonly body: AnswerBody; readonly reply: AnswerResult };
  readonly descriptions: { readonly body: DescriptionBody; readonly reply: ResponseStored };
  readonly survey: { readonly body: SurveyBody; readonly reply: ResponseStored };
  readonly withdraw: { readonly body: WithdrawBody; readonly reply: WithdrawResult };
}
