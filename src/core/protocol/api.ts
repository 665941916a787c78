/**
 * The study API on the wire: what each route answers, as the server writes it and the browser
 * reads it. Both import these types, so a change to a response is a change in one place.
 * Payloads of events: `./events.ts`. Every route is described in docs/api.md.
 */
import type { TaskPair, TestPair } from '../formats/arcTask';
import type { DeviceClass } from '../study/devices';
import type { PaymentOffer } from '../study/paymentText';
import type { LogEvent } from '../log/events';
import type { Verdict } from '../log/gridPlayer';
import type { PublicQuestion } from '../questions/schema';
import type { SurveyQuestion } from '../study/schema';
import type { SessionState } from '../study/rules';
import type { SessionSummary } from '../study/summary';
import type { BaselineResult } from '../analysis/results';
import type { Dist } from '../analysis/dist';
import type { ReferenceLevelRow } from '../scoring/reference';
import type { BaselinePresetName } from '../scoring/baselines';

/** A task's or game's written description (`describe`): the prompt the participant answers. */
export interface DescribeOption {
  readonly prompt: string;
}

export type { ApiErrorBody, ErrorCode } from './errors';

/** `GET /api/admin/studies/:id/usage`: what the study stores against its budget, and the game versions its runs played. */
export interface StudyUsage {
  readonly storage: {
    readonly events: number;
    readonly bytes: number;
    readonly budget: { readonly events: number; readonly bytes: number };
  };
  /** In the order first played; `version` is `<game id>@<code hash>` for an arcengine game, the id otherwise. */
  readonly gameVersions: readonly {
    readonly gameId: string;
    readonly codeHash: string | null;
    readonly version: string;
    readonly runs: number;
    readonly firstAt: number;
    readonly lastAt: number;
  }[];
  /**
   * The version of each of the study's games when the first session that had it started
   * (recorded in that session's transaction, never changed), beside the version the server has
   * now: `current` null when the game is gone, `changed` when the current version differs.
   */
  readonly startedWith: readonly {
    readonly gameId: string;
    readonly version: string;
    readonly codeHash: string | null;
    readonly pinnedAt: number;
    readonly current: string | null;
    readonly changed: boolean;
  }[];
}

/** Who may see a collection's answers: `sealed` (the researcher only) or `practice` (nobody; the server checks them). */
export type CollectionAccess = 'sealed' | 'practice';

/** `GET /api/collections`: one entry per collection. */
export interface CollectionInfo {
  readonly id: string;
  readonly name: string;
  readonly count: number;
  readonly access: CollectionAccess;
}

/** `GET /api/studies/:id`: what a participant sees before consenting. */
export interface StudyIntro {
  readonly id: string;
  readonly version: number;
  readonly title: string;
  readonly consent: string;
  readonly items: number;
  readonly sessionMinutes: number;
  /** What a participant who does not consent is shown (the study's `decline`). */
  readonly decline: { readonly message?: string; readonly code?: string; readonly redirectUrl?: string };
  /** Which screens may take part; the consent page stops the others with a message. */
  readonly devices: DeviceClass;
  /** What the study pays, shown on the consent page; absent when it pays nothing. */
  readonly payment?: PaymentOffer;
}

/** `POST /api/studies/:id/sessions`. */
export interface CreatedSession {
  readonly sessionId: string;
  readonly token: string;
}

export interface ItemLimits {
  readonly softMinutes: number;
  readonly hardMinutes: number;
}

/** One item of a session as the participant receives it: tasks never carry test outputs. */
export type SessionItem =
  | { readonly kind: 'page'; readonly id: string; readonly title: string; readonly markdown: string }
  | {
      readonly kind: 'task';
      readonly id: string;
      readonly practice: boolean;
      readonly task: { readonly train: readonly TaskPair[]; readonly test: readonly TestPair[] };
      readonly testIndices: number[];
      readonly limits: ItemLimits;
      readonly describe?: DescribeOption;
    }
  | {
      readonly kind: 'game';
      readonly id: string;
      readonly practice: boolean;
      readonly game: string;
      readonly seed: number;
      readonly limits: ItemLimits;
      readonly describe?: DescribeOption;
      /** Set for a game the server runs (an ARC-AGI-3 game): what the player needs to show it. */
      readonly server?: { readonly title: string; readonly fps: number; readonly levels: number | null };
    }
  | {
      readonly kind: 'question';
      readonly id: string;
      readonly practice: boolean;
      readonly limits: ItemLimits;
      readonly title?: string;
      /** The questions on the screen: one, or a block's; an answer's `index` is a position here. */
      readonly questions: readonly PublicQuestion[];
      /** Whether the item is a block (`questions` in the study), even of one question. */
      readonly block: boolean;
    }
  | {
      readonly kind: 'survey';
      readonly id: string;
      readonly title: string;
      readonly intro?: string;
      readonly questions: readonly SurveyQuestion[];
    };

