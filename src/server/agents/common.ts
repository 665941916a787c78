/** What the parts of the agents' service share: the researcher's key id, the refusal, the options. */
import type { ScoringPresetName, Baselines } from '../../core/scoring';
import type { Arc3Service } from '../arc3/runs';
import type { AgentStore } from '../store/types';
import type { ProtocolError } from './protocol';

/** The key id of the researcher token. */
export const RESEARCHER = 'researcher';

/** A refusal: the HTTP status, the official error name and a message that says what to do. */
export class AgentError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 500 | 503,
    readonly error: ProtocolError,
    message: string,
  ) {
    super(message);
  }
}

export interface AgentServiceOptions {
  readonly store: AgentStore;
  readonly adminTokenHash: string;
  readonly arc3?: Arc3Service | null;
  /** The baselines file given to the server (`serve --agent-baselines`): games by full id, or by short id with their `version`. */
  readonly baselines?: () => Baselines | null;
  /** A study's human baselines, as its results show them (agents/baselines.ts `studyBaselines`); null when there is no such study. */
  readonly studyBaselines?: (studyId: string) => Promise<Baselines | null>;
  /** A game's reference group as baselines (server/reference `referenceBaselines`); null when the game has no such group. */
  readonly referenceBaselines?: (gameId: string, group: string) => Promise<Baselines | null>;
  /** The preset of scorecards whose tags name none (`serve --agent-preset`); `toolkit-2026-04` when absent. */
  readonly defaultPreset?: ScoringPresetName;
  readonly now?: () => number;
  readonly log?: (line: string) => void;
  /**
   * Other servers use the same database (PostgreSQL; `serve --workers N`, several machines): each
   * step is stored before it is answered, only if its number is still free, and a step another
   * server stored first makes this one read the game session again from the stored steps and act
   * on that. Without it, steps are written behind (up to `FLUSH_MS` later, agentSteps.ts) and scorecards'
   * steps are kept in memory.
   */
  readonly shared?: boolean;
}
