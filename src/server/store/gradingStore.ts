/**
 * Grading in the store: graders (their links' tokens kept as SHA-256 hashes), their grades of
 * free-response and symbolic answers, and the researcher's adjudications. `store.grading` of the
 * `Store`; the same SQL on PGlite and PostgreSQL.
 */
import type { Grade } from '../../core/grading/grade';
import type { Queryable } from './driver';
import { json, ms, type Row } from './columns';

export interface GraderRecord {
  readonly id: string;
  readonly studyId: string;
  readonly label: string;
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

/** An answer kept for grading: a question submission judged `ungraded`. */
export interface GradableAnswer {
  readonly sessionId: string;
  readonly studyVersion: number;
  readonly item: string;
  /** The question's position in its item (0 for a one-question item). */
  readonly testIndex: number;
  /** What the participant sent: `{"text"}` or `{"choice"}`. */
  readonly answer: unknown;
  readonly at: number;
}

export interface GradeRecord extends Grade {
  readonly graderId: string;
  readonly sessionId: string;
  readonly item: string;
  readonly testIndex: number;
  readonly at: number;
}

export interface AdjudicationRecord extends Grade {
  readonly sessionId: string;
  readonly item: string;
  readonly testIndex: number;
  readonly actor: string;
  readonly at: number;
}

export interface GradingStore {
  addGrader(g: GraderRecord, actor: string): Promise<void>;
  /** A study's graders, oldest first, revoked ones too. */
  listGraders(studyId: string): Promise<GraderRecord[]>;
  graderByTokenHash(tokenHash: string): Promise<GraderRecord | null>;
  /** Revokes a grader's link (and records it); false when there is no such grader or it was revoked already. */
  revokeGrader(studyId: string, id: string, actor: string, at: number): Promise<boolean>;
  /**
   * The answers kept for grading (verdict `ungraded`) of a study's counted sessions: excluded
   * sessions, playtests and practice items are left out. In order of submission.
   */
  gradableAnswers(studyId: string): Promise<GradableAnswer[]>;
  /** Stores a grader's grade of an answer, replacing the grader's earlier grade of it. */
  saveGrade(g: GradeRecord): Promise<void>;
  /** A study's grades (of one grader, when given). */
  listGrades(studyId: string, graderId?: string): Promise<GradeRecord[]>;
  /** Stores the researcher's final grade of an answer (replacing an earlier one) and records it in the audit log, in one transaction. */
  saveAdjudication(studyId: string, a: AdjudicationRecord, reason: string | null): Promise<void>;
  listAdjudications(studyId: string): Promise<AdjudicationRecord[]>;
}

const graderOf = (r: Row): GraderRecord => ({
  id: r.id as string,
  studyId: r.study_id as string,
  label: r.label as string,
  tokenHash: r.token_hash as string,
  createdAt: ms(r.created_at),
  revokedAt: r.revoked_at === null || r.revoked_at === undefined ? null : ms(r.revoked_at),
});

const gradeOf = (r: Row): Grade => ({
  criteria: json(r.criteria),
  points: Number(r.points),
  maxPoints: Number(r.max_points),
  pass: r.pass as boolean,
  note: r.note as string,
});

async function audit(
  tx: Queryable,
  studyId: string,
  actor: string,
  action: string,
  target: string,
  reason: string | null,
  detail: Record<string, unknown>,
  at: number,
): Promise<void> {
  await tx.query(
    `INSERT INTO audit_events (study_id, actor, action, target, reason, detail, at) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)`,
    [studyId, actor, action, target, reason, JSON.stringify(detail), new Date(at)],
  );
}

export class SqlGradingStore implements GradingStore {
  constructor(private readonly db: Queryable & { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> }) {}

