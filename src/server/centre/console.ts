/**
 * The proctor's console, read from the database at each request (the page asks every half
 * second), so every server of a study answers the same and none keeps what another needs. Its
 * cost is a handful of statements whatever the number of stations: the stations, their open
 * check-ins, those sessions, the study's notes, and the last few events of the sessions whose
 * logs grew since the last reading (kept per session by its stored event count).
 */
import { CONSOLE_KINDS, type CentreView, type StationSessionInput, stationStatus } from '../../core/study/centre';
import { effectiveState, type StoredEvent } from '../../core/study/rules';
import type { CheckinRecord } from '../store/centreStore';
import type { StudyWiring } from '../study/services';

type LastEvents = StationSessionInput['last'];

/** Sessions whose last events are kept before the cache starts over. */
const MAX_CACHED = 10_000;

/**
 * The console's view of a study's stations at `now`: a station silent for `offlineMs` is offline;
 * retired stations are left out unless `withRetired`.
 */
export type ConsoleReader = (
  studyId: string,
  now: number,
  offlineMs: number,
  withRetired?: boolean,
) => Promise<CentreView>;

/** The console's reader for one app, which keeps sessions' last events while their logs do not grow. */
export function consoleReader({ store, definitions }: Pick<StudyWiring, 'store' | 'definitions'>): ConsoleReader {
  /** Sessions' last events by session id, valid while their event count is the one read. */
  const cache = new Map<string, { eventCount: number; last: LastEvents }>();
  return async (studyId, now, offlineMs, withRetired = false) => {
    const stations = await store.centre.listStations(studyId, withRetired);
    // The session on each station: its latest check-in the station has not cleared.
    const open = new Map<string, CheckinRecord>();
    for (const k of await store.centre.openCheckins(studyId)) {
      const had = open.get(k.stationId);
      if (!had || had.checkedInAt <= k.checkedInAt) open.set(k.stationId, k);
    }
    const ids = [...open.values()].map((k) => k.sessionId);
    const [sessions, notes] = await Promise.all([
      store.getSessions(ids),
      ids.length ? store.centre.notes(studyId) : Promise.resolve([]),
    ]);
    const byId = new Map(sessions.map((s) => [s.id, s]));

    if (cache.size > MAX_CACHED) cache.clear();
    const stale = sessions.filter((s) => cache.get(s.id)?.eventCount !== s.eventCount);
    if (stale.length) {
      const fresh = new Map<string, Partial<Record<string, StoredEvent>>>(stale.map((s) => [s.id, {}]));
      for (const e of await store.centre.lastEvents(
        stale.map((s) => s.id),
        CONSOLE_KINDS,
      ))
        fresh.get(e.sessionId)![e.kind] = e;
      for (const s of stale) cache.set(s.id, { eventCount: s.eventCount, last: fresh.get(s.id) as LastEvents });
    }

    const out = [];
    const study = stations.length ? await definitions.at(studyId, (await store.getStudy(studyId))?.version ?? 0) : null;
    for (const station of stations) {
      const k = open.get(station.id);
      const s = k ? byId.get(k.sessionId) : undefined;
      const def = s ? await definitions.at(s.studyId, s.studyVersion) : study;
      if (!def) continue;
      const session: StationSessionInput | null =
        k && s
          ? {
              sessionId: s.id,
              participant: k.participant,
              checkedInAt: k.checkedInAt,
              state: effectiveState(s, def, now),
              createdAt: s.createdAt,
              order: s.order,
              pauses: s.pauses,
              flags: s.flags,
              last: cache.get(s.id)?.last ?? {},
              notes: notes
                .filter((n) => n.sessionId === s.id)
                .map((n) => ({ at: n.at, actor: n.actor, text: n.text, flag: n.flag })),
            }
          : null;
      out.push(stationStatus(def, station, session, now, offlineMs));
    }
    return { studyId, now, stations: out };
  };
}
