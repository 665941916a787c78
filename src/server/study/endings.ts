/**
 * A session's end, however it comes (the participant finishes or withdraws, a proctor ends it,
 * Prolific reports it returned): one sequence, so that every way out forgets the same caches,
 * settles the same campaign claims and tells the same digests.
 */
import type { StudyDefinition } from '../../core/study/schema';
import type { SessionSummary } from '../../core/study/summary';
import { settleClaims } from '../campaign/assign';
import type { SessionRecord, Store } from '../store/types';
import type { StudyDeps } from './context';
import type { ParticipantSessions } from './participants';
import type { SessionSummaries } from './summaries';

/** How a session ends. */
export interface SessionEnding {
  readonly state: 'finished' | 'timed_out' | 'withdrawn';
  /** Its summary when the caller has it: its flags are stored with the session's, and its claims settled from it. */
  readonly summary?: SessionSummary;
  /** Flags to add to the session's; with neither these nor a summary, the stored flags are left as they are. */
  readonly flags?: readonly string[];
}

/** Sessions' ends and their campaign claims. */
export interface SessionEndings {
  /**
   * Ends a session for good at `t`: its state and flags stored, its token dropped from the cache
   * (a game action admitted on the old row is then decided on the change), its campaign claims
   * settled, the digests told.
   */
  end(session: SessionRecord, study: StudyDefinition, ending: SessionEnding, t: number): Promise<void>;
  /**
   * Settles a session's held campaign claims from its summary (read when not given; nothing is
   * read for a study without pools): what it finished counts, the rest goes back to the pools.
   */
  settle(session: SessionRecord, study: StudyDefinition, t: number, summary?: SessionSummary): Promise<void>;
}

export function sessionEndings(deps: {
  readonly store: Pick<Store, 'setSessionState' | 'campaigns' | 'readEvents'>;
  readonly participants: Pick<ParticipantSessions, 'forget'>;
  readonly summaries: SessionSummaries;
  readonly maintainer?: StudyDeps['maintainer'];
}): SessionEndings {
  const { store, participants, summaries } = deps;
  const settle: SessionEndings['settle'] = async (session, study, t, summary) => {
    if (!summary && study.pools.length === 0) return;
    await settleClaims(
      store,
      study,
      session,
      summary ?? (await summaries.summarize(session, study)),
      summaries.gameLevels,
      t,
    );
  };
  return {
    async end(session, study, ending, t) {
      const { summary, flags } = ending;
      const all =
        summary || flags ? [...new Set([...session.flags, ...(summary?.flags ?? []), ...(flags ?? [])])] : null;
      await store.setSessionState(session.id, ending.state, { finishedAt: t, ...(all ? { flags: all } : {}) });
      participants.forget([session.tokenHash]);
      await settle(session, study, t, summary);
      deps.maintainer?.sessionEnded(session.studyId);
    },
    settle,
  };
}
