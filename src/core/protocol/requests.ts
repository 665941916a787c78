/**
 * What a browser sends: the request bodies of the participant routes, and below them those of
 * the researcher's and graders' routes and the practice check, as zod schemas. The server checks every body with these at the door (`readBody` in
 * `server/study/context.ts`, after `jsonProblem`), and the browser builds its bodies from the
 * types below (`client/study/api.ts`), so both sides read one definition. docs/api.md describes
 * each route; the limits here are its "Limits".
 */
import { z } from 'zod';
import { GAME_ACTIONS } from '../game/types';
import { EventEnvelope } from '../log/events';
import { MAX_BLOCK_QUESTIONS } from '../study/schema';
import { MAX_NOTE } from '../grading/grade';
import {
  WITHDRAW_REASONS,
  type AnswerResult,
  type ResponseStored,
  type WithdrawReason,
  type WithdrawResult,
} from './api';

/** Longest written description and withdrawal comment kept (characters). */
export const DESCRIPTION_MAX = 5000;
export const WITHDRAW_COMMENT_MAX = 2000;

/** The client's id for a request: a retried request with the same key is stored or judged once. */
const Key = z.string().min(1).max(100);
const ItemId = z.string().min(1).max(64);
/** The highest seq the client had logged, so the server can tell a late batch from a wrong item. */
const LastSeq = z.number().int().min(-1);

/** `POST /api/studies/:studyId/sessions`: the participant's params from the study link. */
export const CreateSessionRequest = z
  .object({
    params: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'names are letters, digits and "_"'),
        z.string().max(500),
      )
      .default({}),
  })
  .default({ params: {} });

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
  index: z
    .number()
    .int()
    .min(0)
    .max(MAX_BLOCK_QUESTIONS - 1)
    .default(0),
  answer: z.union([
    z.strictObject({ choice: z.string().min(1).max(8) }),
    z.strictObject({ text: z.string().max(20_000) }),
  ]),
  lastSeq: LastSeq.optional(),
});

