/**
 * A campaign's figures (`GET /api/admin/studies/:id/campaign`) and its payments, from each
 * candidate's counters over the whole campaign (kept by the database as claims are made and
 * settled), the claims of this study's sessions and those still held, and the per-session
 * digests the results use. Pure: the server gathers the inputs.
 *
 * The rules, as `CampaignView.rule` and docs/api.md state them:
 * - `solves`: distinct participants (platform id, else the session) whose claim settled `solved`
 *   in a session not excluded; `attempts`: such claims settled `solved` or `attempted`.
 * - status `met`: the target is reached. `revise`: a `solves` target attempted the pool's
 *   `reviseAfter` times without a solve, so no longer drawn (`core/study/draw.ts`, rule 2).
 *   `never_solved`: at least the target's number of attempts and no solve (still drawn).
 *   `needs_more`: the others.
 * - participants still needed: `core/analysis/estimate.ts`.
 * - a level is a drop-off when at least `DROP_OFF_MIN_REACHED` reached it and the share of them
 *   who completed it is at most half the share of the level before (level 1: of all).
 */
import type {
  CampaignCandidateView,
  CampaignLevelView,
  CampaignLiveSession,
  CampaignVersionView,
  CampaignView,
  CandidateStatus,
  PaymentsView,
  SessionPayment,
} from '../protocol/campaign';
import { type ClaimState, isRetired, progressOf, targetCount } from '../study/draw';
import type { Payment, PoolPlan, StudyDefinition, StudyItem } from '../study/schema';
import { type CandidateRecord, campaignNeed, candidateNeed } from './estimate';
import type { SessionDigest } from './results';
import { quantile } from './dist';
import { csvRecord } from '../formats/csv';
import { isSignalFlag, signalsOf } from './signals';
import { RETURN_FLAGS } from '../study/prolific';
import { MAIN_STAGE } from '../study/stages';

const RETURN_FLAG_SET: ReadonlySet<string> = new Set(Object.values(RETURN_FLAGS));

/** Fewest players who reached a level before it may be flagged as a drop-off. */
export const DROP_OFF_MIN_REACHED = 3;

/** A claim as the figures read it. */
export interface CampaignClaim {
  readonly sessionId: string;
  readonly candidate: string;
  readonly participant: string | null;
  readonly state: ClaimState;
  readonly excluded: boolean;
  /** Held by a session still in progress (neither ended, silent past its limit, nor out of time). */
  readonly inFlight: boolean;
}

/** A session of the study as the figures read it. */
export interface CampaignSession {
  readonly id: string;
  readonly params: Readonly<Record<string, string>>;
  /** The state now (`effectiveState`). */
  readonly state: string;
  readonly inFlight: boolean;
  readonly excluded: boolean;
  readonly flags: readonly string[];
  readonly createdAt: number;
  /** The study's stage when it started; absent: `main`. */
  readonly stage?: string;
  /** Its digest; null when it could not be computed (its study version is gone). */
  readonly digest: SessionDigest | null;
  /** The candidate it is on now (in progress only), else null. */
  readonly current: string | null;
  /**
   * By game item id, the code version its first run was opened on (`<game id>@<code hash>`, as
   * the run recorded it) and when; absent for built-in games, whose version is in their log.
   */
  readonly gameRuns?: Readonly<Record<string, { readonly version: string; readonly at: number }>>;
}

/**
 * A candidate's counts over the whole campaign, as the database keeps them: `drawn` every claim;
 * `attempts` claims settled solved or attempted, `solves` distinct participants (else sessions)
 * with one settled solved, `settled` claims settled solved, attempted or released, each in
 * sessions not excluded.
 */
export interface CandidateCounts {
  readonly drawn: number;
  readonly attempts: number;
  readonly solves: number;
  readonly settled: number;
}

const NO_COUNTS: CandidateCounts = { drawn: 0, attempts: 0, solves: 0, settled: 0 };

