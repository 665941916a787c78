/**
 * Runs of ARC-AGI-3 games the server ran for sessions, their steps, and the game code they ran on
 * (`GameRunStore`). Steps are written in the group commit (`groupCommit.ts`), each only after the
 * step before it, so a run's stored steps never have a gap; the same SQL on PGlite and PostgreSQL.
 */
import type { Driver } from './driver';
import { json, ms, type Row } from './columns';
import { type GroupCommit, type GroupMember, storeGroupCommit } from './groupCommit';
import { keysetJsonPage, keysetPage } from './keyset';
import {
  SessionChanged,
  type GameCodeFiles,
  type GameRunRecord,
  type GameRunStore,
  type GameStepRecord,
  type JsonPage,
  type SessionStamp,
  type StepOutcome,
  type StepToStore,
  type StudyFirstRun,
  type StudyGameVersion,
} from './types';

/** A stored step as `readGameSteps` answers it, as the database's JSON (`Store.readGameStepsJson`). */
const STEP_JSON = `json_build_object('runId', run_id, 'step', step, 'action', action, 'x', x, 'y', y,
  'state', state, 'levelsCompleted', levels_completed, 'winLevels', win_levels, 'available', available,
  'fullReset', full_reset, 'frameHash', frame_hash, 'frames', frames, 'keyframe', keyframe,
  'at', floor(extract(epoch FROM at) * 1000))`;

/**
 * The steps of many runs in one statement, several consecutive steps of a run among them. A step
 * whose write names its session's stamp is stored only while the row still has it (the admission
 * it was taken on still holds). A run's steps are stored up to the first that the run has already,
 * whose session changed or whose step before is neither stored nor in the statement (`gap`), and
 * none past it, so a run's stored steps never have a gap. One row back per step, with its outcome
 * (`StepOutcome`); a step missing from `ins` though neither there nor changed nor after a gap met
 * another server's insert of it in the meantime (`exists`).
 */
const ADD_STEPS_SQL = `
  WITH s AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS s(run_id text, step integer, action text, x integer, y integer, state text,
      levels_completed integer, win_levels integer, available jsonb, full_reset boolean, frame_hash text, frames text, keyframe boolean,
      at double precision, session_id text, session_state text, event_count integer, acked_through integer)),
  -- OFFSET 0 keeps each check a lookup of one session and one step, never a join over every session or step.
  c AS (
    SELECT s.*,
      s.session_id IS NULL OR EXISTS (
        SELECT 1 FROM sessions x WHERE x.id = s.session_id AND x.state = s.session_state
          AND x.event_count = s.event_count AND x.acked_through = s.acked_through OFFSET 0) AS held,
      EXISTS (SELECT 1 FROM game_steps g WHERE g.run_id = s.run_id AND g.step = s.step OFFSET 0) AS there,
      s.step > 0
        AND NOT EXISTS (SELECT 1 FROM game_steps g WHERE g.run_id = s.run_id AND g.step = s.step - 1 OFFSET 0)
        AND NOT EXISTS (SELECT 1 FROM s p WHERE p.run_id = s.run_id AND p.step = s.step - 1) AS gap
    FROM s),
  stop AS (SELECT run_id, min(step) AS step FROM c WHERE there OR NOT held OR gap GROUP BY run_id),
  ins AS (
    INSERT INTO game_steps (run_id, step, action, x, y, state, levels_completed, win_levels, available, full_reset, frame_hash, frames, keyframe, at)
    SELECT c.run_id, c.step, c.action, c.x, c.y, c.state, c.levels_completed, c.win_levels, c.available, c.full_reset, c.frame_hash, c.frames, c.keyframe, to_timestamp(c.at / 1000.0)
    FROM c WHERE NOT EXISTS (SELECT 1 FROM stop WHERE stop.run_id = c.run_id AND c.step >= stop.step)
    ON CONFLICT DO NOTHING
    RETURNING run_id, step)
  SELECT c.run_id, c.step, CASE
      WHEN EXISTS (SELECT 1 FROM ins WHERE ins.run_id = c.run_id AND ins.step = c.step) THEN 'stored'
      WHEN c.step > stop.step THEN 'after'
      WHEN NOT c.there AND NOT c.held THEN 'changed'
      WHEN NOT c.there AND c.gap THEN 'gap'
      ELSE 'exists' END AS outcome
  FROM c LEFT JOIN stop ON stop.run_id = c.run_id`;

