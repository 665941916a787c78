/**
 * Agents over the ARC-AGI-3 protocol (`AgentStore`, `server/agents`): their keys (SHA-256 only),
 * scorecards, game sessions and steps; the same SQL on PGlite and PostgreSQL.
 */
import type { Driver } from './driver';
import { json, ms, type Row } from './columns';
import type { AgentKeyRecord, AgentRunRecord, AgentStepRecord, AgentStore, ScorecardRecord } from './types';

function agentKeyOf(row: Row): AgentKeyRecord {
  return {
    id: row.id as string,
    name: row.name as string,
    keyHash: row.key_hash as string,
    createdAt: ms(row.created_at),
    revokedAt: row.revoked_at === null || row.revoked_at === undefined ? null : ms(row.revoked_at),
  };
}

function scorecardOf(row: Row): ScorecardRecord {
  return {
    cardId: row.card_id as string,
    keyId: row.key_id as string,
    tags: json(row.tags) as string[],
    sourceUrl: (row.source_url as string | null) ?? null,
    opaque: json(row.opaque) ?? null,
    openedAt: ms(row.opened_at),
    closedAt: row.closed_at === null || row.closed_at === undefined ? null : ms(row.closed_at),
  };
}

function agentRunOf(row: Row): AgentRunRecord {
  return {
    guid: row.guid as string,
    cardId: row.card_id as string,
    gameId: row.game_id as string,
    source: row.source as AgentRunRecord['source'],
    seed: row.seed as number,
    openedAt: ms(row.opened_at),
    codeHash: (row.code_hash as string | null | undefined) ?? null,
  };
}

export class SqlAgentStore implements AgentStore {
  constructor(private readonly db: Driver) {}

  async addAgentKey(k: AgentKeyRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO agent_keys (id, name, key_hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5)`,
      [k.id, k.name, k.keyHash, new Date(k.createdAt), k.revokedAt === null ? null : new Date(k.revokedAt)],
    );
  }

  async listAgentKeys(): Promise<AgentKeyRecord[]> {
    const r = await this.db.query(`SELECT * FROM agent_keys ORDER BY created_at, id`);
    return r.rows.map(agentKeyOf);
  }

  async agentKeyByHash(keyHash: string): Promise<AgentKeyRecord | null> {
    const r = await this.db.query(`SELECT * FROM agent_keys WHERE key_hash = $1`, [keyHash]);
    return r.rows.length ? agentKeyOf(r.rows[0]) : null;
  }

  async revokeAgentKey(id: string, at: number): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE agent_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING 1`,
      [id, new Date(at)],
    );
    return r.rows.length === 1;
  }

  async addScorecard(c: ScorecardRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO scorecards (card_id, key_id, tags, source_url, opaque, opened_at, closed_at) VALUES ($1, $2, $3::jsonb, $4, $5::jsonb, $6, $7)`,
      [
        c.cardId,
        c.keyId,
        JSON.stringify(c.tags),
        c.sourceUrl,
        c.opaque === undefined ? null : JSON.stringify(c.opaque),
        new Date(c.openedAt),
        c.closedAt === null ? null : new Date(c.closedAt),
      ],
    );
  }

  async getScorecard(cardId: string): Promise<ScorecardRecord | null> {
    const r = await this.db.query(`SELECT * FROM scorecards WHERE card_id = $1`, [cardId]);
    return r.rows.length ? scorecardOf(r.rows[0]) : null;
  }

  async closeScorecard(cardId: string, at: number): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE scorecards SET closed_at = $2 WHERE card_id = $1 AND closed_at IS NULL RETURNING 1`,
      [cardId, new Date(at)],
    );
    return r.rows.length === 1;
  }

  async listScorecards(): Promise<ScorecardRecord[]> {
    const r = await this.db.query(`SELECT * FROM scorecards ORDER BY opened_at, card_id`);
    return r.rows.map(scorecardOf);
  }

  async addAgentRun(a: AgentRunRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO agent_runs (guid, card_id, game_id, source, seed, opened_at, code_hash) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [a.guid, a.cardId, a.gameId, a.source, a.seed, new Date(a.openedAt), a.codeHash ?? null],
    );
  }

  async getAgentRun(guid: string): Promise<AgentRunRecord | null> {
    const r = await this.db.query(`SELECT * FROM agent_runs WHERE guid = $1`, [guid]);
    return r.rows.length ? agentRunOf(r.rows[0]) : null;
  }

  async listAgentRuns(cardId: string): Promise<AgentRunRecord[]> {
    const r = await this.db.query(`SELECT * FROM agent_runs WHERE card_id = $1 ORDER BY opened_at, guid`, [cardId]);
    return r.rows.map(agentRunOf);
  }

  async addAgentSteps(steps: readonly AgentStepRecord[]): Promise<void> {
    if (!steps.length) return;
    // One statement for the whole batch: the rows travel as one JSON array.
    const rows = steps.map((s) => ({
      guid: s.guid,
      seq: s.seq,
      action: s.action,
      x: s.x,
      y: s.y,
      state: s.state,
      levels_completed: s.levelsCompleted,
      win_levels: s.winLevels,
      full_reset: s.fullReset,
      frame_hash: s.frameHash,
      frames: s.frames ?? null,
      reasoning: s.reasoning ?? null,
      at: new Date(s.at).toISOString(),
    }));
    await this.db.query(
      `INSERT INTO agent_steps (guid, seq, action, x, y, state, levels_completed, win_levels, full_reset, frame_hash, frames, reasoning, at)
       SELECT guid, seq, action, x, y, state, levels_completed, win_levels, full_reset, frame_hash, frames, reasoning, at
       FROM jsonb_to_recordset($1::jsonb) AS t(guid text, seq integer, action text, x integer, y integer, state text, levels_completed integer,
         win_levels integer, full_reset boolean, frame_hash text, frames text, reasoning jsonb, at timestamptz)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }

  async addAgentStepIfFree(s: AgentStepRecord): Promise<boolean> {
    const r = await this.db.query(
      `INSERT INTO agent_steps (guid, seq, action, x, y, state, levels_completed, win_levels, full_reset, frame_hash, frames, reasoning, at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13
       FROM agent_runs r JOIN scorecards c ON c.card_id = r.card_id
       WHERE r.guid = $1 AND c.closed_at IS NULL
       ON CONFLICT DO NOTHING RETURNING seq`,
      [
        s.guid,
        s.seq,
        s.action,
        s.x,
        s.y,
        s.state,
        s.levelsCompleted,
        s.winLevels,
        s.fullReset,
        s.frameHash,
        s.frames ?? null,
        s.reasoning === null || s.reasoning === undefined ? null : JSON.stringify(s.reasoning),
        new Date(s.at).toISOString(),
      ],
    );
    return r.rows.length === 1;
  }

  async readAgentSteps(guid: string): Promise<AgentStepRecord[]> {
    const r = await this.db.query(`SELECT * FROM agent_steps WHERE guid = $1 ORDER BY seq`, [guid]);
    return r.rows.map((row) => ({
      guid: row.guid as string,
      seq: row.seq as number,
      action: row.action as string,
      x: row.x as number | null,
      y: row.y as number | null,
      state: row.state as string,
      levelsCompleted: row.levels_completed as number,
      winLevels: row.win_levels as number,
      fullReset: row.full_reset as boolean,
      frameHash: row.frame_hash as string,
      frames: (row.frames as string | null) ?? null,
      reasoning: json(row.reasoning) ?? null,
      at: ms(row.at),
    }));
  }
}
