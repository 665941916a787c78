/**
 * A study definition: what a participant sees and the rules the server enforces.
 * Stored as JSON (files in `data/studies/`, or versions in the database) and validated here.
 *
 * One file over 600 lines because it is one format: its item kinds, limits and payment rules
 * refer to each other, and the editor, the server and the docs read it as a whole.
 */
import { z } from 'zod';
import { DEVICE_CLASSES } from './devices';
import { sanitizeMarkdown } from './markdown';

const ItemId = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );
const Markdown = z.string().max(50_000).transform(sanitizeMarkdown);
const Minutes = z
  .number()
  .positive()
  .max(24 * 60);

const limitFields = {
  /** Minutes after which the participant is told time is nearly up (overrides the study's). */
  softMinutes: Minutes.optional(),
  /** Minutes after which the server refuses the item's submissions (overrides the study's). */
  hardMinutes: Minutes.optional(),
};

/** The default prompt of a written description (`describe`). */
export const DEFAULT_DESCRIBE_PROMPT = 'Describe the rule in your own words';

/**
 * A written description after a task or game, as H-ARC collects them: on a task, after the
 * participant's first submission (the first written solution) and again when they leave the item
 * if they submitted since (the last written solution); on a game, once when the item ends.
 * `true` (or `{}`) asks with the default prompt.
 */
const Describe = z.union([
  z.literal(true).transform(() => ({ prompt: DEFAULT_DESCRIBE_PROMPT })),
  z.strictObject({ prompt: z.string().trim().min(1).max(500).default(DEFAULT_DESCRIBE_PROMPT) }),
]);

export const PageItem = z.object({
  kind: z.literal('page'),
  id: ItemId,
  title: z.string().max(200).default(''),
  /** Markdown; raw HTML and script links are removed on load. */
  markdown: Markdown,
});

export const TaskItem = z.object({
  kind: z.literal('task'),
  id: ItemId,
  /** A collection id as the server mounts it, e.g. `samples`. */
  collection: z.string().min(1).max(200),
  /** The task id inside the collection (its file name without `.json`). */
  task: z.string().min(1).max(500),
  /** Indices of the test inputs to show; all of them when absent. */
  tests: z.array(z.number().int().nonnegative()).min(1).max(100).optional(),
  /** Practice items are logged but marked as practice and never count toward results. */
  practice: z.boolean().default(false),
  describe: Describe.optional(),
  ...limitFields,
});

export const GameItem = z.object({
  kind: z.literal('game'),
  id: ItemId,
  /** A registered game id, e.g. `push`. */
  game: z.string().min(1).max(100),
  /** The game's seed; every participant gets the same one unless this is absent (then 0). */
  seed: z.number().int().nonnegative().default(0),
  practice: z.boolean().default(false),
  describe: Describe.optional(),
  ...limitFields,
});

const QuestionRef = z.strictObject({
  /** A question collection id as the server mounts it (`serve --questions NAME=FILE`). */
  collection: z.string().min(1).max(200),
  /** The question's id inside its file. */
  question: z.string().min(1).max(200),
});
export type QuestionRef = z.output<typeof QuestionRef>;

/** Most questions one block shows on one screen. */
export const MAX_BLOCK_QUESTIONS = 50;

/**
 * One question per screen (`collection` + `question`), or a block of several on one screen
 * (`questions`, each answered and judged on its own; its position in the list is the answer's
 * `index`). Exactly one of the two forms.
 */
export const QuestionItem = z
  .object({
    kind: z.literal('question'),
    id: ItemId,
    collection: z.string().min(1).max(200).optional(),
    question: z.string().min(1).max(200).optional(),
    questions: z.array(QuestionRef).min(1).max(MAX_BLOCK_QUESTIONS).optional(),
    /** A heading for the screen (a block's, e.g. "Physics"). */
    title: z.string().max(200).optional(),
    practice: z.boolean().default(false),
    ...limitFields,
  })
  .superRefine((q, ctx) => {
    const single = q.collection !== undefined || q.question !== undefined;
    if (single && q.questions)
      ctx.addIssue({
        code: 'custom',
        path: ['questions'],
        message: 'give either collection and question (one question) or questions (a block), not both',
      });
    else if (!q.questions && (q.collection === undefined || q.question === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [q.collection === undefined ? 'collection' : 'question'],
        message: 'a question item needs collection and question, or a questions list for a block',
      });
    }
    const seen = new Set<string>();
    (q.questions ?? []).forEach((r, i) => {
      const key = `${r.collection}\u0000${r.question}`;
      if (seen.has(key))
        ctx.addIssue({
          code: 'custom',
          path: ['questions', i, 'question'],
          message: `"${r.question}" is already in this block`,
        });
      seen.add(key);
    });
  });

