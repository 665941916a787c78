/**
 * The `Store` over SQL, shared by both back ends (a driver only runs queries and transactions):
 * one store per concern, each over the same driver, composed into the whole. Each concern's SQL
 * is in its own module (`studyStore.ts`, `eventStore.ts`, ..., `gradingStore.ts`); here is only
 * which module answers what.
 */
import type { Driver } from './driver';
import { SqlStudyStore } from './studyStore';
import { SqlSessionStore } from './sessionStore';
import { SqlCurationStore } from './curationStore';
import { SqlEventStore } from './eventStore';
import { SqlAnswerStore } from './answerStore';
import { SqlDigestStore } from './digestStore';
import { SqlGameRunStore } from './gameRunStore';
import { SqlDownloadStore } from './downloadStore';
import { SqlSecretStore } from './secretStore';
import { SqlAgentStore } from './agentStore';
import { SqlGradingStore } from './gradingStore';
import { CampaignStore } from './campaignStore';
import { SqlPeopleStore } from './peopleStore';
import { SqlStageStore } from './stageStore';
import { SqlParticipantDataStore } from './participantData';
import { ProlificStore } from './prolificStore';
import { SqlArchiveStore } from './archiveStore';
import { SqlRetentionStore } from './retentionStore';
import { SqlReferenceStore } from './referenceStore';
import { SqlCentreStore } from './centreStore';
import type {
  AgentStore,
  AnswerStore,
  CurationStore,
  DigestStore,
  DownloadStore,
  EventStore,
  GameRunStore,
  SecretStore,
  SessionStore,
  Store,
  StudyStore,
} from './types';

/**
 * The methods of `part` named in `names`, bound to it, as the store's own properties.
 *
 * Own properties rather than a prototype's, so a test may still replace one method of a store
 * (`store.saveDigests = ...`) or derive a store from it (`Object.create(store, ...)`).
 */
function methodsOf<T extends object, K extends keyof T>(part: T, names: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const name of names) {
    const method = part[name];
    if (typeof method !== 'function') throw new Error(`The store has no method ${String(name)}.`);
    out[name] = method.bind(part) as T[K];
  }
  return out;
}

// Every method of each concern's interface, by name: the compiler fails on a name the interface
// lacks (`satisfies`), and on one left out (`sqlStore`'s answer would not be a `Store`).
const STUDY = ['saveStudy', 'getStudy', 'listStudies', 'studyUsage'] as const satisfies readonly (keyof StudyStore)[];
const SESSION = [
  'createSession',
  'studyGamePins',
  'getSession',
  'getSessionByTokenHash',
  'listSessions',
  'getSessions',
  'countSessionsWithParam',
  'setSessionState',
] as const satisfies readonly (keyof SessionStore)[];
const CURATION = [
  'setSessionExclusion',
  'deleteSession',
  'deleteStudy',
  'listAuditEvents',
] as const satisfies readonly (keyof CurationStore)[];
const EVENT = [
  'appendEvents',
  'readEvents',
  'streamEvents',
  'streamEventsJson',
] as const satisfies readonly (keyof EventStore)[];
const ANSWER = [
  'addSubmission',
  'listSubmissions',
  'addResponse',
  'listResponses',
  'listStudyResponses',
  'submissionCounts',
  'listSubmissionsOf',
  'listResponsesOf',
] as const satisfies readonly (keyof AnswerStore)[];
const DIGEST = [
  'readDigests',
  'saveDigest',
  'saveDigests',
  'readDigestFolds',
  'readEventTails',
] as const satisfies readonly (keyof DigestStore)[];
const GAME_RUN = [
  'addGameRun',
  'getGameRun',
  'listGameRuns',
  'listGameRunsOf',
  'listGameRunsAfter',
  'removeGameSteps',
  'studyGameVersions',
  'listStudyFirstRuns',
  'saveGameCode',
  'getGameCode',
  'addGameStep',
  'addGameSteps',
  'readGameSteps',
  'readGameStepsJson',
] as const satisfies readonly (keyof GameRunStore)[];
const DOWNLOAD = ['addDownloadTicket', 'claimDownloadTicket'] as const satisfies readonly (keyof DownloadStore)[];
const SECRET = ['secret'] as const satisfies readonly (keyof SecretStore)[];
const AGENT = [
  'addAgentKey',
  'listAgentKeys',
  'agentKeyByHash',
  'revokeAgentKey',
  'addScorecard',
  'getScorecard',
  'closeScorecard',
  'listScorecards',
  'addAgentRun',
  'getAgentRun',
  'listAgentRuns',
  'addAgentSteps',
  'addAgentStepIfFree',
  'readAgentSteps',
] as const satisfies readonly (keyof AgentStore)[];

/** The whole store over a driver whose migrations are applied (`open.ts`); closing it closes the driver. */
export function sqlStore(db: Driver): Store {
  const studies = new SqlStudyStore(db);
  return {
    kind: db.kind,
    ...methodsOf(studies, STUDY),
    ...methodsOf(new SqlSessionStore(db), SESSION),
    ...methodsOf(new SqlCurationStore(db, studies), CURATION),
    ...methodsOf(new SqlEventStore(db), EVENT),
    ...methodsOf(new SqlAnswerStore(db), ANSWER),
    ...methodsOf(new SqlDigestStore(db), DIGEST),
    ...methodsOf(new SqlGameRunStore(db), GAME_RUN),
    ...methodsOf(new SqlDownloadStore(db), DOWNLOAD),
    ...methodsOf(new SqlSecretStore(db), SECRET),
    ...methodsOf(new SqlAgentStore(db), AGENT),
    grading: new SqlGradingStore(db),
    campaigns: new CampaignStore(db),
    people: new SqlPeopleStore(db),
    stages: new SqlStageStore(db),
    participantData: new SqlParticipantDataStore(db),
    prolific: new ProlificStore(db),
    archives: new SqlArchiveStore(db),
    retention: new SqlRetentionStore(db),
    references: new SqlReferenceStore(db),
    centre: new SqlCentreStore(db),
    close: () => db.close(),
  };
}
