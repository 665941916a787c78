/**
 * Keeps the stored session digests up to date in the background, so that a study's results are
 * added up from stored digests instead of replaying logs on the researcher's request:
 *
 * - a session that ends (finished, withdrawn) has its study's settled sessions digested a moment
 *   later (several endings close together make one run);
 * - at start and then every `SWEEP_EVERY_MS`, every study's settled sessions are checked, so that
 *   a new analysis version (or a changed task or game) is computed again before anyone asks, and
 *   sessions that went quiet are digested too.
 *
 * One run per study at a time: a results request arriving during a background run on its study
 * waits for it and then digests only what is left. `progress(studyId)` is what the studio shows
 * meanwhile (`GET /api/admin/studies/:id/results/progress`).
 */
import { refreshSettledDigests, type DigestProgressFn, type ResultsDeps } from './studyDigests';

/** Why digests are being computed: a results request, sessions that ended, or the periodic check. */
export type DigestRunReason = 'results' | 'ended' | 'update';

export interface DigestProgress {
  readonly reason: DigestRunReason;
  /** Sessions digested so far in this run, of `total` that were out of date. */
  readonly done: number;
  readonly total: number;
  readonly startedAt: number;
}

/** How long after a session ends its study's digests are brought up to date. */
export const ENDED_DELAY_MS = 2_000;
/** How often every study's settled sessions are checked. */
export const SWEEP_EVERY_MS = 10 * 60_000;

export class DigestMaintainer {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly current = new Map<string, DigestProgress>();
  private readonly pendingEnded = new Map<string, NodeJS.Timeout>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: () => ResultsDeps,
    private readonly log: (line: string) => void = () => {},
    private readonly opts: { endedDelayMs?: number; sweepEveryMs?: number } = {},
  ) {}

  /**
   * Runs `work` on a study's digests after every earlier run on the same study has ended,
   * reporting its progress; its result (or error) is the caller's.
   */
  /** Whether a run on the study is under way or waiting. */
  busy(studyId: string): boolean {
    return this.tails.has(studyId);
  }

  run<T>(studyId: string, reason: DigestRunReason, work: (progress: DigestProgressFn) => Promise<T>): Promise<T> {
    const before = this.tails.get(studyId) ?? Promise.resolve();
    const mine = before
      .catch(() => {})
      .then(async () => {
        const startedAt = Date.now();
        this.current.set(studyId, { reason, done: 0, total: 0, startedAt });
        try {
          return await work((done, total) => this.current.set(studyId, { reason, done, total, startedAt }));
        } finally {
          this.current.delete(studyId);
        }
      });
    const tail = mine.catch(() => {});
    this.tails.set(studyId, tail);
    void tail.then(() => {
      if (this.tails.get(studyId) === tail) this.tails.delete(studyId);
    });
    return mine;
  }

  /** The run on a study's digests under way, or null when none is. */
  progress(studyId: string): DigestProgress | null {
    return this.current.get(studyId) ?? null;
  }

  /** A session of the study ended: its settled sessions are digested shortly. */
  sessionEnded(studyId: string): void {
    if (this.stopped || this.pendingEnded.has(studyId)) return;
    const timer = setTimeout(() => {
      this.pendingEnded.delete(studyId);
      void this.refresh(studyId, 'ended');
    }, this.opts.endedDelayMs ?? ENDED_DELAY_MS);
    timer.unref();
    this.pendingEnded.set(studyId, timer);
  }

  /** Checks every study now, then every `SWEEP_EVERY_MS`. */
  start(): void {
    if (this.stopped || this.sweepTimer) return;
    void this.sweep();
    this.sweepTimer = setInterval(() => {
      void this.sweep();
    }, this.opts.sweepEveryMs ?? SWEEP_EVERY_MS);
    this.sweepTimer.unref();
  }

  /** Brings every study's settled sessions up to date, one study after another. */
  sweep(): Promise<void> {
    if (!this.sweeping) {
      this.sweeping = (async () => {
        try {
          const studies = await this.deps().store.listStudies();
          for (const study of studies) {
            if (this.stopped) return;
            await this.refresh(study.id, 'update');
          }
        } catch (e) {
          if (!this.stopped)
            this.log(
              `Checking the studies' session digests failed (results are computed on request instead): ${e instanceof Error ? e.message : String(e)}`,
            );
        } finally {
          this.sweeping = null;
        }
      })();
    }
    return this.sweeping;
  }

  private async refresh(studyId: string, reason: DigestRunReason): Promise<void> {
    if (this.stopped) return;
    try {
      // A stopping server ends a background run after the session at hand.
      const r = await this.run(studyId, reason, (progress) =>
        refreshSettledDigests(this.deps(), studyId, (done, total) => {
          if (this.stopped) throw new Error('the server is stopping');
          progress(done, total);
        }),
      );
      if ('digested' in r && r.digested > 0 && reason === 'update')
        this.log(`Study ${studyId}: ${r.digested} session digest${r.digested === 1 ? '' : 's'} brought up to date.`);
    } catch (e) {
      // Left to the next results request, which computes what is missing.
      if (!this.stopped)
        this.log(
          `Study ${studyId}: digesting its sessions in the background failed (its results are computed on request instead): ${e instanceof Error ? e.message : String(e)}`,
        );
    }
  }

  /** Stops the timers and waits for the runs under way (a background run stops after its session at hand). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    for (const t of this.pendingEnded.values()) clearTimeout(t);
    this.pendingEnded.clear();
    await Promise.all([...this.tails.values()]);
  }
}