/** One survey question: its answer is validated on the server against this definition. */
export const SurveyQuestion = z
  .strictObject({
    id: ItemId,
    prompt: z.string().trim().min(1).max(2000),
    /** `text` one line, `longtext` a paragraph, `choice` one option, `multi` any options, `scale` an integer from min to max, `number` any number in [min, max]. */
    type: z.enum(['text', 'longtext', 'choice', 'multi', 'scale', 'number']),
    options: z.array(z.string().trim().min(1).max(200)).min(2).max(50).optional(),
    min: z.number().finite().optional(),
    max: z.number().finite().optional(),
    required: z.boolean().default(false),
    /** Scale items: what the ends mean, e.g. `["Very easy", "Very hard"]`. */
    labels: z.tuple([z.string().max(100), z.string().max(100)]).optional(),
  })
  .superRefine((q, ctx) => {
    const choice = q.type === 'choice' || q.type === 'multi';
    if (choice && !q.options)
      ctx.addIssue({ code: 'custom', path: ['options'], message: `a ${q.type} question needs options (2-50)` });
    if (!choice && q.options)
      ctx.addIssue({
        code: 'custom',
        path: ['options'],
        message: `only choice and multi questions take options, not ${q.type}`,
      });
    if (q.options && new Set(q.options).size !== q.options.length)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'options must differ from each other' });
    if (q.type === 'scale') {
      const min = q.min ?? 1,
        max = q.max ?? 7;
      if (!Number.isInteger(min) || !Number.isInteger(max) || max <= min || max - min > 20)
        ctx.addIssue({
          code: 'custom',
          path: ['max'],
          message: 'a scale runs over whole numbers from min to max (2-21 points, default 1-7)',
        });
    }
    if (q.min !== undefined && q.max !== undefined && q.max < q.min)
      ctx.addIssue({ code: 'custom', path: ['max'], message: 'must be at least min' });
  });
export type SurveyQuestion = z.output<typeof SurveyQuestion>;

/** A questionnaire on one screen (demographics, feedback); answers are stored, never judged. */
export const SurveyItem = z
  .object({
    kind: z.literal('survey'),
    id: ItemId,
    title: z.string().max(200).default(''),
    /** Markdown shown above the questions. */
    intro: Markdown.optional(),
    questions: z.array(SurveyQuestion).min(1).max(100),
  })
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.questions.forEach((q, i) => {
      if (seen.has(q.id))
        ctx.addIssue({
          code: 'custom',
          path: ['questions', i, 'id'],
          message: `"${q.id}" is used by an earlier question of this survey`,
        });
      seen.add(q.id);
    });
  });

export const StudyItem = z.discriminatedUnion('kind', [PageItem, TaskItem, GameItem, QuestionItem, SurveyItem]);

/** A candidate of a pool: a task, game or question item, written as those items are. */
export const PoolCandidate = z.discriminatedUnion('kind', [TaskItem, GameItem, QuestionItem]);

/**
 * When a candidate has what it needs: `solves` full solves by different participants (the
 * ARC-AGI-3 inclusion rule: 2), or `attempts` counted attempts whatever their outcome.
 */
export const PoolTarget = z.union([
  z.strictObject({ solves: z.number().int().min(1).max(1000) }),
  z.strictObject({ attempts: z.number().int().min(1).max(1000) }),
]);
export type PoolTarget = z.output<typeof PoolTarget>;

/**
 * A pool of candidates drawn per participant on the server when the session starts (a
 * calibration campaign): candidates furthest from their target first, never one the participant
 * met before. Each drawn candidate becomes an ordinary item of the session under its own id.
 * `draw` is how many each participant gets, or `"time"`: as many as the session's time allows.
 */
/** Attempts without a solve after which a candidate stops being drawn, by default (`PoolItem.reviseAfter`). */
export const REVISE_AFTER = 10;

