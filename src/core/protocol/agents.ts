/**
 * The researcher's view of agents on the wire (docs/api.md, "Agents" and "Agent runs in a
 * study"): the agent keys of `/api/admin/agent-keys`, and what
 * `GET /api/admin/studies/:studyId/agent-runs` and `GET /api/admin/agent-runs/:guid` answer, as
 * the server writes it and the studio reads it.
 */

/** An agent key as `GET /api/admin/agent-keys` lists it (never its secret). */
export interface AgentKeyEntry {
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

/** `POST /api/admin/agent-keys`' answer: the key itself, shown this once. */
export interface IssuedAgentKey {
  readonly id: string;
  readonly name: string;
  readonly key: string;
  readonly createdAt: number;
}

/** Where an agent's game runs: the built-in engine, the official engine, or a remote server. */
export type AgentRunSource = 'builtin' | 'arcengine' | 'remote';

/** One agent game session as the study's results list it. */
export interface AgentRunRow {
  readonly guid: string;
  readonly cardId: string;
  readonly keyId: string;
  /** The agent key's name (`researcher token` when the researcher's token played). */
  readonly keyName: string;
  readonly gameId: string;
  readonly source: AgentRunSource;
  readonly openedAt: number;
  readonly lastAt: number;
  readonly cardClosed: boolean;
  /** Stored steps, the opening RESET included. */
  readonly steps: number;
  /** Scorecard actions over the session's plays. */
  readonly actions: number;
  /** Plays (the session split at full resets, as the scorecard counts them). */
  readonly plays: number;
  readonly levelsCompleted: number;
  readonly state: string;
  /** The best play's score on the official 0-115 scale, under `preset`. */
  readonly score: number;
  readonly preset: string;
  /** Where the baselines come from: `study:<id>`, `file` or `metadata`; null: none. */
  readonly baselines: string | null;
  /** The first play's actions per level and the baseline each was scored against (-1: none). */
  readonly levelActions: readonly number[];
  readonly levelBaselineActions: readonly number[];
  /** Why a play was scored without baselines (e.g. the study has no human baseline for the game yet); null when scored. */
  readonly baselinesMessage: string | null;
}

/** One stored step of an agent's game session for the replay viewer; seq 0 is the opening RESET. */
export interface AgentReplayStep {
  readonly seq: number;
  readonly action: string;
  readonly x: number | null;
  readonly y: number | null;
  readonly state: string;
  readonly levelsCompleted: number;
  readonly winLevels: number;
  readonly fullReset: boolean;
  /** `hashFrame` of the last frame. */
  readonly frameHash: string;
  /** Encoded frames (core/formats/frames.ts) of games on the official engine; null for built-in games. */
  readonly frames: string | null;
  readonly at: number;
}

export interface AgentRunReplay {
  readonly run: {
    readonly guid: string;
    readonly cardId: string;
    readonly gameId: string;
    readonly source: AgentRunSource;
    readonly seed: number;
    readonly openedAt: number;
  };
  readonly card: {
    cardId: string;
    tags: readonly string[];
    openedAt: number;
    closedAt: number | null;
    study: string | null;
  };
  readonly keyName: string;
  readonly steps: readonly AgentReplayStep[];
}
