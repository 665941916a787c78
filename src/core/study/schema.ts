/**
 * A study definition: what a participant sees and the rules the server enforces.
 * Stored as JSON (files in `data/studies/`, or versions in the database) and validated here.
 */
import { z } from 'zod';
import { DEVICE_CLASSES } from './devices';
import { sanitizeMarkdown } from './markdown';

const ItemId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit');
const Markdown = z.string().max(50_000).transform(sanitizeMarkdown);
const Minutes = z.number().positive().max(24 * 60);

const limitFields = {
  /** Minutes after which the participant is told time is nearly up (overrides the study's). */
  softMinutes: Minutes.optional(),
  /** Minutes after which the server refuses the item's submissions (overrides the study's). */
  hardMinutes: Minutes.optional(),
};

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
  ...limitFields,
});

export const QuestionItem = z.object({
  kind: z.literal('question'),
  id: ItemId,
  /** A question collection id as the server mounts it (`serve --questions NAME=FILE`). */
  collection: z.string().min(1).max(200),
  /** The question's id inside its file. */
  question: z.string().min(1).max(200),
  practice: z.boolean().default(false),
  ...limitFields,
});

export const StudyItem = z.discriminatedUnion('kind', [PageItem, TaskItem, GameItem, QuestionItem]);

export const StudyLimits = z.object({
  itemSoftMinutes: Minutes.default(20),
  itemHardMinutes: Minutes.default(30),
  sessionMinutes: Minutes.default(90),
  /** A session with no event for this long counts as abandoned. */
  abandonAfterMinutes: Minutes.default(30),
});

/** When an attempt counts (ARC-AGI-3 human calibration: more than 30 actions, under 30 minutes). */
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

export const StudyDefinition = z.object({
  title: z.string().min(1).max(200),
  consent: Markdown,
  instructions: Markdown.default(''),
  items: z.array(StudyItem).min(1).max(500),
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
   * Where this study's ARC-AGI-3 games come from, mounted when the server starts with this study
   * file (as `serve --arc3-games` / `--arc3-server` would): folders in the toolkit's layout
   * (relative to the study file's folder) and ARC-AGI-3 servers' base URLs (key: `ARC_API_KEY`).
   */
  gameSources: z.object({
    arcengine: z.array(z.string().min(1).max(1000)).max(20).default([]),
    servers: z.array(z.url({ protocol: /^https?$/ })).max(20).default([]),
  }).optional(),
  /**
   * What a participant who does not consent is shown: a message, a code for the recruitment
   * platform (Prolific's "no consent" code) and where they go. No session is made for them.
   */
  decline: z.object({
    message: Markdown.optional(),
    code: z.string().min(1).max(100).optional(),
    redirectUrl: z.url({ protocol: /^https?$/ }).optional(),
  }).optional(),
  completion: z.object({
    code: z.string().min(1).max(100),
    /** Where the participant goes at the end, e.g. `https://app.prolific.com/submissions/complete?cc=CODE`. */
    redirectUrl: z.url({ protocol: /^https?$/ }).optional(),
  }),
}).superRefine((s, ctx) => {
  const seen = new Set<string>();
  s.items.forEach((item, i) => {
    if (seen.has(item.id)) ctx.addIssue({ code: 'custom', path: ['items', i, 'id'], message: `"${item.id}" is used by an earlier item; item ids must be unique` });
    seen.add(item.id);
  });
});

export type StudyDefinition = z.output<typeof StudyDefinition>;
export type StudyDefinitionInput = z.input<typeof StudyDefinition>;
export type StudyItem = z.output<typeof StudyItem>;
export type TaskItem = z.output<typeof TaskItem>;
export type GameItem = z.output<typeof GameItem>;
export type QuestionItem = z.output<typeof QuestionItem>;

/** A study id: also the link `/s/<studyId>` and the file name in `data/studies/`. */
export const StudyId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1-64 lower-case letters, digits or "-"');

export type StudyParse = { ok: true; study: StudyDefinition } | { ok: false; problems: string[] };

/** Validates a study; problems are one line each, `path: message`. Never throws. */
export function parseStudy(json: unknown): StudyParse {
  const r = StudyDefinition.safeParse(json);
  if (r.success) return { ok: true, study: r.data };
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
  const own: { softMinutes?: number; hardMinutes?: number } = item.kind === 'page' ? {} : item;
  return {
    softMinutes: own.softMinutes ?? study.limits.itemSoftMinutes,
    hardMinutes: own.hardMinutes ?? study.limits.itemHardMinutes,
  };
}

export function isPractice(item: StudyItem): boolean {
  return item.kind !== 'page' && item.practice;
}