export const PoolItem = z.object({
  kind: z.literal('pool'),
  id: ItemId,
  title: z.string().max(200).default(''),
  candidates: z.array(PoolCandidate).min(1).max(5000),
  draw: z.union([z.number().int().min(1).max(500), z.literal('time')]),
  target: PoolTarget.default({ solves: 2 }),
  /** A candidate is not started when fewer minutes than this are left in the session (default: its hard limit). */
  minMinutesLeft: Minutes.optional(),
  /**
   * A candidate of a `solves` target attempted this many times without a solve is no longer drawn
   * (status `revise`). The default, 10, is the ARC-AGI-3 paper's ~10 people per environment
   * (docs/researchers.md, "How candidates are drawn").
   */
  reviseAfter: z.number().int().min(1).max(1000).default(REVISE_AFTER),
  /**
   * `paced` (the default): a candidate is claimed by no more sessions at once than it still needs
   * at its observed solve rate. `fast`: every open candidate may be drawn however many sessions
   * hold it, furthest from its target first (fills soonest, and may give bonuses beyond the target).
   */
  fill: z.enum(['paced', 'fast']).default('paced'),
});

/** An item as a study definition writes it: an item a participant sees, or a pool drawn from. */
export const DefinitionItem = z.discriminatedUnion('kind', [
  PageItem,
  TaskItem,
  GameItem,
  QuestionItem,
  SurveyItem,
  PoolItem,
]);

/**
 * What a study pays (shown to the participant and used for the bonus file): a fixed fee and a
 * bonus per candidate solved and per game level completed, in `currency`.
 */
export const Payment = z.strictObject({
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be a three-letter currency code, e.g. GBP or USD')
    .default('GBP'),
  fee: z.number().nonnegative().max(10_000).default(0),
  bonus: z
    .strictObject({
      perSolve: z.number().nonnegative().max(1000).default(0),
      perLevel: z.number().nonnegative().max(1000).default(0),
      /** The most one session earns in bonuses. */
      max: z.number().nonnegative().max(100_000).optional(),
    })
    .prefault({}),
});
export type Payment = z.output<typeof Payment>;

/**
 * The campaign a study belongs to: studies with one campaign id share their pools' histories, so a
 * participant (by platform id) never meets a candidate twice across its studies and batches.
 */
export const CampaignRef = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1-64 lower-case letters, digits or "-"'),
});

/** Most candidates over all the pools of one study. */
export const MAX_CANDIDATES = 5000;

export const StudyLimits = z.object({
  itemSoftMinutes: Minutes.default(20),
  itemHardMinutes: Minutes.default(30),
  sessionMinutes: Minutes.default(90),
  /** A session with no event for this long counts as abandoned. */
  abandonAfterMinutes: Minutes.default(30),
});

/** When an attempt counts: under `maxMinutes`, and for a game more than `minActions` actions (ARC-AGI-3 human calibration: 30 and 30). */
export const AttemptRule = z.object({
  minActions: z.number().int().nonnegative().default(30),
  maxMinutes: Minutes.default(30),
});

/** A session is flagged as low effort when this share of its visited items got at most `maxActions` actions. */
export const LowEffortRule = z.object({
  maxActions: z.number().int().nonnegative().default(5),
  share: z.number().min(0).max(1).default(0.5),
  /** Fewer visited items than this never flag a session. */
  minItems: z.number().int().positive().default(3),
});