export interface CampaignInput {
  readonly studyId: string;
  readonly campaignId: string | null;
  /** The study's latest version, as sessions run it. */
  readonly study: StudyDefinition;
  /** The claims of this study's sessions and every claim of the campaign still held (more do no harm). */
  readonly claims: readonly CampaignClaim[];
  /** Each candidate's counts over the campaign, by id (none: never drawn). */
  readonly counts: ReadonlyMap<string, CandidateCounts>;
  /** Claims of the campaign started (not skipped) and the sessions that made them: the draws a session makes on average. */
  readonly draws: { readonly started: number; readonly sessions: number };
  /** This study's sessions. */
  readonly sessions: readonly CampaignSession[];
  /** A game's level count; null when unknown. */
  readonly gameLevels: (game: string) => number | null;
  /** The version of a game mounted now, as runs record it (`<game id>@<code hash>`); null when unknown. */
  readonly gameVersionNow?: (game: string) => string | null;
  readonly now: number;
}

const median = (values: readonly number[]): number | null =>
  values.length
    ? quantile(
        [...values].sort((a, b) => a - b),
        0.5,
      )
    : null;

/** The inclusion rule in words. */
export function ruleText(pool: Pick<PoolPlan, 'target' | 'reviseAfter' | 'fill'>): string {
  const { target } = pool;
  const n = targetCount(target);
  const s = (k: number) => (k === 1 ? '' : 's');
  const kept =
    'solves' in target
      ? `kept when ${n} different participant${s(n)} solve it fully; never solved after ${n} attempt${s(n)} ` +
        `without a solve; revise (no longer drawn) after ${pool.reviseAfter} attempt${s(pool.reviseAfter)} without a solve`
      : `kept when attempted ${n} time${s(n)}`;
  const fill =
    pool.fill === 'fast'
      ? 'filled fast (any number of sessions may hold a candidate at once)'
      : 'paced (no more sessions hold a candidate at once than it still needs at its observed rate)';
  return (
    `${kept}; ${fill}; a level is a drop-off when at least ${DROP_OFF_MIN_REACHED} reached it and at most half as ` +
    `large a share completed it as the level before`
  );
}

interface Play {
  readonly actions: number | null;
  readonly ms: number | null;
  readonly levels: readonly { completed: boolean; actions: number; ms: number | null }[] | null;
  readonly version: string;
  /** When it was first played on that version: its first run, else its session's start (ms). */
  readonly at: number;
}

/** What one session's digest says of one candidate item: null when it did not play it. */
function playOf(item: StudyItem, session: CampaignSession): Play | null {
  const { digest } = session;
  if (!digest) return null;
  const at = session.createdAt;
  if (item.kind === 'task') {
    const t = digest.tasks[item.id];
    if (!t || !t.attempted) return null;
    // An edited task file is another version: the content hash its judged submissions recorded.
    const version = `${item.collection}/${item.task}${t.version ? `@${t.version}` : ''}`;
    return { actions: t.actions, ms: t.solveMs, levels: null, version, at };
  }
  if (item.kind === 'game') {
    const g = digest.games[item.id];
    if (!g) return null;
    const levels = g.detail
      ? g.detail.levels.map((l, k) => ({ completed: l.completed, actions: l.actions, ms: g.detail!.timeMs[k] ?? null }))
      : null;
    const actions = levels ? levels.reduce((n, l) => n + l.actions, 0) : null;
    const ms = levels && levels.every((l) => l.ms !== null) ? levels.reduce((n, l) => n + (l.ms ?? 0), 0) : null;
    // A server-run game keeps its id when its code changes: the run's record says which code it was.
    const run = session.gameRuns?.[item.id];
    return { actions, ms, levels, version: run?.version ?? g.version ?? item.game, at: run?.at ?? at };
  }
  if (item.kind === 'question') {
    const q = digest.questions[item.id];
    if (!q || !q.opened) return null;
    return { actions: null, ms: q.timeMs, levels: null, version: item.id, at };
  }
  return null;
}