/** `POST /api/sessions/:sessionId/descriptions`: a written description of a task or game. */
export const DescriptionRequest = z.strictObject({
  key: Key,
  item: ItemId,
  stage: z.enum(['first', 'last']),
  text: z
    .string()
    .trim()
    .min(1, 'must not be empty: write the description first')
    .max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`),
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
  comment: z
    .string()
    .trim()
    .max(WITHDRAW_COMMENT_MAX, `must be at most ${WITHDRAW_COMMENT_MAX} characters`)
    .default(''),
  /** The item the participant was on, if any. */
  item: z.string().max(64).default(''),
});

/** The most logged steps one resume may bring back (`RunOpenRequest`'s `resume.logged`). */
export const RESUME_LOGGED_MAX = 256;

/** An action of a run by its step number; a click (ACTION6) names its cell. */
const ActionByStep = z.object({
  step: z.number().int().min(1).max(1_000_000),
  action: z.enum(GAME_ACTIONS),
  x: z.number().int().min(0).max(63).optional(),
  y: z.number().int().min(0).max(63).optional(),
});

/** `schema` with the rule that a click (ACTION6), and only a click, has x and y. */
function withClickCell<T extends typeof ActionByStep>(schema: T) {
  return schema.refine((d) => (d.action === 'ACTION6') === (d.x !== undefined && d.y !== undefined), {
    message: 'x and y are required for ACTION6 and only for it',
  });
}

/**
 * One step of a run as the participant's own log has it (its `game.action` event): sent on
 * resume so that a step the server answered but never stored (it died between the two) is
 * played again, checked against `frameHash` and stored.
 */
export const RunLoggedStep = withClickCell(
  ActionByStep.extend({
    frameHash: z.string().regex(/^[0-9a-f]{8}$/, 'must be the 8 hexadecimal digits of the answered frame'),
  }),
);

/** `POST /api/sessions/:sessionId/runs`: open (or resume) the run of a game item the server runs. */
export const RunOpenRequest = z.object({
  item: ItemId,
  /**
   * Continue this run instead of opening one, answering the steps after `after`. `logged` is the
   * end of the participant's log of the run (contiguous steps, the last one `after`): those the
   * server has not stored are played again and stored (docs/api.md, "A step is answered before
   * it is stored").
   */
  resume: z
    .object({
      run: z.uuid(),
      after: z.number().int().min(-1).max(1_000_000),
      logged: z
        .array(RunLoggedStep)
        .max(RESUME_LOGGED_MAX, `must be at most ${RESUME_LOGGED_MAX} steps, the end of the log`)
        .optional(),
    })
    .superRefine((r, ctx) => {
      const logged = r.logged ?? [];
      for (let i = 1; i < logged.length; i++)
        if (logged[i].step !== logged[i - 1].step + 1) {
          ctx.addIssue({
            code: 'custom',
            path: ['logged', i, 'step'],
            message: `must follow step ${logged[i - 1].step} (the logged steps are contiguous, oldest first)`,
          });
          return;
        }
      if (logged.length && logged[logged.length - 1].step !== r.after)
        ctx.addIssue({
          code: 'custom',
          path: ['logged'],
          message: `must end at step ${r.after}, the "after" of the resume`,
        });
    })
    .optional(),
  /** So that a run opened right after `item.start` waits for it (`events_pending`). */
  lastSeq: LastSeq.optional(),
});

/** `POST .../runs/:run/actions` (a session's run or a researcher's playtest): one action, by step number. */
export const RunActionRequest = withClickCell(ActionByStep);

/** `POST /api/admin/arc3/runs`: a researcher's playtest run, not recorded. */
export const PlaytestOpenRequest = z.object({
  game: z.string().min(1).max(100),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  /** Start at this level (0-based), as a designer's playtest does. */
  level: z.number().int().min(0).max(1000).optional(),
});

/** The budget a researcher may give a server-run game's state graph (each state is a few calls into Python). */
export const ARC3_GRAPH_LIMITS = { maxStates: 5_000, maxSeconds: 60 } as const;

/** The name a researcher's page gives a state-graph exploration: letters, digits and dashes, 8 to 64 of them. */
export const ExplorationId = z
  .string()
  .regex(/^[A-Za-z0-9-]{8,64}$/, 'must be 8 to 64 letters, digits or dashes (a UUID, say)');

/** `POST /admin/arc3/games/:id/graph`: explore a level's state graph (arcengine folders). */
export const GraphExploreRequest = z.object({
  /** The level (0-based). */
  level: z.number().int().min(0).max(1000),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  maxStates: z.number().int().min(1).max(ARC3_GRAPH_LIMITS.maxStates).optional(),
  maxSeconds: z.number().int().min(1).max(ARC3_GRAPH_LIMITS.maxSeconds).optional(),
  /** A name for this exploration, so that `POST /admin/arc3/graphs/:exploration/cancel` can stop it. */
  exploration: ExplorationId.optional(),
});

/** `POST /api/collections/:cid/tasks/:taskId/check`: a grid for one test input of a practice task. */
export const PracticeCheckRequest = z.object({
  testIndex: z.number().int().nonnegative(),
  /** Checked as a grid by the route (`gridProblems`), which names the cell at fault. */
  grid: z.unknown(),
});

// The researcher's routes (`/api/admin/...`) and the graders'.

/** `POST` and `PUT /api/admin/studies/:studyId`: the definition is checked by `parseStudy`, which names each problem. */
export const SaveStudyRequest = z.object({ definition: z.unknown() });

/** Why a researcher excluded or deleted something, for the audit log; empty: none given. */
const Reason = z
  .string()
  .trim()
  .max(500, 'is at most 500 characters')
  .transform((r) => (r === '' ? null : r))
  .optional();

/** `POST /api/admin/sessions/:sessionId/exclude` and `/include`. */
export const ExclusionRequest = z.strictObject({ reason: Reason }).default({});

/** `DELETE /api/admin/sessions/:sessionId` and `/api/admin/studies/:studyId`: `confirm` repeats the id deleted. */
export const DeleteRequest = z.strictObject({
  confirm: z.string({ error: 'is required: the id being deleted, typed again' }).max(200),
  reason: Reason,
});

/** A participant's platform id as the sessions' params hold it (a Prolific id, a worker id, a participant id). */
const ParticipantIdField = z
  .string({ error: 'is required: the Prolific id, worker id or participant id' })
  .trim()
  .min(1, 'is required: the Prolific id, worker id or participant id')
  .max(200, 'is at most 200 characters');

/** `POST /api/admin/participants/find`. */
export const ParticipantFindRequest = z.strictObject({ participantId: ParticipantIdField });

/**
 * `POST /api/admin/participants/delete`: `confirm` repeats the id, and a reason is required (it
 * goes in the audit trail and on the receipt).
 */
export const ParticipantDeleteRequest = z.strictObject({
  participantId: ParticipantIdField,
  reason: z
    .string({ error: 'is required: why the data is deleted (e.g. "the participant asked on 3 May")' })
    .trim()
    .min(1, 'is required: why the data is deleted (e.g. "the participant asked on 3 May")')
    .max(500, 'is at most 500 characters'),
  confirm: z.string({ error: 'is required: the participant id, typed again' }).max(200),
});

/** `PUT /api/admin/studies/:studyId/stage`: the stage's name is checked by the route. */
export const StageRequest = z.strictObject({ stage: z.string({ error: 'is required, e.g. "main"' }).max(200) });

const VERSION_ERROR = 'must be a whole number from 1; leave it out for every version';

/** `POST /api/admin/studies/:studyId/exports`: the format is checked by the route, which lists the formats. */
export const ExportRequest = z
  .object({
    format: z.string().max(100).optional(),
    version: z.number({ error: VERSION_ERROR }).int(VERSION_ERROR).min(1, VERSION_ERROR).nullable().optional(),
  })
  .default({});

const Note = z.string().max(MAX_NOTE, `is longer than ${MAX_NOTE} characters`).default('');

/** `PUT /api/grading/answers/:answerId` (a grader) and an adjudication's `grade`. */
export const GradeRequest = z.union(
  [
    z.strictObject({
      criteria: z
        .array(z.strictObject({ points: z.number(), note: Note }))
        .max(50, 'has more than 50 scores')
        .readonly(),
      note: Note,
    }),
    z.strictObject({ correct: z.boolean(), note: Note }),
  ],
  {
    error:
      'must be {"criteria": [{"points", "note"}, ...], "note"} for an item with a rubric, or {"correct": true|false, "note"} without one',
  },
);

/** `POST /api/admin/studies/:studyId/adjudications`: the researcher's final grade of one answer. */
export const AdjudicationRequest = z.strictObject({
  sessionId: z.string().min(1).max(200),
  item: z.string().min(1).max(64),
  testIndex: z.number().int().min(0).max(1000),
  grade: GradeRequest,
  reason: z.string().trim().max(500).optional(),
});

/** `POST /api/admin/studies/:studyId/graders`: a new grader link. */
export const GraderRequest = z.strictObject({
  label: z
    .string()
    .trim()
    .min(1, 'is empty; name the grader (a name or a label such as "Grader A")')
    .max(100, 'is longer than 100 characters'),
});

/** `POST /api/admin/agent-keys`: a new key for an agent, named for the researcher's list. */
export const AgentKeyRequest = z.object({
  name: z
    .string({ error: 'name must be a string' })
    .trim()
    .min(1, 'name must not be empty')
    .max(100, 'name is longer than 100 characters'),
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
export type RunLoggedStepBody = z.input<typeof RunLoggedStep>;
export type PlaytestOpenBody = z.input<typeof PlaytestOpenRequest>;
export type GraphExploreBody = z.input<typeof GraphExploreRequest>;
export type PracticeCheckBody = z.input<typeof PracticeCheckRequest>;
export type SaveStudyBody = z.input<typeof SaveStudyRequest>;
export type ExclusionBody = z.input<typeof ExclusionRequest>;
export type DeleteBody = z.input<typeof DeleteRequest>;
export type ExportBody = z.input<typeof ExportRequest>;
export type GradeBody = z.input<typeof GradeRequest>;
export type AdjudicationBody = z.input<typeof AdjudicationRequest>;
export type GraderBody = z.input<typeof GraderRequest>;
export type AgentKeyBody = z.input<typeof AgentKeyRequest>;

/** The keyed response routes of a session: each one's body and its answer. */
export interface ResponseRoutes {
  readonly answers: { readonly body: AnswerBody; readonly reply: AnswerResult };
  readonly descriptions: { readonly body: DescriptionBody; readonly reply: ResponseStored };
  readonly survey: { readonly body: SurveyBody; readonly reply: ResponseStored };
  readonly withdraw: { readonly body: WithdrawBody; readonly reply: WithdrawResult };
}
