/**
 * The storage interface of the study server: narrow, so the PGlite and PostgreSQL back ends
 * (same SQL) stay interchangeable, and tested against both real databases.
 */
import type { SessionState, StoredEvent } from '../../core/study/rules';
import type { DeletedCounts } from '../../core/protocol/api';
import type { AgentReplayStep, AgentRunSource } from '../../core/protocol/agents';
import type { GradingStore } from './gradingStore';
import type { CentreStore } from './centreStore';
import type { Pause } from '../../core/study/pauses';
import type { CampaignStore } from './campaignStore';
import type { PeopleStore } from './peopleStore';
import type { StageStore } from './stageStore';
import type { ParticipantDataStore } from './participantData';
import type { ProlificStore } from './prolificStore';
import type { ArchiveStore } from './archiveStore';
import type { RetentionStore } from './retentionStore';
import type { ReferenceStore } from './referenceStore';
import type { JsonPage, NewSession, StudyGamePin } from './records';

export type { JsonPage, NewSession, StudyGamePin } from './records';

export type StudySource = 'file' | 'studio';

export interface StudyRecord {
  readonly id: string;
  readonly version: number;
  /** The validated definition (`StudyDefinition` JSON). */
  readonly definition: unknown;
  readonly source: StudySource;
  readonly createdAt: number;
}

export interface StudySummary extends StudyRecord {
  readonly sessions: number;
}

export interface SessionRecord extends NewSession {
  readonly state: SessionState;
  readonly ackedThrough: number;
  readonly eventCount: number;
  /** Bytes of the stored events' data (its JSON text), for the session quota. */
  readonly eventBytes: number;
  readonly lastEventAt: number | null;
  readonly finishedAt: number | null;
  readonly flags: readonly string[];
  /** When a researcher excluded the session (listed and exported, never counted); null: counted. */
  readonly excludedAt: number | null;
  readonly excludedReason: string | null;
  /** The study's stage when the session started (`pilot`, `main`, or a name); `main` for sessions from before stages. */
  readonly stage: string;
  /** The session's breaks (core/study/pauses.ts), oldest first; absent when it had none. */
  readonly pauses?: readonly Pause[];
}

/** A session's digest as stored: its key, the digest, and the fold it came from (null: none). */
export interface StoredDigest {
  readonly sessionId: string;
  readonly key: string;
  readonly digest: unknown;
  readonly fold: unknown;
}

export interface EventInput {
  readonly seq: number;
  readonly t: number;
  readonly kind: string;
  readonly data: Record<string, unknown>;
}

export interface AppendResult {
  /** Highest seq up to which every event of the session is stored (-1: none yet). */
  readonly ackedThrough: number;
  /** Events of this batch that were new. */
  readonly stored: number;
  readonly state: SessionState;
  /** The session's stored events and their bytes (the JSON text of each event's data), after this batch. */
  readonly eventCount: number;
  readonly eventBytes: number;
}

/** `ungraded`: a question item's symbolic or free-response answer, kept for grading. */
export type Verdict = 'correct' | 'wrong' | 'duplicate' | 'ungraded';

export interface SubmissionRecord {
  readonly sessionId: string;
  readonly key: string;
  readonly item: string;
  readonly testIndex: number;
  readonly trial: number | null;
  readonly grid: unknown;
  readonly verdict: Verdict;
  readonly practice: boolean;
  readonly at: number;
  /** The content hash of the task a grid was judged against (`taskContentHash`); null or absent: not recorded. */
  readonly taskHash?: string | null;
}

/**
 * A participant's response besides answers (`src/server/study/responseRoutes.ts`): a written
 * description of a task or game (`part` first or last), a survey's answers, or a withdrawal
 * (`item`: the item the participant was on, or "" before the first).
 */
export interface ResponseRecord {
  readonly sessionId: string;
  readonly key: string;
  readonly item: string;
  readonly kind: 'description' | 'survey' | 'withdraw';
  readonly part: string;
  readonly value: unknown;
  readonly at: number;
}

