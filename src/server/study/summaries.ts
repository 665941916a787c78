/**
 * Sessions' summaries (core/study/summary): what each item of a session came to, from its log and
 * submissions, with its game logs checked by the engine.
 */
import { type StudyDefinition, testIndicesOf } from '../../core/study/schema';
import type { StoredEvent } from '../../core/study/rules';
import { summarizeSession, type SessionSummary } from '../../core/study/summary';
import { games } from '../../games';
import { participantsFirst } from '../load';
import type { SessionRecord } from '../store/types';
import type { StudyDeps } from './context';
import { builtInGamesOnly } from './studies';

/** Events per page when a session is read for its summary. */
const SUMMARY_PAGE = 2_000;

/** The summaries of one app's sessions, and the game facts they are judged by. */
export interface SessionSummaries {
  /**
   * A session's summary, its events read a page at a time; for a researcher (`forResearcher`),
   * with participants' writes going first between pages (`participantsFirst`: never for a
   * participant's own request, which would wait for itself).
   */
  summarize(
    session: SessionRecord,
    study: StudyDefinition,
    opts?: { readonly forResearcher?: boolean },
  ): Promise<SessionSummary>;
  /** A game's level count (to tell a full solve of a campaign's game candidate); null for a game not known. */
  gameLevels(game: string): number | null;
}

/** What summaries are computed with: the log, the tasks, the game engine and the digest threads. */
export type SummaryDeps = Pick<StudyDeps, 'store' | 'library' | 'replay' | 'digests' | 'threadReplay' | 'gameInfo'>;

export function sessionSummaries(deps: SummaryDeps): SessionSummaries {
  const { store } = deps;
  const builtIn = Object.fromEntries(Object.values(games).map((g) => [g.id, { levels: g.levels.length }]));
  return {
    async summarize(session, study, opts = {}) {
      // The game replays run on a digest thread, off the thread that acknowledges events, when
      // the thread can check the logs as `replay` does here: built-in games on their engine,
      // server-run games with the signing key and game list it is handed (`threadReplay`).
      const pool = deps.digests;
      const builtInOnly = builtInGamesOnly(study);
      const onThread = pool !== undefined && (builtInOnly || deps.threadReplay !== undefined);
      // For a thread the log is kept as each page's JSON text, as the database made it: handing
      // the thread a long log as objects would copy them all at once on this thread.
      const inTurn = <T>(pages: AsyncIterable<T>) => (opts.forResearcher ? participantsFirst(pages) : pages);
      const events: StoredEvent[] = [];
      const eventPages: string[] = [];
      if (onThread)
        for await (const page of inTurn(store.streamEventsJson(session.id, { batchSize: SUMMARY_PAGE })))
          eventPages.push(page.json);
      else
        for await (const page of inTurn(store.streamEvents(session.id, { batchSize: SUMMARY_PAGE })))
          events.push(...page);
      const subs = await store.listSubmissions(session.id);
      const counts = new Map<string, number[]>();
      // The session's own items only: a campaign's study holds every candidate of its pools.
      for (const item of session.order.map((i) => study.items[i])) {
        if (item.kind !== 'task') continue;
        const found = await deps.library.task(item.collection, item.task);
        counts.set(item.id, testIndicesOf(item, found.ok ? found.task.test.length : 0));
      }
      if (onThread) {
        const serverRuns = deps.replay !== null && !builtInOnly ? { serverRuns: deps.threadReplay!() } : {};
        return pool.summary({
          definition: study,
          order: session.order,
          events: [],
          eventPages,
          submissions: subs,
          testIndices: [...counts.entries()],
          verify: deps.replay !== null,
          ...serverRuns,
        });
      }
      return summarizeSession(study, session.order, events, subs, (id) => counts.get(id) ?? [], deps.replay);
    },
    gameLevels: (game) => (deps.gameInfo?.() ?? builtIn)[game]?.levels ?? null,
  };
}