/**
 * {@link ADD_STEPS_SQL} for a group of one step (one player, or a quiet moment: the common case),
 * with plain parameters and no common table expressions: a row back means stored. On PGlite
 * 0.45-0.47 ms a step, against 0.64-0.72 ms for the same check and insert written as common
 * table expressions (a probe of 1,000 steps each, two rounds). No row: the step was there
 * already, its session's row changed since the admission ({@link STEP_SESSION_HELD_SQL} tells
 * which), or the run lacks the step before it ({@link STEP_THERE_SQL}).
 */
const ADD_STEP_SQL = `
  INSERT INTO game_steps (run_id, step, action, x, y, state, levels_completed, win_levels, available, full_reset, frame_hash, frames, keyframe, at)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13, to_timestamp($14 / 1000.0)
  WHERE ($15::text IS NULL OR EXISTS (
    SELECT 1 FROM sessions x WHERE x.id = $15 AND x.state = $16 AND x.event_count = $17 AND x.acked_through = $18))
    AND ($2 = 0 OR EXISTS (SELECT 1 FROM game_steps g WHERE g.run_id = $1 AND g.step = $2 - 1))
  ON CONFLICT DO NOTHING
  RETURNING 1`;

/**
 * Whether a session's row still has a stamp. A row that changed stays changed (its state, event
 * count and mark only move on), so after a step's insert stored nothing this says whether the
 * stamp was the reason; a step found stored and then a change in between reads as the change,
 * which its caller handles the same way (decided again, then stored or found stored).
 */
const STEP_SESSION_HELD_SQL = `
  SELECT EXISTS (SELECT 1 FROM sessions x WHERE x.id = $1 AND x.state = $2 AND x.event_count = $3 AND x.acked_through = $4) AS ok`;

/** Whether a run has a step stored (after an insert of the next one stored nothing). */
const STEP_THERE_SQL = `SELECT EXISTS (SELECT 1 FROM game_steps WHERE run_id = $1 AND step = $2) AS there`;

/** One run's consecutive steps waiting for their group (one member per run in a group). */
interface PendingSteps extends GroupMember {
  readonly steps: readonly StepToStore[];
  resolve(outcomes: StepOutcome[]): void;
}

function gameRunOf(row: Row): GameRunRecord {
  return {
    runId: row.run_id as string,
    sessionId: row.session_id as string,
    item: row.item as string,
    gameId: row.game_id as string,
    source: row.source as GameRunRecord['source'],
    engine: row.engine as string,
    seed: row.seed as number,
    openedAt: ms(row.opened_at),
    codeHash: (row.code_hash as string | null) ?? null,
  };
}

export class SqlGameRunStore implements GameRunStore {
  /** Steps of many runs, one statement per group (see `addGameStep`). */
  private readonly steps: GroupCommit<PendingSteps>;

  constructor(private readonly db: Driver) {
    this.steps = storeGroupCommit(db.kind, (group) => this.runSteps(group));
  }

  async listGameRunsOf(sessionIds: readonly string[]): Promise<Map<string, GameRunRecord[]>> {
    const out = new Map<string, GameRunRecord[]>(sessionIds.map((id) => [id, []]));
    if (sessionIds.length === 0) return out;
    const r = await this.db.query(
      `SELECT * FROM game_runs WHERE session_id = ANY($1::text[]) ORDER BY session_id, opened_at, run_id`,
      [sessionIds],
    );
    for (const row of r.rows) out.get(row.session_id as string)!.push(gameRunOf(row));
    return out;
  }

  async addGameRun(r: GameRunRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO game_runs (run_id, session_id, item, game_id, source, engine, seed, opened_at, code_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
      [r.runId, r.sessionId, r.item, r.gameId, r.source, r.engine, r.seed, new Date(r.openedAt), r.codeHash ?? null],
    );
  }

