/**
 * `arc-studio check`: finds the damaged runs of server-run games in a database (a hole in the
 * stored steps, frames that do not decode, steps in the participant's log that are not stored)
 * and, with `--repair`, stores them again from the participant's log on the engine
 * (`server/arc3/runCheck.ts`).
 */
import type { Command } from './command';
import { parseCommandArgs } from './args';
import { arc3GameDirs } from './games';
import { openServeStore, poolReplayer } from './runStore';
import { inspectRun, repairRun, type RunDamage } from '../server/arc3/runCheck';
import { probe } from '../server/arc3/probe';
import { Arc3Pool } from '../server/arc3/pool';

const CHECK = {
  command: 'check',
  usage: 'check [--data-dir DIR] [--repair --arc3-games DIR] [--json]',
  summary:
    "Find the damaged game runs in the serve store (PGlite in --data-dir, or DATABASE_URL): a hole in a run's stored steps, stored frames that do not decode, steps in the participant's log that are not stored. With --repair, play each again on the engine from the participant's log and store it again. Exit code 0 when no damaged run is left.",
  options: {
    'data-dir': {
      type: 'string',
      value: 'DIR',
      default: '.arc-studio',
      help: 'the data folder "arc-studio serve" uses; ignored when DATABASE_URL is set',
    },
    repair: {
      type: 'boolean',
      help: "store the damaged runs again from the participants' logs (needs --arc3-games); only runs nobody is playing: stop the servers, or repair finished sessions",
    },
    'arc3-games': {
      type: 'string',
      value: 'DIR',
      multiple: true,
      help: 'the folders "arc-studio serve" ran the arcengine games from (default: ARC_STUDIO_ARC3_GAMES)',
    },
    json: { type: 'boolean', help: 'print one JSON object per damaged run, then a summary' },
  },
} as const;

/** Runs read per page from the database. */
const RUN_PAGE = 200;

export const checkCommand: Command = {
  summary: CHECK.summary,
  usage: CHECK.usage,
  async run(args) {
    const { values } = parseCommandArgs(CHECK, args);
    const dirs = arc3GameDirs(values['arc3-games']);
    if (values.repair) {
      if (!dirs.length)
        throw new Error(
          '--repair plays the runs again: give the folders "arc-studio serve" ran the games from with --arc3-games DIR (or ARC_STUDIO_ARC3_GAMES).',
        );
      const found = await probe();
      if (!found.ok) throw new Error(`arcengine games cannot run: ${found.message}`);
    }
    const { store, dataDir, where } = await openServeStore(values['data-dir']);
    const pool = values.repair ? new Arc3Pool({ gameDirs: dirs, size: 1, timeoutMs: 60_000 }) : null;
    const replayer = pool ? poolReplayer(store, pool, dataDir) : null;
    let runs = 0;
    let left = 0;
    let repaired = 0;
    const say = (damage: RunDamage, outcome: string, extra: Record<string, unknown>) =>
      console.log(
        values.json
          ? JSON.stringify({ ...damage, ...extra })
          : `run ${damage.runId} of ${damage.gameId} (session ${damage.sessionId}): ${damage.kind} from step ${damage.step}: ${damage.message}; ${outcome}`,
      );
    try {
      for (let after: string | null = null; ;) {
        const page = await store.listGameRunsAfter(after, RUN_PAGE);
        for (const run of page) {
          runs++;
          const { damage, steps, logged } = await inspectRun(store, run);
          if (!damage) continue;
          if (!replayer) {
            left++;
            say(damage, 'repair it with --repair --arc3-games DIR', {});
            continue;
          }
          const r = await repairRun(store, replayer, run, damage, steps, logged);
          if ('stored' in r) {
            repaired++;
            say(damage, `repaired: ${r.stored} steps stored again from the participant's log`, { repaired: r.stored });
          } else {
            left++;
            say(damage, `not repaired: ${r.error}`, { error: r.error });
          }
        }
        if (page.length < RUN_PAGE) break;
        after = page[page.length - 1].runId;
      }
    } finally {
      await pool?.stop().catch(() => undefined);
      await store.close();
    }
    const summary = `${runs} game runs in ${where}: ${left} damaged${repaired ? `, ${repaired} repaired` : ''}`;
    console.log(values.json ? JSON.stringify({ runs, damaged: left, repaired }) : summary);
    return left ? 1 : 0;
  },
};