export interface ItemProgressView {
  readonly id: string;
  readonly started: boolean;
  readonly startedAt: number | null;
  readonly finished: boolean;
  /** A pool candidate not started because too little of the session's time was left (`finished` too): the player moves past it. */
  readonly skipped?: boolean;
  /** Task items: each test input's judging state. */
  readonly tests?: readonly { solved: boolean; trialsUsed: number; trialsLeft: number }[];
}

/** `GET /api/sessions/:id`. */
export interface SessionView {
  readonly session: {
    id: string;
    studyId: string;
    studyVersion: number;
    state: string;
    createdAt: number;
    ackedThrough: number;
    now: number;
    /** The study's stage the session started in (`pilot`, `main` or a researcher's name); fixed for the session. */
    stage: string;
  };
  readonly study: {
    title: string;
    consent: string;
    instructions: string;
    trials: number;
    limits: { itemSoftMinutes: number; itemHardMinutes: number; sessionMinutes: number; abandonAfterMinutes?: number };
    allowLevelReset: boolean;
    showActionCounter: boolean;
    showTimeLeft: boolean;
    withdraw?: { readonly message?: string; readonly code?: string };
  };
  /**
   * The session's time budget (`limits.sessionMinutes`, from the session's start): when it ends
   * (ms since the epoch, the server's clock: compare with `session.now`) and the minutes left.
   * At 0 the session is over: answers are refused and finishing ends it as timed out.
   */
  readonly budget: { readonly endsAt: number; readonly minutesLeft: number };
  readonly items: SessionItem[];
  readonly progress: { current: number; items: ItemProgressView[] };
}

/** A study's stages as the results and campaign views report them beside their figures. */
export interface StudyStages {
  /** The stage new sessions start in now. */
  readonly current: string;
  /** Sessions per stage, over every version (stages without a session are absent). */
  readonly sessions: Readonly<Record<string, number>>;
}

/** `POST /api/sessions/:id/events`. */
export interface BatchAck {
  /** Highest seq up to which every event of the session is stored. */
  readonly ackedThrough: number;
}

/** `POST /api/sessions/:id/submissions`. */
export interface SubmissionResult {
  readonly verdict: Verdict;
  /** The trial this submission used; null for a duplicate of an earlier wrong grid. */
  readonly trial: number | null;
  readonly trialsLeft: number;
  readonly solved: boolean;
}

/**
 * `POST /api/sessions/:id/answers`: a question item's answer, judged on the server. `ungraded`
 * for symbolic and free-response answers, which are kept for grading.
 */
export interface AnswerResult {
  readonly verdict: 'correct' | 'wrong' | 'ungraded';
}

/** A survey answer as sent and stored: text, one option, several options, or a number. */
export type SurveyAnswerValue = string | number | readonly string[];

/** `POST /api/sessions/:id/descriptions`, `/survey` and `/withdraw`: the response is stored. */
export interface ResponseStored {
  readonly stored: true;
}

/** Reasons a participant may give for withdrawing (`POST /api/sessions/:id/withdraw`). */
export const WITHDRAW_REASONS = {
  no_time: 'I do not have time to finish',
  too_hard: 'The tasks are too hard or frustrating',
  technical: 'Technical problems',
  privacy: 'I am not comfortable with the data collected',
  changed_mind: 'I changed my mind',
  other: 'Another reason',
} as const;
export type WithdrawReason = keyof typeof WITHDRAW_REASONS;

/** `POST /api/sessions/:id/withdraw`: what the study shows a participant who withdraws. */
export interface WithdrawResult {
  readonly message: string | null;
  readonly code: string | null;
}

/** `POST /api/sessions/:id/finish`. */
export interface FinishResult {
  readonly completionCode: string;
  readonly redirectUrl: string | null;
  /** Seconds the code stays on screen before the redirect (the study's `completion.redirectAfterSeconds`). */
  readonly redirectAfterSeconds: number;
}

/** `GET /api/admin/studies`: one entry per study, its latest version. */
export interface StudyListEntry {
  readonly id: string;
  readonly version: number;
  readonly source: string;
  readonly sessions: number;
  readonly title: string;
  readonly createdAt: number;
  /** Pool items in the latest version: more than 0 makes the study a campaign (its view: `/studies/<id>/campaign`). */
  readonly pools: number;
  /** The campaign the study's pools count toward (`campaign.id`), else null. */
  readonly campaignId: string | null;
  /** The caller's standing on the study: `owner` (the lab's owner, or the researcher token) or their membership's role. */
  readonly yourRole: 'owner' | 'researcher' | 'proctor' | 'viewer';
}