export const StudyDefinition = z
  .object({
    title: z.string().min(1).max(200),
    consent: Markdown,
    instructions: Markdown.default(''),
    /** Items in order: fixed items and pools (each pool's drawn candidates take its place). */
    items: z.array(DefinitionItem).min(1).max(500),
    /** `shuffled`: tasks and games (not pages or practice items) are shuffled per participant, seeded and recorded. */
    order: z.enum(['fixed', 'shuffled']).default('fixed'),
    /** Trials per test input. */
    trials: z.number().int().min(1).max(10).default(3),
    limits: StudyLimits.prefault({}),
    allowLevelReset: z.boolean().default(true),
    /** Whether game players see their action counter (hide it to avoid nudging players to minimise). */
    showActionCounter: z.boolean().default(true),
    /** Whether participants see the time left on each item (to its hard limit). */
    showTimeLeft: z.boolean().default(false),
    /** Which screens may take part (`core/study/devices.ts`): phones are stopped at the start unless `any`. */
    devices: z.enum(DEVICE_CLASSES).default('tablet'),
    attempt: AttemptRule.prefault({}),
    lowEffort: LowEffortRule.prefault({}),
    /**
     * The study's storage budget: the most events, and megabytes of event data, all its sessions
     * together may store. Past it new events are refused (nothing stored is lost) until the budget
     * is raised here. Absent: the server's budget (`ARC_STUDIO_STUDY_STORAGE_EVENTS`, `..._MB`).
     */
    storage: z
      .strictObject({
        events: z.number().int().positive().optional(),
        megabytes: z.number().positive().optional(),
      })
      .optional(),
    /**
     * Where this study's ARC-AGI-3 games come from, mounted when the server starts with this study
     * file (as `serve --arc3-games` / `--arc3-server` would): folders in the toolkit's layout
     * (relative to the study file's folder) and ARC-AGI-3 servers' base URLs (key: `ARC_API_KEY`).
     */
    gameSources: z
      .object({
        arcengine: z.array(z.string().min(1).max(1000)).max(20).default([]),
        servers: z
          .array(z.url({ protocol: /^https?$/ }))
          .max(20)
          .default([]),
      })
      .optional(),
    /**
     * What a participant who does not consent is shown: a message, a code for the recruitment
     * platform (Prolific's "no consent" code) and where they go. No session is made for them.
     */
    decline: z
      .object({
        message: Markdown.optional(),
        code: z.string().min(1).max(100).optional(),
        redirectUrl: z.url({ protocol: /^https?$/ }).optional(),
      })
      .optional(),
    /**
     * What a participant who withdraws is shown (a message and a code for the recruitment
     * platform); the session ends as `withdrawn`, its data kept, never counted as finished.
     */
    withdraw: z
      .object({
        message: Markdown.optional(),
        code: z.string().min(1).max(100).optional(),
      })
      .optional(),
    /**
     * How long participants' identifiers are kept: `days` (fractions allowed) after a session
     * ended, its recruitment ids (`PROLIFIC_PID`, `workerId`, `participantId`) and its answers to
     * the survey questions named in `identifyingQuestions` are replaced by stable pseudonyms
     * everywhere they are stored (`server/study/retention.ts`; docs/researchers.md, "Retention").
     */
    retention: z
      .object({
        days: z.number().positive().max(36_500),
        identifyingQuestions: z.array(z.string().min(1).max(64)).max(200).optional(),
      })
      .optional(),
    /** The campaign this study belongs to (its pools' histories are shared across the campaign's studies). */
    campaign: CampaignRef.optional(),
    /** The fee and bonus rule: shown to participants, used for the bonus file. */
    payment: Payment.optional(),
    completion: z.object({
      code: z.string().min(1).max(100),
      /**
       * A session asked to finish with items not done (and time left): `refuse` answers 409
       * `items_unfinished` and gives no code; `flag` gives the code and flags the session `unfinished`
       * for the researcher to decide.
       */
      unfinished: z.enum(['refuse', 'flag']).default('refuse'),
      /**
       * Where the participant goes at the end, e.g. `https://app.prolific.com/submissions/complete?cc=CODE`.
       * Absent in a study with `prolific`: Prolific's completion URL with `code`.
       */
      redirectUrl: z.url({ protocol: /^https?$/ }).optional(),
      /** Seconds the code stays on screen before the participant is sent on (0: at once); absent: `REDIRECT_AFTER_SECONDS`. */
      redirectAfterSeconds: z
        .number()
        .int('must be a whole number of seconds')
        .min(0)
        .max(600, 'must be at most 600 seconds (10 minutes)')
        .optional(),
    }),
    /**
     * The study on Prolific: its id (Prolific's `STUDY_ID`), for bonuses paid from the studio and
     * the returns and time-outs read from Prolific, and what a participant who returned their
     * submission (or whose submission timed out) may do on coming back: `refuse` (default) starts
     * no new session; `allow` starts one, flagged `after_prolific_return`.
     */
    prolific: z
      .strictObject({
        studyId: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be Prolific's study id: 1-64 letters, digits, '_' or '-'"),
        afterReturn: z.enum(['refuse', 'allow']).default('refuse'),
      })
      .optional(),
  })
  .superRefine((s, ctx) => {
    // A candidate is an item of the sessions that draw it: its id is unique among all of them.
    const seen = new Set<string>();
    const see = (id: string, path: (string | number)[]) => {
      if (seen.has(id))
        ctx.addIssue({
          code: 'custom',
          path: [...path, 'id'],
          message: `"${id}" is used by an earlier item or candidate; item and candidate ids must be unique`,
        });
      seen.add(id);
    };
    s.items.forEach((item, i) => {
      see(item.id, ['items', i]);
      if (item.kind === 'pool') item.candidates.forEach((cand, k) => see(cand.id, ['items', i, 'candidates', k]));
    });
    // A soft limit tells the participant time is nearly up: it must come before the hard limit
    // closes the item. An item's own soft limit is checked against its hard one (its own or the
    // study's); a hard limit alone below the study's soft one just means no notice.
    if (s.limits.itemSoftMinutes > s.limits.itemHardMinutes)
      ctx.addIssue({
        code: 'custom',
        path: ['limits', 'itemSoftMinutes'],
        message: `the soft limit (${s.limits.itemSoftMinutes} min) is above the hard limit (${s.limits.itemHardMinutes} min); lower the soft limit or raise the hard one`,
      });
    const checkLimits = (item: { softMinutes?: number; hardMinutes?: number }, path: (string | number)[]) => {
      const hard = item.hardMinutes ?? s.limits.itemHardMinutes;
      if (item.softMinutes !== undefined && item.softMinutes > hard)
        ctx.addIssue({
          code: 'custom',
          path: [...path, 'softMinutes'],
          message: `the soft limit (${item.softMinutes} min) is above the ${item.hardMinutes === undefined ? "study's " : ''}hard limit (${hard} min); lower the soft limit or raise the hard one`,
        });
    };
    s.items.forEach((item, i) => {
      if (item.kind === 'pool') item.candidates.forEach((cand, k) => checkLimits(cand, ['items', i, 'candidates', k]));
      else if (item.kind !== 'page' && item.kind !== 'survey') checkLimits(item, ['items', i]);
    });
    const candidates = s.items.reduce((n, item) => n + (item.kind === 'pool' ? item.candidates.length : 0), 0);
    if (candidates > MAX_CANDIDATES)
      ctx.addIssue({
        code: 'custom',
        path: ['items'],
        message: `the pools hold ${candidates} candidates; a study holds at most ${MAX_CANDIDATES}: split the campaign into studies sharing one campaign id`,
      });
  });

