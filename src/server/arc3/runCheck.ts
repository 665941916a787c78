/**
 * Finding and repairing damaged runs of server-run games in a database (`arc-studio check`).
 *
 * A run is damaged when its stored steps have a hole, when a step's stored frames do not decode
 * (changes to a frame that is not the stored one before it), or when the participant's log holds
 * steps of it that are not stored (a database that lost commits it had acknowledged). The
 * participant's log is the source of truth: each `game.action` event names its run, step, action
 * and the hash of the frame the participant saw. A repair plays the run again on the engine, on
 * the version of the game's code the run recorded, from its opening to its last logged step, the
 * actions before the damage from the stored steps and from it on from the log; it checks every
 * step from the damage on against the frame the participant saw, and only then replaces the
 * stored steps from the damage on (the first of them a keyframe).
 */
import type { LoggedStep } from '../../core/game/serverGame';
import type { GameRunRecord, GameStepRecord, Store } from '../store/types';
import { RunFrames } from './stepJournal';
import { decodeStepsChecked } from './steps';
import type { Replayer } from './storedRuns';
import { Arc3Error, type Arc3Action, type Arc3FrameData } from './worker';

/** What is wrong with a run, from its first damaged step. */
export interface RunDamage {
  readonly runId: string;
  readonly sessionId: string;
  readonly gameId: string;
  /** `hole`: a step missing among the stored ones; `frames`: a step's frames do not decode; `unstored`: logged steps not stored. */
  readonly kind: 'hole' | 'frames' | 'unstored';
  /** The first step to store again. */
  readonly step: number;
  /** The run's last step in the participant's log or the store, whichever is further. */
  readonly last: number;
  readonly message: string;
}

/** A run's logged steps from its session's events, by step (the last logged wins: a step is logged once). */
async function loggedSteps(store: Pick<Store, 'readEvents'>, run: GameRunRecord): Promise<Map<number, LoggedStep>> {
  const out = new Map<number, LoggedStep>();
  for (const e of await store.readEvents(run.sessionId, { kinds: ['game.action'] })) {
    const d = e.data as Partial<LoggedStep> & { run?: unknown };
    if (d.run !== run.runId || typeof d.step !== 'number' || typeof d.frameHash !== 'string') continue;
    out.set(d.step, { step: d.step, action: String(d.action), x: d.x, y: d.y, frameHash: d.frameHash } as LoggedStep);
  }
  return out;
}

/** The run's damage, or null when its stored steps are whole and hold every logged step. */
export async function inspectRun(
  store: Pick<Store, 'readGameSteps' | 'readEvents'>,
  run: GameRunRecord,
): Promise<{ damage: RunDamage | null; steps: GameStepRecord[]; logged: Map<number, LoggedStep> }> {
  const steps = await store.readGameSteps(run.runId);
  const logged = await loggedSteps(store, run);
  const last = Math.max(steps.length ? steps[steps.length - 1].step : -1, ...logged.keys());
  const of = (kind: RunDamage['kind'], step: number, message: string): RunDamage => ({
    runId: run.runId,
    sessionId: run.sessionId,
    gameId: run.gameId,
    kind,
    step,
    last,
    message,
  });
  const hole = steps.findIndex((s, i) => s.step !== i);
  const decoded = decodeStepsChecked(hole < 0 ? steps : steps.slice(0, hole));
  let damage: RunDamage | null = null;
  if (decoded.damage) damage = of('frames', decoded.damage.step, decoded.damage.message);
  else if (hole >= 0) damage = of('hole', hole, `step ${hole} is not stored, and step ${steps[hole].step} is`);
  else if (last > steps.length - 1)
    damage = of(
      'unstored',
      steps.length,
      `the participant's log has steps ${steps.length} to ${last}, the store up to ${steps.length - 1}`,
    );
  return { damage, steps, logged };
}

