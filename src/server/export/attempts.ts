/**
 * `attempts.csv`: one row per session and item the participant started (task and game items;
 * pages are not attempts), from the session's log and its server-judged submissions, with the
 * study's attempt rule applied. See docs/formats/README.md.
 */
import { csvRecord } from '../../core/formats/csv';
import { effectiveState } from '../../core/study/rules';
import { summarizeSession } from '../../core/study/summary';
import { games } from '../../games';
import { firstRunVersions } from '../campaign/versions';
import {
  type ExportContext,
  definitionFor,
  isExcludedSession,
  isPlaytestSession,
  participantId,
  sessionEvents,
  testIndicesOf,
} from './context';

/** 2: `excluded` and `excluded_reason` after `playtest`. 3: `version` after `game`. 4: `stage` after `excluded_reason`. */
export const ATTEMPTS_VERSION = 4;

/** The columns, in order. */
export const ATTEMPTS_COLUMNS = [
  'study_id',
  'study_version',
  'session_id',
  'participant_id',
  'prolific_pid',
  'worker_id',
  'session_state',
  'playtest',
  'excluded',
  'excluded_reason',
  'stage',
  'position',
  'item_id',
  'item_kind',
  'collection',
  'task',
  'game',
  'version',
  'practice',
  'started',
  'finished',
  'counts',
  'actions',
  'duration_ms',
  'active_ms',
  'tests',
  'tests_solved',
  'trials_used',
  'solved',
  'levels_completed',
  'win_levels',
  'verified',
  'item_flags',
  'session_flags',
] as const;

/** Yields the header, then the rows of one session at a time. */
export async function* attemptsCsv(ctx: ExportContext): AsyncGenerator<string> {
  yield csvRecord(ATTEMPTS_COLUMNS);
  const runs = await firstRunVersions(ctx.store, ctx.studyId);
  for (const s of ctx.sessions) {
    const def = definitionFor(ctx, s);
    const events = await sessionEvents(ctx, s.id);
    const subs = await ctx.store.listSubmissions(s.id);
    const indices = new Map<string, number[]>();
    for (const item of def.items) if (item.kind === 'task') indices.set(item.id, testIndicesOf(ctx, item, subs));
    const summary = summarizeSession(def, s.order, events, subs, (id) => indices.get(id) ?? [], ctx.replay);
    const sessionFlags = [...new Set([...s.flags, ...summary.flags])].join('; ');
    const state = effectiveState(s, def, ctx.now);
    let chunk = '';
    summary.items.forEach((it, pos) => {
      const item = def.items[s.order[pos]];
      // Pages and surveys are not attempts (survey answers are in responses.csv).
      if (item.kind === 'page' || item.kind === 'survey') return;
      const judged = subs.some((x) => x.item === item.id);
      if (!it.started && !judged) return;
      const tests = it.tests ?? [];
      const win = item.kind === 'game' ? (games[item.game]?.levels.length ?? null) : null;
      const levels = it.game ? it.game.levelsCompleted : null;
      chunk += csvRecord([
        ctx.studyId,
        s.studyVersion,
        s.id,
        participantId(s),
        s.params.PROLIFIC_PID ?? '',
        s.params.workerId ?? '',
        state,
        isPlaytestSession(s),
        isExcludedSession(s),
        s.excludedReason ?? '',
        s.stage,
        pos + 1,
        item.id,
        item.kind,
        item.kind === 'task' ? item.collection : '',
        item.kind === 'task' ? item.task : '',
        item.kind === 'game' ? item.game : '',
        item.kind === 'task'
          ? (subs.find((x) => x.item === item.id && x.taskHash)?.taskHash ?? '')
          : (runs.get(s.id)?.[item.id]?.version ?? it.game?.version ?? ''),
        it.practice,
        it.started,
        it.finished,
        it.counts,
        it.actions,
        it.durationMs,
        Math.round(it.activeMs),
        item.kind === 'task' ? tests.length : '',
        item.kind === 'task' ? tests.filter((t) => t.solved).length : '',
        item.kind === 'task' ? tests.reduce((n, t) => n + t.trialsUsed, 0) : '',
        item.kind === 'task'
          ? tests.length > 0 && tests.every((t) => t.solved)
          : levels !== null && win !== null
            ? levels >= win
            : '',
        levels ?? '',
        win ?? '',
        it.game ? it.game.verified : '',
        it.game ? it.game.flags.join('; ') : '',
        sessionFlags,
      ]);
    });
    if (chunk) yield chunk;
  }
}
