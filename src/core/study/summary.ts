/**
 * What a researcher sees of a session, derived from its log and submissions: per item the
 * actions, time, whether the attempt counts, task results and verified game results; and the
 * session's flags, its signals of help and low effort among them (`core/analysis/signals.ts`). Practice items are listed but never count.
 */
import type { StudyDefinition } from './schema';
import {
  attemptCounts,
  eventsByItem,
  isLowEffort,
  sessionProgress,
  verifyGameLog,
  type GameVerification,
  type ItemProgress,
  type ReplayGame,
  type StoredEvent,
} from './rules';
import { foldSignals, newSignalFold, sessionSignalFlags } from '../analysis/signals';

export interface SubmissionTally {
  readonly item: string;
  readonly testIndex: number;
  readonly trial: number | null;
  readonly verdict: 'correct' | 'wrong' | 'duplicate' | 'ungraded';
}

export interface ItemSummary extends ItemProgress {
  /** Whether this attempt counts under the study's attempt rule (never for practice or pages). */
  readonly counts: boolean;
  /** Task items: per test index, solved and trials used. */
  readonly tests?: { testIndex: number; solved: boolean; trialsUsed: number }[];
  /** Game items: the server's replay. */
  readonly game?: GameVerification;
}

export interface SessionSummary {
  readonly items: ItemSummary[];
  readonly current: number;
  readonly flags: string[];
}

/** Per test input of a task item: solved, and trials used (duplicates use none). */
export function tallyTests(
  subs: readonly SubmissionTally[],
  item: string,
  testIndices: readonly number[],
): { testIndex: number; solved: boolean; trialsUsed: number }[] {
  return testIndices.map((testIndex) => {
    const mine = subs.filter((s) => s.item === item && s.testIndex === testIndex && s.trial !== null);
    return { testIndex, solved: mine.some((s) => s.verdict === 'correct'), trialsUsed: mine.length };
  });
}

export function summarizeSession(
  study: StudyDefinition,
  order: readonly number[],
  events: readonly StoredEvent[],
  submissions: readonly SubmissionTally[],
  testIndices: (itemId: string) => readonly number[],
  replay: ReplayGame | null,
): SessionSummary {
  const taskDone = (id: string) =>
    tallyTests(submissions, id, testIndices(id)).every((t) => t.solved || t.trialsUsed >= study.trials);
  const progress = sessionProgress(study, order, events, taskDone);
  const byItem = eventsByItem(events);
  const flags: string[] = [];
  const items = progress.items.map((p, pos): ItemSummary => {
    const def = study.items[order[pos]];
    const actions = p.actions;
    let game: GameVerification | undefined;
    if (def.kind === 'game' && replay && p.started) {
      game = verifyGameLog(def, byItem.get(def.id) ?? [], replay);
      if (!game.verified)
        flags.push(`${game.status === 'other_version' ? 'game_log_other_version' : 'game_log_unverified'}:${def.id}`);
    }
    const tests = def.kind === 'task' ? tallyTests(submissions, def.id, testIndices(def.id)) : undefined;
    const counts =
      def.kind !== 'page' && !p.practice && p.started && attemptCounts(study, def.kind, actions, p.durationMs);
    return { ...p, actions, counts, ...(tests ? { tests } : {}), ...(game ? { game } : {}) };
  });
  if (isLowEffort(study, items)) flags.push('low_effort');
  flags.push(...sessionSignalFlags(study, order, foldSignals(newSignalFold(), events)));
  return { items, current: progress.current, flags };
}