/** A run of an ARC-AGI-3 game that the server ran for a session (`src/server/arc3/runs.ts`). */
export interface GameRunRecord {
  readonly runId: string;
  readonly sessionId: string;
  readonly item: string;
  /** The full official id, e.g. `ls20-9607627b`. */
  readonly gameId: string;
  readonly source: 'arcengine' | 'remote';
  /** The engine that ran it, e.g. `arcengine 0.9.3`. */
  readonly engine: string;
  readonly seed: number;
  readonly openedAt: number;
  /** The content hash of the arcengine game's files the run was opened on (`arc3/gameCode.ts`); absent for remote games and older runs. */
  readonly codeHash?: string | null;
}

/** The files of one version of an arcengine game, by path in its folder, as base64 of their bytes. */
export type GameCodeFiles = Readonly<Record<string, string>>;

/** A version of a game that a study's runs were opened on, with how many runs and when. */
export interface StudyGameVersion {
  readonly gameId: string;
  /** Null for remote games and runs stored before versions were kept. */
  readonly codeHash: string | null;
  readonly runs: number;
  readonly firstAt: number;
  readonly lastAt: number;
}

/** The first run a session opened of a game item, with the code it was opened on. */
export interface StudyFirstRun {
  readonly sessionId: string;
  readonly item: string;
  readonly gameId: string;
  /** Null for remote games and runs stored before versions were kept. */
  readonly codeHash: string | null;
  readonly openedAt: number;
}

/** A study's pinned game version as stored: with the session that pinned it and when. */
export interface StoredStudyGamePin extends StudyGamePin {
  readonly sessionId: string;
  readonly pinnedAt: number;
}

/** One action of a server-run game as the engine answered it; step 0 is the opening RESET. */
/**
 * The columns of a session's row that a participant's admission reads and that can change (its
 * id, token, study, order and creation time never do): a write admitted on a row read earlier is
 * stored only while the row still has them (`study/admission.ts`, `admitOnRow`).
 */
export interface SessionStamp {
  readonly id: string;
  readonly state: SessionState;
  readonly eventCount: number;
  readonly ackedThrough: number;
}

/** A step to store, with the stamp its session's row must still have (see `Store.addGameStep`). */
export interface StepToStore {
  readonly step: GameStepRecord;
  readonly session?: SessionStamp;
}

/**
 * What became of one step of `Store.addGameSteps`: `stored`; `exists` (the run has that step
 * already: a retried request, or another server's); `changed` (its session's row no longer has
 * its stamp: nothing stored); `gap` (the run lacks the step before it: nothing stored, so a run's
 * stored steps never have a hole that a later step is encoded across); `after` (not tried: an
 * earlier step of the same call was not stored).
 */
export type StepOutcome = 'stored' | 'exists' | 'changed' | 'gap' | 'after';