/** A study as it is written (study file, editor, stored versions): pools and fixed items. */
export type WrittenStudy = z.output<typeof StudyDefinition>;
export type StudyDefinitionInput = z.input<typeof StudyDefinition>;

/**
 * A pool of a study as sessions run it: its candidates are items of the study's `items`
 * (at `candidates`, in the pool's order), drawn per session (`server/campaign`).
 */
export interface PoolPlan {
  readonly id: string;
  readonly title: string;
  /** The pool's position in the written study's `items`. */
  readonly index: number;
  /** Indices into the run study's `items`, one per candidate, in the pool's order. */
  readonly candidates: readonly number[];
  readonly draw: number | 'time';
  readonly target: PoolTarget;
  readonly minMinutesLeft?: number;
  /** Attempts without a solve after which a candidate is no longer drawn (`solves` targets). */
  readonly reviseAfter: number;
  readonly fill: 'paced' | 'fast';
}

/**
 * A study as sessions run it: every pool replaced, in place, by its candidates as ordinary
 * items, so a session's `order` (indices into `items`) holds the candidates it drew, and
 * everything that walks items (summaries, results, exports, replays) sees tasks, games and
 * questions only. Written studies without pools run as written (`pools` empty).
 */
export type StudyDefinition = Omit<WrittenStudy, 'items'> & {
  readonly items: StudyItem[];
  readonly pools: readonly PoolPlan[];
};

/** The run form of a written study (see `StudyDefinition`). */
export function runnableStudy(written: WrittenStudy): StudyDefinition {
  const items: StudyItem[] = [];
  const pools: PoolPlan[] = [];
  written.items.forEach((item, index) => {
    if (item.kind !== 'pool') {
      items.push(item);
      return;
    }
    const start = items.length;
    items.push(...item.candidates);
    pools.push({
      id: item.id,
      title: item.title,
      index,
      candidates: item.candidates.map((_, k) => start + k),
      draw: item.draw,
      target: item.target,
      reviseAfter: item.reviseAfter,
      fill: item.fill,
      ...(item.minMinutesLeft !== undefined ? { minMinutesLeft: item.minMinutesLeft } : {}),
    });
  });
  return { ...written, items, pools };
}

