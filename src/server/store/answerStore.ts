/**
 * What participants submit besides events (`AnswerStore`): grids judged for task items, and
 * responses (descriptions, surveys, withdrawals); the same SQL on PGlite and PostgreSQL.
 */
import type { Driver } from './driver';
import { json, ms, type Row } from './columns';
import type { AnswerStore, ResponseRecord, SubmissionRecord } from './types';

const submissionOf = (row: Row): SubmissionRecord => ({
  sessionId: row.session_id as string,
  key: row.key as string,
  item: row.item as string,
  testIndex: row.test_index as number,
  trial: row.trial as number | null,
  grid: json(row.grid),
  verdict: row.verdict as SubmissionRecord['verdict'],
  practice: row.practice as boolean,
  at: ms(row.at),
  taskHash: (row.task_hash as string | null | undefined) ?? null,
});
const responseOf = (row: Row): ResponseRecord => ({
  sessionId: row.session_id as string,
  key: row.key as string,
  item: row.item as string,
  kind: row.kind as ResponseRecord['kind'],
  part: row.part as string,
  value: json(row.value),
  at: ms(row.at),
});

export class SqlAnswerStore implements AnswerStore {
  constructor(private readonly db: Driver) {}

  async addSubmission(s: SubmissionRecord): Promise<boolean> {
    const r = await this.db.query(
      `INSERT INTO submissions (session_id, key, item, test_index, trial, grid, verdict, practice, at, task_hash)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING 1`,
      [
        s.sessionId,
        s.key,
        s.item,
        s.testIndex,
        s.trial,
        JSON.stringify(s.grid),
        s.verdict,
        s.practice,
        new Date(s.at),
        s.taskHash ?? null,
      ],
    );
    return r.rows.length === 1;
  }

  async listSubmissions(sessionId: string): Promise<SubmissionRecord[]> {
    const r = await this.db.query(
      `SELECT * FROM submissions WHERE session_id = $1 ORDER BY at, trial NULLS LAST, key`,
      [sessionId],
    );
    return r.rows.map(submissionOf);
  }

  async addResponse(r: ResponseRecord): Promise<boolean> {
    const res = await this.db.query(
      `INSERT INTO responses (session_id, key, item, kind, part, value, at) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) ON CONFLICT DO NOTHING RETURNING 1`,
      [r.sessionId, r.key, r.item, r.kind, r.part, JSON.stringify(r.value), new Date(r.at)],
    );
    return res.rows.length === 1;
  }

  async listResponses(sessionId: string): Promise<ResponseRecord[]> {
    const res = await this.db.query(`SELECT * FROM responses WHERE session_id = $1 ORDER BY at, key`, [sessionId]);
    return res.rows.map(responseOf);
  }

  async listStudyResponses(studyId: string, kind: ResponseRecord['kind']): Promise<ResponseRecord[]> {
    const res = await this.db.query(
      `SELECT r.* FROM responses r JOIN sessions s ON s.id = r.session_id WHERE s.study_id = $1 AND r.kind = $2 ORDER BY r.at, r.session_id, r.key`,
      [studyId, kind],
    );
    return res.rows.map(responseOf);
  }

  async submissionCounts(studyId: string): Promise<Map<string, number>> {
    const r = await this.db.query<{ session_id: string; n: number }>(
      `SELECT s.session_id, count(*)::int AS n FROM submissions s JOIN sessions x ON x.id = s.session_id WHERE x.study_id = $1 GROUP BY s.session_id`,
      [studyId],
    );
    return new Map(r.rows.map((row) => [row.session_id, row.n]));
  }

  async listSubmissionsOf(sessionIds: readonly string[]): Promise<Map<string, SubmissionRecord[]>> {
    const out = new Map<string, SubmissionRecord[]>(sessionIds.map((id) => [id, []]));
    if (sessionIds.length === 0) return out;
    const r = await this.db.query(
      `SELECT * FROM submissions WHERE session_id = ANY($1::text[]) ORDER BY session_id, at, trial NULLS LAST, key`,
      [sessionIds],
    );
    for (const row of r.rows) out.get(row.session_id as string)!.push(submissionOf(row));
    return out;
  }

  async listResponsesOf(sessionIds: readonly string[]): Promise<Map<string, ResponseRecord[]>> {
    const out = new Map<string, ResponseRecord[]>(sessionIds.map((id) => [id, []]));
    if (sessionIds.length === 0) return out;
    const r = await this.db.query(
      `SELECT * FROM responses WHERE session_id = ANY($1::text[]) ORDER BY session_id, at, key`,
      [sessionIds],
    );
    for (const row of r.rows) out.get(row.session_id as string)!.push(responseOf(row));
    return out;
  }
}