/** A write made on a session's stamp found the row changed since: nothing was stored. */
export class SessionChanged extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} changed since its admission was decided`);
    this.name = 'SessionChanged';
  }
}

export interface GameStepRecord {
  readonly runId: string;
  readonly step: number;
  readonly action: string;
  readonly x: number | null;
  readonly y: number | null;
  readonly state: string;
  readonly levelsCompleted: number;
  readonly winLevels: number;
  readonly available: readonly number[];
  readonly fullReset: boolean;
  /** `hashFrame` of the last frame. */
  readonly frameHash: string;
  /** `encodeFrames` text: against the previous step's last frame unless `keyframe`. */
  readonly frames: string;
  readonly keyframe: boolean;
  readonly at: number;
}

export type { AuditAction, AuditEventInput } from './records';
import type { AuditEventInput } from './records';

export interface AuditEventRecord extends AuditEventInput {
  /** Increasing in the order the actions were recorded. */
  readonly id: number;
  /** What the action changed: for deletions, the rows deleted per table. */
  readonly detail: Readonly<Record<string, unknown>>;
}

/** Rows a deletion removed, per table (as the curation routes answer them). */
export type DeletedRows = DeletedCounts;

/** An API key of an agent (the ARC-AGI-3 protocol); only its SHA-256 is stored. */
export interface AgentKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly keyHash: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

/** A scorecard opened by an agent (`POST /api/scorecard/open`). */
export interface ScorecardRecord {
  readonly cardId: string;
  /** The agent key's id, or `researcher`. */
  readonly keyId: string;
  readonly tags: readonly string[];
  readonly sourceUrl: string | null;
  readonly opaque: unknown;
  readonly openedAt: number;
  readonly closedAt: number | null;
}

/** One game session (`guid`) of a scorecard. */
export interface AgentRunRecord {
  readonly guid: string;
  readonly cardId: string;
  readonly gameId: string;
  readonly source: AgentRunSource;
  readonly seed: number;
  readonly openedAt: number;
  /** An arcengine game's code hash the run was opened on; null or absent: not recorded (built-in and remote games). */
  readonly codeHash?: string | null;
}

/** One action of an agent's game session as the engine answered it; seq 0 is the opening RESET. */
export interface AgentStepRecord extends Omit<AgentReplayStep, 'frames'> {
  readonly guid: string;
  /**
   * The frames the step answered, encoded as `game_steps` keeps them (core/formats/frames.ts), for
   * games run by the official engine; null for built-in games, whose steps replay on the TS engine.
   */
  readonly frames?: string | null;
  readonly reasoning: unknown;
}

/** A one-time download link of an export. */
export interface DownloadTicket {
  readonly tokenHash: string;
  readonly studyId: string;
  readonly version: number | null;
  readonly format: string;
  /** The stage counted figures take; null: every stage. */
  readonly stage: string | null;
  readonly expiresAt: number;
}

/*
 * The database, split by concern: each interface below is what one part of the server needs,
 * and `Store` is all of them (on PGlite or PostgreSQL; `sqlStore.ts` composes one module per
 * concern). Code that needs one concern takes its interface, so that what it may touch is in its
 * signature.
 */

/** Study definitions and their versions. */
export interface StudyStore {
  /**
   * Saves a study definition: the first save creates version 1; later saves replace the latest
   * version while no session has run it, and add a new version once one has.
   */
  saveStudy(
    id: string,
    definition: unknown,
    source: StudySource,
    now: number,
  ): Promise<{ version: number; created: boolean }>;
  /** The given version, or the latest. */
  getStudy(id: string, version?: number): Promise<StudyRecord | null>;
  /** The latest version of every study, with its session count over all versions. */
  listStudies(): Promise<StudySummary[]>;
  /**
   * What a study's sessions have stored together: the sum of their event counters (one row per
   * session read, never the events), for the study's storage budget.
   */
  studyUsage(studyId: string): Promise<{ events: number; bytes: number }>;
}

/** Participants' sessions: made, found, listed, their state. */
export interface SessionStore {
  /**
   * Creates a session. `pins`: the current versions of the study's games, recorded in the same
   * transaction for each game the study has none recorded for yet (the first session that had
   * the game pins it; later ones change nothing). The stage the session started in: the
   * study's current stage, read in the statement that writes the session.
   */
  createSession(session: NewSession, pins?: readonly StudyGamePin[]): Promise<{ stage: string }>;
  /** The game versions the study started with (`createSession`'s `pins`), in the order pinned. */
  studyGamePins(studyId: string): Promise<StoredStudyGamePin[]>;
  getSession(id: string): Promise<SessionRecord | null>;
  /** The session whose token has this SHA-256 hash. */
  getSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null>;
  listSessions(studyId?: string): Promise<SessionRecord[]>;
  /** The sessions of these ids that exist, in no particular order. */
  getSessions(ids: readonly string[]): Promise<SessionRecord[]>;
  /** Sessions of a study whose params hold this value (e.g. the same PROLIFIC_PID). */
  countSessionsWithParam(studyId: string, key: string, value: string): Promise<number>;
  setSessionState(
    id: string,
    state: SessionState,
    opts?: { finishedAt?: number; flags?: readonly string[] },
  ): Promise<void>;
}

/** The researcher's exclusions and deletions, and the audit log that records them. */
export interface CurationStore {
  /**
   * Excludes a session from every count (`exclude` given) or counts it again (null), and records
   * the audit event in the same transaction. Null when there is no such session; `changed` is
   * false (and nothing is recorded) when the session was already so.
   */
  setSessionExclusion(
    id: string,
    exclude: { readonly reason: string | null } | null,
    audit: Omit<AuditEventInput, 'studyId' | 'target' | 'action' | 'reason'>,
  ): Promise<{ session: SessionRecord; changed: boolean } | null>;
  /**
   * Deletes a session and everything of it (events, submissions, server-run game runs and their
   * steps) and records the audit event, in one transaction. Null when there is no such session.
   */
  deleteSession(id: string, audit: Omit<AuditEventInput, 'studyId' | 'target' | 'action'>): Promise<DeletedRows | null>;
  /**
   * Deletes a study: every version, every session and everything of them, and records the audit
   * event, in one transaction. Null when there is no such study. The audit log stays.
   */
  deleteStudy(id: string, audit: Omit<AuditEventInput, 'studyId' | 'target' | 'action'>): Promise<DeletedRows | null>;
  /** The audit log of a study (also of one deleted since), newest first. */
  listAuditEvents(studyId: string): Promise<AuditEventRecord[]>;
}

/** Sessions' event logs: stored exactly once, read whole or a page at a time. */
export interface EventStore {
  /**
   * Stores a batch idempotently on `(sessionId, seq)` in one transaction: repeated events are
   * skipped, events past a gap are kept and counted once the gap fills. Sets the session's
   * last-event time and its state: every event is a heartbeat, so an open session becomes
   * `active`, or `timed_out` when `pastSessionLimit`; finished and timed-out sessions stay so.
   */
  appendEvents(
    sessionId: string,
    events: readonly EventInput[],
    opts: { receivedAt: number; pastSessionLimit: boolean },
  ): Promise<AppendResult>;
  /** Every stored event of a session in seq order, or only those of the given kinds. */
  readEvents(sessionId: string, opts?: { kinds?: readonly string[] }): Promise<StoredEvent[]>;
  /**
   * The stored events of a session in seq order, a page at a time (keyset pagination on
   * `(session_id, seq)`), so that exports of long logs never hold a whole log in memory.
   * Pages hold at most `batchSize` events (default 5,000); events after `afterSeq` only.
   */
  streamEvents(sessionId: string, opts?: { batchSize?: number; afterSeq?: number }): AsyncGenerator<StoredEvent[]>;
  /**
   * The same pages as `streamEvents`, each as the JSON text of its `StoredEvent[]`: for a read
   * that hands the page on (to another thread, to a download) without looking into it.
   */
  streamEventsJson(sessionId: string, opts?: { batchSize?: number; afterSeq?: number }): AsyncGenerator<JsonPage>;
}

/** What participants submit besides events: grids for task items, answers and responses. */
export interface AnswerStore {
  /** Inserts a submission; false when its key or its trial number is already taken. */
  addSubmission(s: SubmissionRecord): Promise<boolean>;
  listSubmissions(sessionId: string): Promise<SubmissionRecord[]>;
  /** Inserts a response; false when its key, or its (item, kind, part), is already taken. */
  addResponse(r: ResponseRecord): Promise<boolean>;
  /** A session's responses in the order they were stored. */
  listResponses(sessionId: string): Promise<ResponseRecord[]>;
  /** The responses of one kind of every session of a study, in the order they were stored. */
  listStudyResponses(studyId: string, kind: ResponseRecord['kind']): Promise<ResponseRecord[]>;
  /** How many submissions each session of a study has (sessions without any are absent). */
  submissionCounts(studyId: string): Promise<Map<string, number>>;
  /** The submissions of these sessions, each session's in `listSubmissions` order. */
  listSubmissionsOf(sessionIds: readonly string[]): Promise<Map<string, SubmissionRecord[]>>;
  /** The responses of these sessions, each session's in `listResponses` order. */
  listResponsesOf(sessionIds: readonly string[]): Promise<Map<string, ResponseRecord[]>>;
}

/** The results digests of sessions, and the event tails that extend them. */
export interface DigestStore {
  /** The stored results digests of a study's sessions, by session id, with the key each was computed under. */
  readDigests(studyId: string): Promise<Map<string, { key: string; digest: unknown }>>;
  /** Stores (or replaces) a session's results digest, and the fold it came from (null: none); nothing when the session is gone. */
  saveDigest(sessionId: string, key: string, digest: unknown, at: number, fold?: unknown): Promise<void>;
  /** `saveDigest` for many sessions in one statement. */
  saveDigests(rows: readonly StoredDigest[], at: number): Promise<void>;
  /** The stored folds of these sessions' digests (sessions without one are absent), with their keys. */
  readDigestFolds(sessionIds: readonly string[]): Promise<Map<string, { key: string; fold: unknown }>>;
  /**
   * The events of each session with `afterSeq < seq <= throughSeq`, in seq order, in one query:
   * what arrived since each session's digest was folded.
   */
  readEventTails(
    tails: readonly { sessionId: string; afterSeq: number; throughSeq: number }[],
  ): Promise<Map<string, StoredEvent[]>>;
}

/** Runs of ARC-AGI-3 games the server ran, their steps, and the game code they ran on. */
export interface GameRunStore {
  /** Records a server-run game's run (once; a repeated id is ignored). */
  addGameRun(run: GameRunRecord): Promise<void>;
  getGameRun(runId: string): Promise<GameRunRecord | null>;
  /** A session's server-run game runs, oldest first. */
  listGameRuns(sessionId: string): Promise<GameRunRecord[]>;
  /** The runs of these sessions, each session's in `listGameRuns` order. */
  listGameRunsOf(sessionIds: readonly string[]): Promise<Map<string, GameRunRecord[]>>;
  /** Every study's runs by run id, a page at a time: at most `limit` after `afterRunId` (from the first when null). */
  listGameRunsAfter(afterRunId: string | null, limit: number): Promise<GameRunRecord[]>;
  /**
   * Deletes a run's stored steps from step `from` on, answering how many (`arc-studio check
   * --repair` stores them again from the participant's log).
   * WARNING: only for a run nobody is playing; a server playing it would find its copy behind.
   */
  removeGameSteps(runId: string, from: number): Promise<number>;
  /** The versions of games a study's runs were opened on, in the order they were first used. */
  studyGameVersions(studyId: string): Promise<StudyGameVersion[]>;
  /** The first run of each game item of each session of a study: the code version it was played on. */
  listStudyFirstRuns(studyId: string): Promise<StudyFirstRun[]>;
  /** Keeps the files of a game's version (once; a hash stored already is left as it is). */
  saveGameCode(gameId: string, codeHash: string, files: GameCodeFiles, at: number): Promise<void>;
  /** The files of a game's version, or null when no server of this database kept them. */
  getGameCode(gameId: string, codeHash: string): Promise<GameCodeFiles | null>;
  /**
   * Stores one step; false when the run already has this step (a retried request) or lacks the
   * step before it (the writer's copy of the run is behind what is stored). With
   * `session`, only while the session's row still has that stamp, in the same statement;
   * otherwise nothing is stored and it rejects with {@link SessionChanged}.
   */
  addGameStep(step: GameStepRecord, opts?: { session?: SessionStamp }): Promise<boolean>;
  /**
   * Stores consecutive steps of one run, in order, in one statement (grouped with other runs'):
   * each step as {@link addGameStep} would, and none past the first that is not stored, so a
   * run's stored steps never have a gap. One outcome per step, in order.
   */
  addGameSteps(steps: readonly StepToStore[]): Promise<StepOutcome[]>;
  /** A run's steps in order; from step `from` when given, at most `limit` of them when given. */
  readGameSteps(runId: string, opts?: { from?: number; limit?: number }): Promise<GameStepRecord[]>;
  /**
   * A page of `readGameSteps` (steps from `from`, at most `limit`) as the database's JSON text of
   * the records: one value to decode, handed to an export thread as it is.
   */
  readGameStepsJson(runId: string, opts: { from?: number; limit: number }): Promise<JsonPage>;
}

/** One-time export download links. */
export interface DownloadStore {
  /** Stores a one-time download link (by its token's hash); links that expired a day ago are dropped. */
  addDownloadTicket(t: DownloadTicket): Promise<void>;
  /**
   * Takes a link for one download, once, whichever server asks: the ticket, or why not
   * (`missing`, `used`, `expired`).
   */
  claimDownloadTicket(tokenHash: string, now: number): Promise<DownloadTicket | 'missing' | 'used' | 'expired'>;
}

/** Secrets shared by every server on the database. */
export interface SecretStore {
  /** The secret of this name, created by `make` on first use and the same for every server on the database afterwards. */
  secret(name: string, make: () => string): Promise<string>;
}

/** Agents over the ARC-AGI-3 protocol: their keys, scorecards, game sessions and steps. */
export interface AgentStore {
  /** Agents' keys (the ARC-AGI-3 protocol). */
  addAgentKey(key: AgentKeyRecord): Promise<void>;
  listAgentKeys(): Promise<AgentKeyRecord[]>;
  agentKeyByHash(keyHash: string): Promise<AgentKeyRecord | null>;
  /** Revokes a key; false when there is no such key or it was revoked already. */
  revokeAgentKey(id: string, at: number): Promise<boolean>;
  addScorecard(card: ScorecardRecord): Promise<void>;
  getScorecard(cardId: string): Promise<ScorecardRecord | null>;
  /** Closes a scorecard; false when it was closed already. */
  closeScorecard(cardId: string, at: number): Promise<boolean>;
  listScorecards(): Promise<ScorecardRecord[]>;
  /** Records a game session (once; a repeated guid is ignored). */
  addAgentRun(run: AgentRunRecord): Promise<void>;
  getAgentRun(guid: string): Promise<AgentRunRecord | null>;
  listAgentRuns(cardId: string): Promise<AgentRunRecord[]>;
  /** Stores steps in one statement; a step already stored (same guid and seq) is skipped. */
  addAgentSteps(steps: readonly AgentStepRecord[]): Promise<void>;
  /**
   * Stores one step only if no step of its game session has that seq yet and the session's
   * scorecard is open: false when another server stored that step first (or closed the card),
   * so that servers sharing the database never answer two different steps of one number.
   */
  addAgentStepIfFree(step: AgentStepRecord): Promise<boolean>;
  /** A game session's steps in order. */
  readAgentSteps(guid: string): Promise<AgentStepRecord[]>;
}

/** The whole database: every concern above, the grading and campaign stores, and closing it. */
export interface Store
  extends
    StudyStore,
    SessionStore,
    CurationStore,
    EventStore,
    AnswerStore,
    DigestStore,
    GameRunStore,
    DownloadStore,
    SecretStore,
    AgentStore {
  readonly kind: 'pglite' | 'postgres';
  /** Graders, their grades and the researcher's adjudications (`gradingStore.ts`). */
  readonly grading: GradingStore;
  /** Campaigns: claims on pool candidates and recorded draws (`campaignStore.ts`). */
  readonly campaigns: CampaignStore;
  /** The lab's people, their sessions, tokens and study membership, and the audit trail by person (`peopleStore.ts`). */
  readonly people: PeopleStore;
  /** Each study's current stage, and its sessions per stage (`stageStore.ts`). */
  readonly stages: StageStore;
  /** One participant's sessions across studies, found and deleted on request (`participantData.ts`). */
  readonly participantData: ParticipantDataStore;
  /** Prolific: sealed secrets, the bonus ledger, submissions returned or timed out (`prolificStore.ts`). */
  readonly prolific: ProlificStore;
  /** A study's rows as an archive holds them, and their restore (`archiveStore.ts`). */
  readonly archives: ArchiveStore;
  /** Participants' identifiers replaced by pseudonyms once their study's retention period is over (`retentionStore.ts`). */
  readonly retention: RetentionStore;
  /** Reference recordings: human runs recorded elsewhere, in named groups per game (`referenceStore.ts`). */
  readonly references: ReferenceStore;
  /** A testing centre's stations, check-ins, notes and sessions' breaks (`centreStore.ts`). */
  readonly centre: CentreStore;

  close(): Promise<void>;
}