  async getGameRun(runId: string): Promise<GameRunRecord | null> {
    const r = await this.db.query(`SELECT * FROM game_runs WHERE run_id = $1`, [runId]);
    return r.rows.length ? gameRunOf(r.rows[0]) : null;
  }

  async listGameRuns(sessionId: string): Promise<GameRunRecord[]> {
    const r = await this.db.query(`SELECT * FROM game_runs WHERE session_id = $1 ORDER BY opened_at, run_id`, [
      sessionId,
    ]);
    return r.rows.map(gameRunOf);
  }

  async listGameRunsAfter(afterRunId: string | null, limit: number): Promise<GameRunRecord[]> {
    const r = await this.db.query(
      `SELECT * FROM game_runs WHERE $1::text IS NULL OR run_id > $1 ORDER BY run_id LIMIT $2`,
      [afterRunId, limit],
    );
    return r.rows.map(gameRunOf);
  }

  async removeGameSteps(runId: string, from: number): Promise<number> {
    const r = await this.db.query(`DELETE FROM game_steps WHERE run_id = $1 AND step >= $2 RETURNING step`, [
      runId,
      from,
    ]);
    return r.rows.length;
  }

  async studyGameVersions(studyId: string): Promise<StudyGameVersion[]> {
    const r = await this.db.query(
      `SELECT g.game_id, g.code_hash, count(*)::int AS runs, min(g.opened_at) AS first_at, max(g.opened_at) AS last_at
       FROM game_runs g JOIN sessions s ON s.id = g.session_id WHERE s.study_id = $1
       GROUP BY g.game_id, g.code_hash ORDER BY min(g.opened_at), g.game_id`,
      [studyId],
    );
    return r.rows.map((row) => ({
      gameId: row.game_id as string,
      codeHash: (row.code_hash as string | null) ?? null,
      runs: row.runs as number,
      firstAt: ms(row.first_at),
      lastAt: ms(row.last_at),
    }));
  }

  async listStudyFirstRuns(studyId: string): Promise<StudyFirstRun[]> {
    const r = await this.db.query(
      `SELECT DISTINCT ON (g.session_id, g.item) g.session_id, g.item, g.game_id, g.code_hash, g.opened_at
       FROM game_runs g JOIN sessions s ON s.id = g.session_id WHERE s.study_id = $1
       ORDER BY g.session_id, g.item, g.opened_at, g.run_id`,
      [studyId],
    );
    return r.rows.map((row) => ({
      sessionId: row.session_id as string,
      item: row.item as string,
      gameId: row.game_id as string,
      codeHash: (row.code_hash as string | null) ?? null,
      openedAt: ms(row.opened_at),
    }));
  }

  async saveGameCode(gameId: string, codeHash: string, files: GameCodeFiles, at: number): Promise<void> {
    await this.db.query(
      `INSERT INTO game_code (game_id, code_hash, files, created_at) VALUES ($1, $2, $3::jsonb, $4) ON CONFLICT DO NOTHING`,
      [gameId, codeHash, JSON.stringify(files), new Date(at)],
    );
  }

  async getGameCode(gameId: string, codeHash: string): Promise<GameCodeFiles | null> {
    const r = await this.db.query(`SELECT files FROM game_code WHERE game_id = $1 AND code_hash = $2`, [
      gameId,
      codeHash,
    ]);
    return r.rows.length ? json<GameCodeFiles>(r.rows[0].files) : null;
  }

  /**
   * Group-committed like events: the steps of runs played at the same moment are written in one
   * statement, and each caller is answered once its step is committed (true), or was already
   * stored under that number (false).
   */
  async addGameStep(step: GameStepRecord, opts: { session?: SessionStamp } = {}): Promise<boolean> {
    const [outcome] = await this.addGameSteps([{ step, session: opts.session }]);
    if (outcome === 'changed') throw new SessionChanged(opts.session!.id);
    return outcome === 'stored';
  }

  addGameSteps(steps: readonly StepToStore[]): Promise<StepOutcome[]> {
    if (!steps.length) return Promise.resolve([]);
    const [{ step: first }] = steps;
    if (steps.some(({ step: s }, i) => s.runId !== first.runId || s.step !== first.step + i))
      return Promise.reject(new Error('addGameSteps takes consecutive steps of one run, in order'));
    return new Promise((resolve, reject) => this.steps.add({ key: steps[0].step.runId, steps, resolve, reject }));
  }