function actionOf(a: { action: string; x?: number | null; y?: number | null }): Arc3Action {
  return a.action === 'ACTION6'
    ? { action: 'ACTION6', x: a.x ?? 0, y: a.y ?? 0 }
    : { action: a.action as Arc3Action['action'] };
}

/**
 * Repairs a damaged run (see the module's comment): answers how many steps were stored again, or
 * why it could not be repaired (nothing is changed then).
 */
export async function repairRun(
  store: Pick<Store, 'readGameSteps' | 'readEvents' | 'removeGameSteps' | 'addGameStep'>,
  replayer: Replayer,
  run: GameRunRecord,
  damage: RunDamage,
  steps: readonly GameStepRecord[],
  logged: ReadonlyMap<number, LoggedStep>,
): Promise<{ stored: number } | { error: string }> {
  const from = damage.step;
  // Before the damage the stored actions, from it on the logged ones (the log is what the participant did).
  const plan: { action: Arc3Action; frameHash: string }[] = [];
  for (let n = 1; n <= damage.last; n++) {
    const source = n < from ? steps[n] : logged.get(n);
    if (!source) {
      if (n <= from)
        return { error: `step ${n} is neither in the participant's log nor stored, so the run cannot be played to it` };
      break;
    }
    plan.push({ action: actionOf(source), frameHash: source.frameHash });
  }
  let codeDir: string | undefined;
  if (run.codeHash && run.source === 'arcengine') {
    const found = replayer.code
      ? await replayer.code(run.gameId, run.codeHash)
      : { error: 'this check cannot find kept versions of games' };
    if ('error' in found) return { error: `the code the run recorded is not available: ${found.error}` };
    codeDir = found.dir;
  }
  const replayId = `repair-${run.runId}`;
  const rows: GameStepRecord[] = [];
  const frames = RunFrames.opening();
  let levels = 0;
  const row = (n: number, action: Arc3Action, fd: Arc3FrameData, at: number): GameStepRecord | string => {
    const restart = n === 0 || n === from || action.action === 'RESET' || fd.levels_completed !== levels;
    const e = frames.encode(fd, { stored: true, restart });
    frames.advance(e, true);
    levels = fd.levels_completed;
    const expected = n < from ? steps[n]?.frameHash : logged.get(n)?.frameHash;
    if (n >= from && expected !== e.frameHash)
      return `step ${n} played again shows frame ${e.frameHash}, not the ${expected} the participant saw`;
    return {
      runId: run.runId,
      step: n,
      action: action.action,
      x: action.x ?? null,
      y: action.y ?? null,
      state: fd.state,
      levelsCompleted: fd.levels_completed,
      winLevels: fd.win_levels,
      available: fd.available_actions,
      fullReset: fd.full_reset,
      frameHash: e.frameHash,
      frames: e.changes,
      keyframe: e.keyframe,
      at,
    };
  };
  try {
    const opened = await replayer.open(replayId, run.gameId, run.seed, 0, codeDir);
    const first = row(0, { action: 'RESET' }, opened.frame, steps[0]?.at ?? run.openedAt);
    if (typeof first === 'string') return { error: first };
    if (from === 0) rows.push(first);
    for (const [i, p] of plan.entries()) {
      const n = i + 1;
      const r = row(n, p.action, await replayer.act(replayId, p.action), steps[n]?.at ?? run.openedAt);
      if (typeof r === 'string') {
        if (n === from) return { error: r };
        // The log's later steps do not play again: what came before them is repaired, and they stay in the log.
        break;
      }
      if (n >= from) rows.push(r);
    }
  } catch (e) {
    return { error: `the engine failed (${e instanceof Arc3Error ? `${e.code}: ` : ''}${(e as Error).message})` };
  } finally {
    await replayer.close(replayId).catch(() => undefined);
  }
  await store.removeGameSteps(run.runId, from);
  let stored = 0;
  for (const r of rows) {
    if (!(await store.addGameStep(r)))
      return { error: `step ${r.step} was stored by a server meanwhile: stop the servers playing it and check again` };
    stored++;
  }
  return { stored };
}