/** A session as the researcher sees it: `GET /api/admin/sessions` lists these. Never its token or the token's hash. */
export interface AdminSessionEntry {
  readonly id: string;
  readonly studyId: string;
  readonly studyVersion: number;
  readonly state: SessionState;
  readonly params: Readonly<Record<string, string>>;
  readonly seed: number;
  readonly order: readonly number[];
  readonly createdAt: number;
  readonly lastEventAt: number | null;
  readonly finishedAt: number | null;
  readonly eventCount: number;
  readonly eventBytes: number;
  readonly ackedThrough: number;
  readonly flags: readonly string[];
  /** When a researcher excluded the session; null: it counts. */
  readonly excludedAt: number | null;
  readonly excludedReason: string | null;
  /** The study's stage when the session started. */
  readonly stage: string;
}

/** A stored submission, as `GET /api/admin/sessions/:id` lists them. */
export interface AdminSubmission {
  readonly key: string;
  readonly item: string;
  readonly testIndex: number;
  readonly trial: number | null;
  readonly grid: unknown;
  /** `ungraded`: a free-response answer to a question, kept for graders. */
  readonly verdict: Verdict | 'ungraded';
  readonly practice: boolean;
  readonly at: number;
}

/** A stored description, survey answer or withdrawal, as `GET /api/admin/sessions/:id` lists them. */
export interface AdminResponse {
  readonly key: string;
  readonly item: string;
  readonly kind: 'description' | 'survey' | 'withdraw';
  readonly part: string;
  readonly value: unknown;
  readonly at: number;
}

/** `GET /api/admin/sessions/:id`: the session, what it did per item, and what it stored. */
export interface AdminSessionDetail {
  /** Its flags include the summary's (e.g. a repeated participant id). */
  readonly session: AdminSessionEntry;
  readonly summary: SessionSummary;
  readonly submissions: readonly AdminSubmission[];
  readonly responses: readonly AdminResponse[];
}

/** An event as the researcher reads it: the envelope, the server's receive time, and whether it belongs to a practice item. */
export type StoredEventView = LogEvent & { readonly receivedAt: number; readonly practice?: boolean };

/** `GET /api/admin/sessions/:id/events`. */
export interface SessionEvents {
  readonly sessionId: string;
  readonly ackedThrough: number;
  readonly events: StoredEventView[];
}

/** `POST /api/admin/sessions/:id/exclude` and `/include`: the session's exclusion after the request. */
export interface ExclusionResult {
  readonly sessionId: string;
  readonly studyId: string;
  readonly excluded: boolean;
  readonly excludedAt: number | null;
  readonly excludedReason: string | null;
  /** False when the session was already so (nothing changed, nothing was audited). */
  readonly changed: boolean;
}

/** Rows a deletion removed, per table. */
export interface DeletedCounts {
  readonly studies: number;
  readonly sessions: number;
  readonly events: number;
  readonly submissions: number;
  readonly gameRuns: number;
  readonly gameSteps: number;
}

/** `DELETE /api/admin/sessions/:id` and `DELETE /api/admin/studies/:id`. */
export interface DeletionResult {
  readonly studyId: string;
  /** The session deleted; absent for a study. */
  readonly sessionId?: string;
  readonly deleted: DeletedCounts;
}

/** An export of a study written after the participant's first session in it began (the audit trail's `export.written`). */
export interface ExportWritten {
  readonly studyId: string;
  readonly file: string;
  readonly format: string;
  readonly sha256: string;
  readonly bytes: number;
  readonly at: number;
}

/** What a deletion removed from one study. */
export interface StudyDeletion {
  readonly studyId: string;
  readonly title: string;
  readonly sessions: readonly string[];
  readonly deleted: DeletedCounts;
  /** Exports written earlier that may hold the participant's data: to recall. */
  readonly exports: readonly ExportWritten[];
}

/** The receipt of a deletion: what the researcher can send the participant (and keep). */
export interface DeletionReceipt {
  readonly receipt: string;
  /** The keyed SHA-256 of the id (never the id). */
  readonly participantHash: string;
  readonly reason: string;
  /** Who deleted: the person's email, or `researcher` for the bootstrap token. */
  readonly by: string;
  readonly at: number;
  readonly studies: readonly StudyDeletion[];
  /** The rows deleted over every study. */
  readonly total: DeletedCounts;
}