/** The per-level funnel of the plays given, `levelCount` levels at least. */
export function levelFunnel(plays: readonly Pick<Play, 'levels'>[], levelCount: number): CampaignLevelView[] {
  const runs = plays.flatMap((p) => (p.levels ? [p.levels] : []));
  const n = Math.max(levelCount, ...runs.map((r) => r.length));
  const out: CampaignLevelView[] = [];
  for (let k = 0; k < n; k++) {
    const reached = runs.filter((r) => r.length > k);
    const done = reached.filter((r) => r[k].completed);
    const share = reached.length ? done.length / reached.length : 0;
    const before = k === 0 ? 1 : out[k - 1].reached ? out[k - 1].completed / out[k - 1].reached : 0;
    out.push({
      level: k + 1,
      reached: reached.length,
      completed: done.length,
      medianActions: median(done.map((r) => r[k].actions)),
      medianSeconds: median(done.flatMap((r) => (r[k].ms === null ? [] : [r[k].ms! / 1000]))),
      dropOff: reached.length >= DROP_OFF_MIN_REACHED && before > 0 && share <= before / 2,
    });
  }
  return out;
}

function statusOf(pool: PoolPlan, solves: number, attempts: number): CandidateStatus {
  const { target } = pool;
  const goal = targetCount(target);
  if (progressOf({ solves, attempts }, target) >= goal) return 'met';
  if (isRetired({ solves, attempts }, target, pool.reviseAfter)) return 'revise';
  if (solves === 0 && attempts >= goal) return 'never_solved';
  return 'needs_more';
}