  async addGrader(g: GraderRecord, actor: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO graders (id, study_id, label, token_hash, created_at) VALUES ($1, $2, $3, $4, $5)`, [
        g.id,
        g.studyId,
        g.label,
        g.tokenHash,
        new Date(g.createdAt),
      ]);
      await audit(tx, g.studyId, actor, 'grader.add', g.id, null, { label: g.label }, g.createdAt);
    });
  }

  async listGraders(studyId: string): Promise<GraderRecord[]> {
    return (
      await this.db.query(`SELECT * FROM graders WHERE study_id = $1 ORDER BY created_at, id`, [studyId])
    ).rows.map(graderOf);
  }

  async graderByTokenHash(tokenHash: string): Promise<GraderRecord | null> {
    const r = await this.db.query(`SELECT * FROM graders WHERE token_hash = $1`, [tokenHash]);
    return r.rows.length ? graderOf(r.rows[0]) : null;
  }

  async revokeGrader(studyId: string, id: string, actor: string, at: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const r = await tx.query(
        `UPDATE graders SET revoked_at = $3 WHERE study_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING label`,
        [studyId, id, new Date(at)],
      );
      if (!r.rows.length) return false;
      await audit(tx, studyId, actor, 'grader.revoke', id, null, { label: r.rows[0].label }, at);
      return true;
    });
  }

  async gradableAnswers(studyId: string): Promise<GradableAnswer[]> {
    const r = await this.db.query(
      `SELECT s.session_id, x.study_version, s.item, s.test_index, s.grid, s.at FROM submissions s JOIN sessions x ON x.id = s.session_id
       WHERE x.study_id = $1 AND s.verdict = 'ungraded' AND NOT s.practice AND x.excluded_at IS NULL
         AND NOT (x.flags @> '["playtest"]'::jsonb) AND COALESCE(x.params->>'mode', '') <> 'playtest'
       ORDER BY s.at, s.session_id, s.item, s.test_index`,
      [studyId],
    );
    return r.rows.map((row) => ({
      sessionId: row.session_id as string,
      studyVersion: row.study_version as number,
      item: row.item as string,
      testIndex: row.test_index as number,
      answer: json(row.grid),
      at: ms(row.at),
    }));
  }

  async saveGrade(g: GradeRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO grades (grader_id, session_id, item, test_index, criteria, points, max_points, pass, note, graded_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10)
       ON CONFLICT (grader_id, session_id, item, test_index) DO UPDATE SET criteria = EXCLUDED.criteria, points = EXCLUDED.points,
         max_points = EXCLUDED.max_points, pass = EXCLUDED.pass, note = EXCLUDED.note, graded_at = EXCLUDED.graded_at`,
      [
        g.graderId,
        g.sessionId,
        g.item,
        g.testIndex,
        JSON.stringify(g.criteria),
        g.points,
        g.maxPoints,
        g.pass,
        g.note,
        new Date(g.at),
      ],
    );
  }

  async listGrades(studyId: string, graderId?: string): Promise<GradeRecord[]> {
    const r = await this.db.query(
      `SELECT g.* FROM grades g JOIN graders d ON d.id = g.grader_id WHERE d.study_id = $1 AND ($2::text IS NULL OR g.grader_id = $2)
       ORDER BY g.session_id, g.item, g.test_index, d.created_at, d.id`,
      [studyId, graderId ?? null],
    );
    return r.rows.map((row) => ({
      ...gradeOf(row),
      graderId: row.grader_id as string,
      sessionId: row.session_id as string,
      item: row.item as string,
      testIndex: row.test_index as number,
      at: ms(row.graded_at),
    }));
  }

  async saveAdjudication(studyId: string, a: AdjudicationRecord, reason: string | null): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO adjudications (session_id, item, test_index, study_id, criteria, points, max_points, pass, note, actor, at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (session_id, item, test_index) DO UPDATE SET criteria = EXCLUDED.criteria, points = EXCLUDED.points,
           max_points = EXCLUDED.max_points, pass = EXCLUDED.pass, note = EXCLUDED.note, actor = EXCLUDED.actor, at = EXCLUDED.at`,
        [
          a.sessionId,
          a.item,
          a.testIndex,
          studyId,
          JSON.stringify(a.criteria),
          a.points,
          a.maxPoints,
          a.pass,
          a.note,
          a.actor,
          new Date(a.at),
        ],
      );
      await audit(
        tx,
        studyId,
        a.actor,
        'grade.adjudicate',
        a.sessionId,
        reason,
        {
          item: a.item,
          testIndex: a.testIndex,
          points: a.points,
          maxPoints: a.maxPoints,
          pass: a.pass,
          criteria: a.criteria.map((c) => c.points),
        },
        a.at,
      );
    });
  }

  async listAdjudications(studyId: string): Promise<AdjudicationRecord[]> {
    const r = await this.db.query(
      `SELECT * FROM adjudications WHERE study_id = $1 ORDER BY session_id, item, test_index`,
      [studyId],
    );
    return r.rows.map((row) => ({
      ...gradeOf(row),
      sessionId: row.session_id as string,
      item: row.item as string,
      testIndex: row.test_index as number,
      actor: row.actor as string,
      at: ms(row.at),
    }));
  }
}