/** One of a participant's sessions, as `POST /api/admin/participants/find` lists it. */
export interface ParticipantSessionView {
  readonly sessionId: string;
  readonly studyVersion: number;
  readonly stage: string;
  readonly state: string;
  readonly createdAt: number;
  /** Which params name held the id: `PROLIFIC_PID`, `workerId` or `participantId`. */
  readonly param: string;
}

/** `POST /api/admin/participants/find`: every session of the id in the studies the caller may manage. */
export interface ParticipantSearch {
  /** The keyed SHA-256 of the id, as the audit trail and the receipt will name it. */
  readonly participantHash: string;
  readonly studies: readonly {
    readonly studyId: string;
    readonly title: string;
    readonly sessions: readonly ParticipantSessionView[];
    /** Exports of the study written since the participant's first session in it began. */
    readonly exports: readonly ExportWritten[];
  }[];
}

/** `PUT /api/admin/studies/:studyId/stage`. */
export interface StageChange {
  readonly studyId: string;
  readonly from: string;
  readonly stage: string;
  /** False when the study was in that stage already (nothing recorded). */
  readonly changed: boolean;
}

/** What a lab member did, as the audit trail names it. */
export type AuditAction =
  | 'session.exclude'
  | 'session.include'
  | 'session.delete'
  | 'study.delete'
  | 'grader.add'
  | 'grader.revoke'
  | 'grade.adjudicate'
  | 'study.create'
  | 'study.edit'
  | 'export.create'
  | 'export.written'
  | 'member.put'
  | 'member.delete'
  /** A study moved to another stage (`detail`: `{from, to}`). */
  | 'study.stage'
  /** A participant's sessions deleted on request (target: `participant:<hash>`, never the id). */
  | 'participant.delete'
  /** Any other write of a lab member, named by its route (`POST /admin/...`). */
  | `${'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;

/** One entry of `GET /api/admin/studies/:id/audit`: a researcher's action on the study or one of its sessions. */
export interface AuditEntry {
  readonly id: number;
  readonly studyId: string;
  /** Who: the person's email, or `researcher` for the researcher token. */
  readonly actor: string;
  /** The person's id; null for the researcher token. */
  readonly personId?: string | null;
  /** The credential used: `session:<id>`, `token:<id>` or `admin-token`. */
  readonly credential?: string | null;
  readonly action: AuditAction;
  /** The session id, or the study id for `study.delete`. */
  readonly target: string;
  readonly reason: string | null;
  /** What the action changed (deletions: `{deleted: DeletedCounts}`). */
  readonly detail: Readonly<Record<string, unknown>>;
  /** Ms since the epoch. */
  readonly at: number;
}

/** One study's human baselines for one version of a game (`GET /api/admin/games/:gameId/baselines`). */
export interface StudyGameBaselines {
  readonly study: string;
  readonly title: string;
  readonly item: string;
  /** The game version its logs were recorded on; null when the server did not say. */
  readonly version: string | null;
  /** Whether `version` is the one the server runs now. */
  readonly current: boolean;
  /** Counted players whose log verified. */
  readonly participants: number;
  /** Levels numbered from 1, as the results number them. */
  readonly levels: {
    readonly level: number;
    readonly reached: number;
    readonly completed: number;
    /** Per completer: scorecard actions on the level. */
    readonly actions: Dist;
    /** Per completer: milliseconds from entering the level to completing it. */
    readonly timeMs: Dist;
    readonly baselines: Record<BaselinePresetName, BaselineResult>;
  }[];
}

/** `GET /api/admin/games/:gameId/baselines`: the game's baselines from every study playing it. */
export interface GameBaselinesView {
  readonly game: string;
  readonly studies: StudyGameBaselines[];
}

/** A reference group of a game: human runs recorded elsewhere (`GET /api/admin/games/:gameId/references`). */
export interface ReferenceGroupView {
  readonly name: string;
  /** The game's full official id. */
  readonly game: string;
  /** The version the recordings were replayed on at import (`<id>@<code hash>`). */
  readonly version: string;
  /** Whether `version` is the one the server runs now. */
  readonly current: boolean;
  readonly recordings: number;
  /** Ms since the epoch. */
  readonly createdAt: number;
  /** Who imported it: an email, or `researcher` for the researcher token. */
  readonly createdBy: string;
  /** Levels numbered from 1, as the results number them. */
  readonly levels: ReferenceLevelRow[];
}

/** `GET /api/admin/games/:gameId/references`: the game's reference groups. */
export interface ReferenceGroupsView {
  readonly game: string;
  readonly groups: ReferenceGroupView[];
}
