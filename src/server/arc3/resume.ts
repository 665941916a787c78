/**
 * Resuming a session's run from the page: the steps the browser has not seen, and the logged
 * steps the server answered but never stored, played again and stored.
 */
import type { LoggedStep, RunReplayReport, ServerRunReply } from '../../core/game/serverGame';
import { actionOf, BEHIND, type LiveRun } from './liveRun';
import type { RunHost } from './runHost';
import { frameHashOf, lastFrameOf } from './stepJournal';
import { Arc3Error, type Arc3FrameData } from './worker';

/**
 * The steps of a session's run after `after` (the last one the browser logged), rebuilding the
 * run if needed. `logged` is the end of the browser's log of the run (contiguous, ending at
 * `after`, validated at the door): the steps of it past the server's last one were answered
 * but never stored (the server died between the two, or their write failed). They are played
 * again on the run, each checked against its logged frame hash, stored, and the reply's
 * `replay` says how many; a step that cannot be brought back (another frame: the game is not
 * deterministic; the game failed on it; the log does not reach back to the server's next step)
 * ends the replay there with a message, and the run goes on from the server's last step.
 */
export async function resumeRun(
  host: RunHost,
  runId: string,
  sessionId: string,
  after: number,
  logged: readonly LoggedStep[] = [],
): Promise<ServerRunReply> {
  for (let attempt = 0; ; attempt++) {
    let reply: ServerRunReply | typeof BEHIND;
    try {
      reply = await host.withRun(runId, sessionId, (live) => resumeOn(host, live, after, logged));
    } catch (e) {
      // A replayed step whose write failed: the worker's copy played it, so it is read again.
      await host.forget(runId);
      throw e;
    }
    if (reply !== BEHIND) return reply;
    // Another server stored some of these steps first: read them, and replay what is left.
    await host.forget(runId);
    if (attempt >= 2)
      throw new Arc3Error(
        'bad_request',
        `the steps of run ${runId} were stored by another server at the same moment; reload the page to continue from the server's state`,
      );
  }
}

async function resumeOn(
  host: RunHost,
  live: LiveRun,
  after: number,
  logged: readonly LoggedStep[],
): Promise<ServerRunReply | typeof BEHIND> {
  // The copy is compared with the database, not trusted: a database that lost commits it had
  // acknowledged no longer has this copy's last steps, and the log must bring them back.
  if (live.sessionId !== null) {
    const [there] = await host.store.readGameSteps(live.runId, { from: live.last.step, limit: 1 });
    if (there?.step !== live.last.step || there.frameHash !== live.last.frameHash) return BEHIND;
  }
  let replay: RunReplayReport | undefined;
  if (after > live.last.step && live.sessionId !== null) {
    const replayed = await replayLogged(host, live, after, logged);
    if (replayed === BEHIND) return BEHIND;
    replay = replayed;
  }
  const missing = after < live.last.step ? await host.steps.storedSteps(live, after + 1) : [];
  return {
    run: live.runId,
    game: host.runGame(live),
    seed: live.seed,
    steps: missing.length ? missing : [live.last],
    ...(replay ? { replay } : {}),
  };
}

/**
 * Plays again the logged steps past the run's last one and stores each (see `resume`); BEHIND
 * when another server stored one of them first.
 */
async function replayLogged(
  host: RunHost,
  live: LiveRun,
  after: number,
  logged: readonly LoggedStep[],
): Promise<RunReplayReport | typeof BEHIND> {
  const from = live.last.step + 1;
  const todo = logged.filter((s) => s.step >= from);
  const keptInLog = (step: number) =>
    `steps ${step} to ${after} stay in your event log only, and the game goes on from step ${live.last.step}`;
  if (!todo.length || todo[0].step !== from) {
    return {
      stored: 0,
      stopped: {
        step: from,
        message: `The server has this run's steps up to ${live.last.step}, and the steps sent back begin at ${todo[0]?.step ?? after + 1}: ${keptInLog(from)}.`,
      },
    };
  }
  let stored = 0;
  for (const s of todo) {
    const action = actionOf(s);
    let fd: Arc3FrameData;
    try {
      fd = await host.play(live, action);
    } catch (e) {
      if (!(e instanceof Arc3Error) || (e.code !== 'game_error' && e.code !== 'load_error')) throw e;
      return {
        stored,
        stopped: {
          step: s.step,
          message: `The game failed on step ${s.step} played again (${e.message}): ${keptInLog(s.step)}.`,
        },
      };
    }
    const frameHash = frameHashOf(lastFrameOf(fd, live.frames.last));
    if (frameHash !== s.frameHash) {
      // The worker played a step that is not the run's: its copy is rebuilt from the actions on its next use.
      await live.mounted.source.close(live.runId).catch(() => undefined);
      host.log(
        `Run ${live.runId} of ${live.gameId}: step ${s.step} played again gave frame ${frameHash}, not the logged ${s.frameHash}; the replay stopped there.`,
      );
      return {
        stored,
        stopped: {
          step: s.step,
          message: `Step ${s.step} played again shows another frame than the one you saw (the game is not deterministic): ${keptInLog(s.step)}.`,
        },
      };
    }
    live.actions.push(action);
    if ((await host.steps.record(live, s.step, action, fd)) === BEHIND) return BEHIND;
    stored++;
  }
  return { stored };
}