/** Where an item of the run study is written: `items[3]`, or `items[2].candidates[5]` for a candidate. */
export function writtenPath(study: StudyDefinition, index: number): string {
  for (const pool of study.pools) {
    const k = pool.candidates.indexOf(index);
    if (k >= 0) return `items[${pool.index}].candidates[${k}]`;
  }
  const before = study.pools.filter((p) => p.candidates.length > 0 && p.candidates[0] < index);
  return `items[${index - before.reduce((n, p) => n + p.candidates.length - 1, 0)}]`;
}

/** The pool a run study's item was drawn from, or null for a fixed item. */
export function poolOf(study: StudyDefinition, index: number): PoolPlan | null {
  return study.pools.find((p) => p.candidates.includes(index)) ?? null;
}
export type StudyItem = z.output<typeof StudyItem>;
export type TaskItem = z.output<typeof TaskItem>;
export type GameItem = z.output<typeof GameItem>;
export type QuestionItem = z.output<typeof QuestionItem>;
export type SurveyItem = z.output<typeof SurveyItem>;
export type PoolItem = z.output<typeof PoolItem>;
export type PoolCandidate = z.output<typeof PoolCandidate>;
export type DefinitionItem = z.output<typeof DefinitionItem>;

/** The questions a question item shows, in order: one, or a block's list. An answer's `index` is a position here. */
export function questionRefs(item: QuestionItem): QuestionRef[] {
  return item.questions ?? [{ collection: item.collection ?? '', question: item.question ?? '' }];
}

/** A study id: also the link `/s/<studyId>` and the file name in `data/studies/`. */
export const StudyId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1-64 lower-case letters, digits or "-"');

/** A valid study: `written` as it is stored and edited, `study` as sessions run it (`runnableStudy`). */
export type StudyParse =
  { ok: true; study: StudyDefinition; written: WrittenStudy } | { ok: false; problems: string[] };

/** Validates a study; problems are one line each, `path: message`. Never throws. */
export function parseStudy(json: unknown): StudyParse {
  const r = StudyDefinition.safeParse(json);
  if (r.success) return { ok: true, study: runnableStudy(r.data), written: r.data };
  return { ok: false, problems: formatIssues(r.error.issues) };
}

/** Formats zod issues as `path: message` lines, e.g. `items[2].task: expected string`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.slice(0, 20).map((i) => `${formatPath(i.path) || '(top level)'}: ${i.message}`);
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out;
}

/** The minutes an item may take, with the study's defaults filled in. */
export function itemLimits(study: StudyDefinition, item: StudyItem): { softMinutes: number; hardMinutes: number } {
  const own: { softMinutes?: number; hardMinutes?: number } =
    item.kind === 'page' || item.kind === 'survey' ? {} : item;
  return {
    softMinutes: own.softMinutes ?? study.limits.itemSoftMinutes,
    hardMinutes: own.hardMinutes ?? study.limits.itemHardMinutes,
  };
}

export function isPractice(item: StudyItem): boolean {
  return item.kind !== 'page' && item.kind !== 'survey' && item.practice;
}

/**
 * The test inputs a task item shows, as indices into its task's `test`: the item's `tests`, or
 * all `count` of them. A participant's test k is the task's test `testIndicesOf(item, n)[k]`.
 */
export const testIndicesOf = (item: Pick<TaskItem, 'tests'>, count: number): number[] =>
  item.tests ?? Array.from({ length: count }, (_, i) => i);

/**
 * The task item of a written study with this id, a pool's candidates included (a session logs a
 * drawn candidate under its own id), or undefined.
 */
export function writtenTaskItem(
  items: readonly unknown[],
  id: string,
): { id: string; collection: string; task: string; tests?: number[] } | undefined {
  type Written = {
    kind?: string;
    id?: string;
    collection?: string;
    task?: string;
    tests?: number[];
    candidates?: readonly unknown[];
  };
  for (const raw of items as readonly Written[]) {
    if (raw.kind === 'pool') {
      const found = writtenTaskItem(raw.candidates ?? [], id);
      if (found) return found;
    } else if (
      raw.kind === 'task' &&
      raw.id === id &&
      typeof raw.collection === 'string' &&
      typeof raw.task === 'string'
    ) {
      return { id: raw.id, collection: raw.collection, task: raw.task, ...(raw.tests ? { tests: raw.tests } : {}) };
    }
  }
  return undefined;
}