/** The campaign view of a study (see the module comment for the rules). */
export function campaignView(input: CampaignInput): CampaignView {
  const { study } = input;
  const claimsOf = new Map<string, CampaignClaim[]>();
  for (const c of input.claims) {
    const list = claimsOf.get(c.candidate);
    if (list) list.push(c);
    else claimsOf.set(c.candidate, [c]);
  }
  const sessionById = new Map(input.sessions.map((s) => [s.id, s]));
  const candidates: CampaignCandidateView[] = [];
  const needs: CampaignCandidateView['needed'][] = [];

  for (const pool of study.pools) {
    for (const index of pool.candidates) {
      const item = study.items[index];
      const mine = claimsOf.get(item.id) ?? [];
      const { drawn, solves, attempts, settled } = input.counts.get(item.id) ?? NO_COUNTS;
      const counted = mine.filter((c) => !c.excluded && (c.state === 'solved' || c.state === 'attempted'));
      const inProgress = mine.filter((c) => c.state === 'held' && c.inFlight).length;
      // The plays of this study's sessions that counted, with whether each was a solve.
      const plays: (Play & { solved: boolean })[] = [];
      for (const c of counted) {
        const s = sessionById.get(c.sessionId);
        const play = s ? playOf(item, s) : null;
        if (play) plays.push({ ...play, solved: c.state === 'solved' });
      }
      const solvedPlays = plays.filter((p) => p.solved);
      const levelCount = item.kind === 'game' ? (input.gameLevels(item.game) ?? 0) : 0;
      const levels = item.kind === 'game' ? levelFunnel(plays, levelCount) : undefined;
      const now = item.kind === 'game' ? (input.gameVersionNow?.(item.game) ?? null) : null;
      const firstAt = new Map<string, number>();
      for (const p of plays) firstAt.set(p.version, Math.min(p.at, firstAt.get(p.version) ?? Infinity));
      // The mounted version is listed before anyone played it, so the page shows what runs now.
      const versionIds = [...firstAt.keys()].sort((a, b) => firstAt.get(a)! - firstAt.get(b)!);
      if (now !== null && !firstAt.has(now)) versionIds.push(now);
      const versions: CampaignVersionView[] = versionIds.map((version) => {
        const of = plays.filter((p) => p.version === version);
        const solvedOf = of.filter((p) => p.solved);
        return {
          version,
          mounted: now === null ? versionIds.length === 1 : version === now,
          firstPlayedAt: firstAt.get(version) ?? null,
          attempts: of.length,
          solves: solvedOf.length,
          medianActions: median(solvedOf.flatMap((p) => (p.actions === null ? [] : [p.actions]))),
          medianSeconds: median(solvedOf.flatMap((p) => (p.ms === null ? [] : [p.ms / 1000]))),
          ...(item.kind === 'game' ? { levels: levelFunnel(of, levelCount) } : {}),
        };
      });
      const record: CandidateRecord = {
        goal: targetCount(pool.target),
        progress: progressOf({ solves, attempts }, pool.target),
        settled,
        inFlight: inProgress,
        retired: isRetired({ solves, attempts }, pool.target, pool.reviseAfter),
      };
      const need = candidateNeed(record);
      needs.push(need);
      candidates.push({
        id: item.id,
        pool: pool.id,
        kind: item.kind as CampaignCandidateView['kind'],
        label:
          item.kind === 'task'
            ? item.task
            : item.kind === 'game'
              ? item.game
              : item.kind === 'question'
                ? (item.question ?? item.title ?? item.id)
                : item.id,
        target: pool.target,
        drawn,
        inProgress,
        attempts,
        solves,
        status: statusOf(pool, solves, attempts),
        medianActions: median(solvedPlays.flatMap((p) => (p.actions === null ? [] : [p.actions]))),
        medianSeconds: median(solvedPlays.flatMap((p) => (p.ms === null ? [] : [p.ms / 1000]))),
        needed: need,
        ...(levels ? { levels } : {}),
        versions,
      });
    }
  }
  // Draws a session makes on average (claims it started), else what the pools draw.
  const perSession = input.draws.sessions
    ? input.draws.started / input.draws.sessions
    : study.pools.reduce((n, p) => n + (p.draw === 'time' ? 1 : p.draw), 0);
  const needed = campaignNeed(needs, perSession);

  const live: CampaignLiveSession[] = input.sessions
    .filter((s) => s.inFlight)
    .map((s) => ({
      sessionId: s.id,
      participant: participantOf(s.params),
      candidate: s.current,
      startedAt: s.createdAt,
    }));
  return {
    studyId: input.studyId,
    campaignId: input.campaignId,
    rule: study.pools.length ? ruleText(study.pools[0]) : '',
    generatedAt: input.now,
    participants: {
      inProgress: live.length,
      finished: input.sessions.filter(
        (s) => (s.state === 'finished' || s.state === 'timed_out') && !s.flags.some((f) => RETURN_FLAG_SET.has(f)),
      ).length,
      returned: input.sessions.filter((s) => s.flags.includes(RETURN_FLAGS.RETURNED)).length,
      timedOut: input.sessions.filter((s) => s.flags.includes(RETURN_FLAGS['TIMED-OUT'])).length,
      total: input.sessions.length,
      live,
    },
    candidates,
    participantsNeeded: needed.participants,
    needed,
    signals: input.sessions
      .map((s) => ({ sessionId: s.id, participant: participantOf(s.params), signals: signalsOf(s.flags) }))
      .filter((s) => s.signals.length > 0),
  };
}

/** The participant's platform id as the bonus file names them: Prolific's, MTurk's or the study link's own. */
export function participantOf(params: Readonly<Record<string, string>>): string | null {
  return params.PROLIFIC_PID || params.workerId || params.participantId || null;
}

/**
 * Flags that do not hold back a bonus: a returning participant is a campaign's normal case, and
 * a signal of help or low effort is a reason for the researcher to look, not a verdict.
 */
const BENIGN_FLAGS = new Set(['repeat_participant']);
const holdsBack = (flag: string) => !BENIGN_FLAGS.has(flag) && !isSignalFlag(flag);

/**
 * Each session's bonus under the study's payment rule: `perSolve` per candidate solved (its claim
 * settled `solved`) plus `perLevel` per game level completed (verified logs), at most `max`,
 * in cents. A session counts (goes in the bonus file) when it finished or ran out of time, is
 * not excluded, carries no flag but `repeat_participant` and signals, and has a participant id.
 * Its signals are listed beside it either way.
 */
