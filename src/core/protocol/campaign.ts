/**
 * The campaign on the wire: `GET /api/admin/studies/:id/campaign` (researcher token), the live
 * view of a study's pools. Every figure is an aggregate of the per-session summaries, recomputed
 * from the raw logs in tests. Described in docs/api.md ("Campaigns").
 */
import type { PoolTarget } from '../study/schema';

/** Where a candidate stands against its pool's inclusion rule. */
export type CandidateStatus =
  /** The target is reached (for solves: N different participants solved it fully). */
  | 'met'
  /** Not reached yet; it is still drawn. */
  | 'needs_more'
  /** Attempted often with a drop-off level or a low solve rate: send it back to its designer. */
  | 'revise'
  /** Attempted at least the target's worth of times and never solved. */
  | 'never_solved';

/** One level of a game candidate: how many reached and completed it. */
export interface CampaignLevelView {
  /** 1-based level number. */
  readonly level: number;
  /** Counted attempts that reached this level. */
  readonly reached: number;
  /** Counted attempts that completed this level. */
  readonly completed: number;
  /** Median actions of those that completed it (official counting), null when none did. */
  readonly medianActions: number | null;
  /** Median seconds on the level of those that completed it, null when none did. */
  readonly medianSeconds: number | null;
  /** Completion falls sharply here compared with the level before: a mechanic may be unclear. */
  readonly dropOff: boolean;
}

/** A candidate's history for one version of its task or game. */
export interface CampaignVersionView {
  /**
   * The version: a server-run game's id and the code hash its runs recorded
   * (`ls20-9607627b@3f2a9c01d4e5`), a built-in game's versioned id (`push-<hash>`), a task's
   * `collection/task`.
   */
  readonly version: string;
  /** Whether sessions starting now play this version (a game's code mounted now; the only version otherwise). */
  readonly mounted: boolean;
  /** When a counted attempt first played it (ms since the epoch); null when none has yet. */
  readonly firstPlayedAt: number | null;
  readonly attempts: number;
  readonly solves: number;
  readonly medianActions: number | null;
  readonly medianSeconds: number | null;
  /** Games only. */
  readonly levels?: readonly CampaignLevelView[];
}

export interface CampaignCandidateView {
  /** The candidate's item id (as in the session's item list and the logs). */
  readonly id: string;
  /** The pool it belongs to. */
  readonly pool: string;
  readonly kind: 'task' | 'game' | 'question';
  /** What it shows: the task id, game id or question id. */
  readonly label: string;
  readonly target: PoolTarget;
  /** Sessions that drew it (claims made). */
  readonly drawn: number;
  /** Drawn by sessions still in progress and not yet counted. */
  readonly inProgress: number;
  /** Counted attempts (the study's attempt rule). */
  readonly attempts: number;
  /** Distinct participants who fully solved it. */
  readonly solves: number;
  readonly status: CandidateStatus;
  readonly medianActions: number | null;
  readonly medianSeconds: number | null;
  /** The participants it still needs (`core/analysis/estimate.ts`). */
  readonly needed: CandidateNeedView;
  /** Games: per-level funnel over every version; per version in `versions`. */
  readonly levels?: readonly CampaignLevelView[];
  /** One entry per version played in this study, oldest first, and the one mounted now (one entry when never revised). */
  readonly versions: readonly CampaignVersionView[];
}

/**
 * The participants a candidate still needs (docs/researchers.md, "Participants still needed"):
 * none (`met`), none that help (`retired`: status `revise`, no longer drawn), an estimate with its
 * 95% interval (`high` null: unbounded), or none yet (`unknown`: fewer settled draws than the
 * estimate needs, or no progress at all).
 */
export type CandidateNeedView =
  | { readonly state: 'met' }
  | { readonly state: 'retired' }
  | {
      readonly state: 'estimated';
      /** Progress per settled draw. */
      readonly rate: number;
      readonly participants: number;
      readonly low: number;
      readonly high: number | null;
    }
  | { readonly state: 'unknown'; readonly reason: 'thin_record' | 'no_progress'; readonly settled: number };

/** The participants the campaign still needs, with the method in words. */
export interface CampaignNeededView {
  /** Null while any candidate still drawn cannot be estimated (`unknown` of them). */
  readonly participants: number | null;
  readonly low: number | null;
  /** Null when unbounded or not estimated. */
  readonly high: number | null;
  /** What the candidates that can be estimated need at least (their interval's low end). */
  readonly atLeast: number;
  /** Candidates still drawn whose need cannot be estimated yet. */
  readonly unknown: number;
  readonly method: string;
}