  private async runSteps(group: readonly PendingSteps[]): Promise<void> {
    if (group.length === 1 && group[0].steps.length === 1) {
      const [{ step: s, session }] = group[0].steps;
      const r = await this.db.query(ADD_STEP_SQL, [
        s.runId,
        s.step,
        s.action,
        s.x,
        s.y,
        s.state,
        s.levelsCompleted,
        s.winLevels,
        JSON.stringify(s.available),
        s.fullReset,
        s.frameHash,
        s.frames,
        s.keyframe,
        s.at,
        session?.id ?? null,
        session?.state ?? null,
        session?.eventCount ?? null,
        session?.ackedThrough ?? null,
      ]);
      if (r.rows.length > 0) return group[0].resolve(['stored']);
      if (session) {
        const held = await this.db.query<{ ok: boolean }>(STEP_SESSION_HELD_SQL, [
          session.id,
          session.state,
          session.eventCount,
          session.ackedThrough,
        ]);
        if (!held.rows[0].ok) return group[0].resolve(['changed']);
      }
      if (s.step > 0) {
        const before = await this.db.query<{ there: boolean }>(STEP_THERE_SQL, [s.runId, s.step]);
        if (!before.rows[0].there) {
          const prior = await this.db.query<{ there: boolean }>(STEP_THERE_SQL, [s.runId, s.step - 1]);
          if (!prior.rows[0].there) return group[0].resolve(['gap']);
        }
      }
      return group[0].resolve(['exists']);
    }
    const rows = JSON.stringify(
      group.flatMap((p) =>
        p.steps.map(({ step: s, session }) => ({
          run_id: s.runId,
          step: s.step,
          action: s.action,
          x: s.x,
          y: s.y,
          state: s.state,
          levels_completed: s.levelsCompleted,
          win_levels: s.winLevels,
          available: s.available,
          full_reset: s.fullReset,
          frame_hash: s.frameHash,
          frames: s.frames,
          keyframe: s.keyframe,
          at: s.at,
          ...(session
            ? {
                session_id: session.id,
                session_state: session.state,
                event_count: session.eventCount,
                acked_through: session.ackedThrough,
              }
            : {}),
        })),
      ),
    );
    const r = await this.db.query<{ run_id: string; step: number; outcome: StepOutcome }>(ADD_STEPS_SQL, [rows]);
    const outcomes = new Map(r.rows.map((row) => [`${row.step} ${row.run_id}`, row.outcome]));
    for (const p of group) p.resolve(p.steps.map(({ step: s }) => outcomes.get(`${s.step} ${s.runId}`) ?? 'exists'));
  }

  async readGameSteps(runId: string, opts: { from?: number; limit?: number } = {}): Promise<GameStepRecord[]> {
    const from = opts.from ?? 0;
    const rows =
      opts.limit === undefined
        ? (
            await this.db.query(`SELECT * FROM game_steps WHERE run_id = $1 AND step >= $2 ORDER BY step`, [
              runId,
              from,
            ])
          ).rows
        : await keysetPage(
            this.db,
            { columns: '*', table: 'game_steps', where: 'run_id = $1', params: [runId], key: 'step' },
            from - 1,
            opts.limit,
          );
    return rows.map((row) => ({
      runId: row.run_id as string,
      step: row.step as number,
      action: row.action as string,
      x: row.x as number | null,
      y: row.y as number | null,
      state: row.state as string,
      levelsCompleted: row.levels_completed as number,
      winLevels: row.win_levels as number,
      available: json(row.available) as number[],
      fullReset: row.full_reset as boolean,
      frameHash: row.frame_hash as string,
      frames: row.frames as string,
      keyframe: row.keyframe as boolean,
      at: ms(row.at),
    }));
  }

  readGameStepsJson(runId: string, opts: { from?: number; limit: number }): Promise<JsonPage> {
    return keysetJsonPage(
      this.db,
      { columns: STEP_JSON, table: 'game_steps', where: 'run_id = $1', params: [runId], key: 'step' },
      (opts.from ?? 0) - 1,
      opts.limit,
    );
  }
}