export function paymentsView(
  study: StudyDefinition,
  sessions: readonly CampaignSession[],
  claims: readonly CampaignClaim[],
): PaymentsView {
  const payment: Payment = study.payment ?? { currency: 'GBP', fee: 0, bonus: { perSolve: 0, perLevel: 0 } };
  const solvedBy = new Map<string, number>();
  for (const c of claims) if (c.state === 'solved') solvedBy.set(c.sessionId, (solvedBy.get(c.sessionId) ?? 0) + 1);
  const out: SessionPayment[] = sessions.map((s) => {
    const solved = solvedBy.get(s.id) ?? 0;
    const levels = s.digest
      ? Object.values(s.digest.games).reduce(
          (n, g) => n + (g.detail ? g.detail.levels.filter((l) => l.completed).length : 0),
          0,
        )
      : 0;
    const raw = solved * payment.bonus.perSolve + levels * payment.bonus.perLevel;
    const bonus = Math.round(Math.min(raw, payment.bonus.max ?? Infinity) * 100) / 100;
    const id = participantOf(s.params);
    // Only ids a bonus file can hold as they are (Prolific's are hex): no comma, quote or line break.
    const participant = id !== null && /^[A-Za-z0-9_.@-]{1,200}$/.test(id) ? id : null;
    const flagged = s.flags.some(holdsBack);
    const reason: SessionPayment['reason'] = s.excluded
      ? 'excluded'
      : flagged
        ? 'flagged'
        : s.state !== 'finished' && s.state !== 'timed_out'
          ? 'not_finished'
          : participant === null
            ? 'no_participant_id'
            : undefined;
    return {
      sessionId: s.id,
      participant,
      stage: s.stage ?? MAIN_STAGE,
      solved,
      levels,
      bonus,
      counts: reason === undefined,
      ...(reason ? { reason } : {}),
      signals: signalsOf(s.flags),
    };
  });
  const total = Math.round(out.filter((p) => p.counts).reduce((n, p) => n + p.bonus, 0) * 100) / 100;
  return { currency: payment.currency, fee: payment.fee, sessions: out, total };
}

/**
 * The Prolific bulk-bonus file: one `participant_id,amount` line per participant (their counting
 * sessions' bonuses summed), amounts with two decimals, no header, none for a zero bonus.
 */
export function bonusFile(payments: PaymentsView): string {
  const per = new Map<string, number>();
  for (const p of payments.sessions)
    if (p.counts && p.participant !== null) per.set(p.participant, (per.get(p.participant) ?? 0) + p.bonus);
  return [...per]
    .filter(([, amount]) => amount > 0)
    .map(([id, amount]) => `${id},${amount.toFixed(2)}\n`)
    .join('');
}

/** The format version of the payments file (`PAYMENTS_COLUMNS`). 2: `stage` after `participant_id`. */
export const PAYMENTS_VERSION = 2;

/** The columns of the payments file, one record per session (docs/formats/schemas/payments.schema.json). */
export const PAYMENTS_COLUMNS = [
  'session_id',
  'participant_id',
  'stage',
  'solved',
  'levels',
  'fee',
  'bonus',
  'currency',
  'counts',
  'reason',
  'signals',
] as const;

/**
 * The payments file: every session with its fee and bonus, whether the bonus file pays it, why
 * not, and its signals of help and low effort, so they are seen before paying.
 */
export function paymentsCsv(p: PaymentsView): string {
  let out = csvRecord(PAYMENTS_COLUMNS);
  for (const s of p.sessions)
    out += csvRecord([
      s.sessionId,
      s.participant ?? '',
      s.stage,
      s.solved,
      s.levels,
      p.fee.toFixed(2),
      s.bonus.toFixed(2),
      p.currency,
      String(s.counts),
      s.reason ?? '',
      s.signals.join('; '),
    ]);
  return out;
}
