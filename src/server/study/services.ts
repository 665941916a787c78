/**
 * The study's services, built once per app from its dependencies (`StudyDeps`) and shared by every
 * router that serves studies (the study routes, the game routes, campaigns, Prolific, the testing
 * centre): each router names the ones it takes, so what it depends on is in its signature.
 *
 * Shared, not built per router, because the caches inside them are one truth: a study saved by the
 * researcher's routes is forgotten for the centre's too, and a session ended by a proctor is
 * dropped from the token cache the participant's game actions are admitted on.
 */
import type { StudyDeps } from './context';
import { type StudyDefinitions, studyDefinitions } from './definitions';
import { type ParticipantSessions, participantSessions } from './participants';
import { type SessionSummaries, sessionSummaries } from './summaries';
import { type SessionEndings, sessionEndings } from './endings';
import { AdmissionRule } from './admission';
import { DEFAULT_LIMITS, type IngestLimits } from './limits';

/** The services of one app's study routers. */
export interface StudyServices {
  /** Study versions, parsed once. */
  readonly definitions: StudyDefinitions;
  /** Who a participant's request is: its session, through a cache by token. */
  readonly participants: ParticipantSessions;
  /** Sessions' summaries, and games' level counts. */
  readonly summaries: SessionSummaries;
  /** Ending sessions and settling their campaign claims. */
  readonly endings: SessionEndings;
  /** Whether a participant's write is taken now. */
  readonly admission: AdmissionRule;
  /** The clock, in ms since the epoch (`StudyDeps.now`, else the system's). */
  readonly now: () => number;
  /** What one participant may send (`StudyDeps.limits`, else the defaults). */
  readonly limits: IngestLimits;
}

/**
 * What a study router may be given: the app's dependencies and the services built from them. Each
 * router takes a `Pick` of it naming what it uses.
 */
export type StudyWiring = Omit<StudyDeps, 'now' | 'limits'> & StudyServices;

/**
 * The services of one app, wired from its dependencies.
 *
 * @example
 * const wiring = { ...deps, ...studyServices(deps) };
 * api.route('/', studyRoutes(wiring));
 * api.route('/', centreRoutes(wiring));
 */
export function studyServices(deps: StudyDeps): StudyServices {
  const now = deps.now ?? Date.now;
  const definitions = studyDefinitions(deps.store);
  const participants = participantSessions(deps.store, definitions);
  const summaries = sessionSummaries(deps);
  return {
    definitions,
    participants,
    summaries,
    endings: sessionEndings({ store: deps.store, participants, summaries, maintainer: deps.maintainer }),
    admission: new AdmissionRule({ store: deps.store, now, participants }),
    now,
    limits: deps.limits ?? DEFAULT_LIMITS,
  };
}
