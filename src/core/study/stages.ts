/**
 * Stages of a study: a lab pilots before the main batch, and each session records the stage its
 * study was in when it started. Every count (results, baselines, campaign targets and draws,
 * payments) takes the `main` stage unless asked for another stage or for all of them, so pilot
 * data never mixes into the figures by accident and is never lost either.
 */

/** The stage that counts by default, and the stage of every session stored before stages existed. */
export const MAIN_STAGE = 'main';

/** The stage a lab tries its study in before the main batch. */
export const PILOT_STAGE = 'pilot';

/** What a query asks for every stage at once (so no stage may be called so). */
export const ALL_STAGES = 'all';

/** A stage's name: lower-case letters, digits and "-", starting with a letter, at most 32 characters. */
const STAGE_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * Whether `name` may name a stage: `pilot`, `main`, or a name of the lab's own (`pilot-2`,
 * `follow-up`); never `all`, which selects every stage.
 *
 * @example isStageName('pilot-2') // true
 */
export function isStageName(name: unknown): name is string {
  return typeof name === 'string' && STAGE_NAME.test(name) && name !== ALL_STAGES;
}

/** Why a stage name is refused, said so that the researcher can fix it. */
export function stageNameProblem(name: unknown): string | null {
  if (isStageName(name)) return null;
  const shown = typeof name === 'string' ? `"${name.slice(0, 40)}"` : `a ${name === null ? 'null' : typeof name}`;
  return name === ALL_STAGES
    ? `"all" selects every stage and cannot name one; choose another name (e.g. "pilot-2").`
    : `${shown} is not a stage name: use lower-case letters, digits and "-", starting with a letter, at most 32 characters (e.g. "pilot", "main", "pilot-2").`;
}

/**
 * The stages a query selects: one stage's name, or null for every stage. An absent or empty
 * value selects `main`; `all` selects every stage. `{error}` says why a value is refused.
 *
 * @example stageSelection(undefined) // { stage: 'main' }
 * @example stageSelection('all') // { stage: null }
 */
export function stageSelection(value: string | undefined | null): { stage: string | null } | { error: string } {
  if (value === undefined || value === null || value === '') return { stage: MAIN_STAGE };
  if (value === ALL_STAGES) return { stage: null };
  const problem = stageNameProblem(value);
  return problem === null
    ? { stage: value }
    : { error: `stage: ${problem} Leave it out for "main", or ask for "all" stages.` };
}

/** Whether a session of stage `stage` (absent: a session from before stages, so `main`) is in the selection (null: every stage). */
export function inStage(stage: string | undefined, selected: string | null): boolean {
  return selected === null || (stage ?? MAIN_STAGE) === selected;
}