/** A participant in progress: which candidate they are on. */
export interface CampaignLiveSession {
  readonly sessionId: string;
  readonly participant: string | null;
  /** The candidate item id they are on, or null between candidates / on a fixed item. */
  readonly candidate: string | null;
  readonly startedAt: number;
}

/** `GET /api/admin/studies/:id/campaign`. */
export interface CampaignView {
  readonly studyId: string;
  readonly campaignId: string | null;
  /** The inclusion rule in words, e.g. "kept when 2 different participants solve it fully". */
  readonly rule: string;
  readonly generatedAt: number;
  readonly participants: {
    readonly inProgress: number;
    readonly finished: number;
    /** Sessions ended because Prolific reported their submission returned (flag `prolific_returned`). */
    readonly returned: number;
    /** Sessions ended because Prolific reported their submission timed out (flag `prolific_timed_out`). */
    readonly timedOut: number;
    readonly total: number;
    readonly live: readonly CampaignLiveSession[];
  };
  readonly candidates: readonly CampaignCandidateView[];
  /** `needed.participants`: participants still needed to bring every candidate still drawn to its target. */
  readonly participantsNeeded: number | null;
  readonly needed: CampaignNeededView;
  /** Every session of the study with signals of help or low effort, oldest first. */
  readonly signals: readonly CampaignSignalSession[];
}

/** One session's payment (`GET /api/admin/studies/:id/campaign/payments`). */
export interface SessionPayment {
  readonly sessionId: string;
  readonly participant: string | null;
  /** The study's stage when the session started. */
  readonly stage: string;
  readonly solved: number;
  readonly levels: number;
  readonly bonus: number;
  /** Whether it goes in the bonus file; excluded and flagged sessions are listed apart. */
  readonly counts: boolean;
  readonly reason?: 'excluded' | 'flagged' | 'no_participant_id' | 'not_finished';
  /**
   * The session's signals of help and low effort (`pasted_text:<item>`, ...; docs/researchers.md):
   * reasons to look before paying, which never keep a session out of the bonus file by themselves.
   */
  readonly signals: readonly string[];
}

/** A session with signals of help or low effort, as the campaign view lists it. */
export interface CampaignSignalSession {
  readonly sessionId: string;
  readonly participant: string | null;
  readonly signals: readonly string[];
}

export interface PaymentsView {
  readonly currency: string;
  readonly fee: number;
  readonly sessions: readonly SessionPayment[];
  /** Sum of the bonuses of the sessions that count (what the bonus file pays). */
  readonly total: number;
  /** The bonuses paid through Prolific (the ledger); present on `GET .../campaign/payments`. */
  readonly ledger?: PaymentLedger;
}

/**
 * One participant in the bonus ledger: what the bonus file owes them (`amount`), what was paid
 * through Prolific (`paid_amount`; `paid` once it covers `amount`), what is on its way, and
 * Prolific's ids (their submission, the bulk bonuses that hold them).
 */
export interface LedgerParticipant {
  readonly participant_id: string;
  readonly amount: number;
  readonly paid: boolean;
  readonly paid_amount: number;
  /** In bulk bonuses set up or sent and not confirmed paid yet. */
  readonly pending_amount: number;
  readonly state: 'paid' | 'unpaid' | 'pending' | 'unconfirmed';
  readonly submission_id: string | null;
  readonly bulk_bonus_ids: readonly string[];
}

/** One bulk bonus of the ledger. */
export interface LedgerBatch {
  readonly id: string;
  /** Prolific's id of the bulk bonus; null before Prolific set it up. */
  readonly bulk_bonus_id: string | null;
  readonly state: 'intent' | 'created' | 'paying' | 'paid' | 'unconfirmed' | 'failed';
  readonly participants: number;
  readonly amount: number;
  readonly error: string | null;
  readonly created_at: number;
  readonly updated_at: number;
}

export interface PaymentLedger {
  /** Prolific's study id (the study's `prolific.studyId`); null when the study names none. */
  readonly prolific_study_id: string | null;
  readonly participants: readonly LedgerParticipant[];
  readonly batches: readonly LedgerBatch[];
  /** Sum of `amount` not paid yet (neither paid nor pending). */
  readonly unpaid: number;
}

/** `POST /api/admin/studies/:id/campaign/bonuses/pay`: what this call did, and the ledger after it. */
export interface PayBonusesResult {
  /** Participants paid by this call. */
  readonly paid: number;
  /** Sum paid by this call. */
  readonly amount: number;
  /** Participants whose bonus is owed but who have no submission in the Prolific study. */
  readonly notOnProlific: readonly string[];
  /** What went wrong, each with what to do; empty when all went through. */
  readonly errors: readonly string[];
  readonly ledger: PaymentLedger;
}
