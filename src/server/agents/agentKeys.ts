/**
 * The API keys agents present: issued, listed and revoked by the researcher, and checked on
 * every request (a checked key is trusted for a few seconds, so a revocation on another server
 * shows within them).
 */
import { randomBytes } from 'node:crypto';
import type { AgentKeyEntry, IssuedAgentKey } from '../../core/protocol/agents';
import { hashToken, hashesMatch, newToken } from '../people/auth';
import type { AgentKeyRecord, AgentStore } from '../store/types';
import { RESEARCHER } from './common';

/** How long a checked key is trusted before it is read again (a revocation on another server shows within this). */
const KEY_TTL_MS = 10_000;

/** The agents' keys, with a short-lived cache of the keys checked. */
export class AgentKeys {
  private readonly keys = new Map<string, { id: string; at: number }>();

  constructor(
    private readonly store: AgentStore,
    private readonly adminTokenHash: string,
    private readonly now: () => number,
  ) {}

  /** The key id of a presented API key: `researcher` for the researcher token, an agent key's id, or null. */
  async authenticate(key: string | undefined): Promise<string | null> {
    if (!key || key.length > 200) return null;
    // Hashed once for both the researcher token and the agents' keys: this runs at every step.
    const hash = hashToken(key);
    if (hashesMatch(hash, this.adminTokenHash)) return RESEARCHER;
    const hit = this.keys.get(hash);
    if (hit && this.now() - hit.at < KEY_TTL_MS) return hit.id;
    const rec = await this.store.agentKeyByHash(hash);
    if (!rec || rec.revokedAt !== null) {
      this.keys.delete(hash);
      return null;
    }
    if (this.keys.size > 10_000) this.keys.clear();
    this.keys.set(hash, { id: rec.id, at: this.now() });
    return rec.id;
  }

  /** Issues a key: the key itself is in this answer only. */
  async issueKey(name: string): Promise<IssuedAgentKey> {
    const key = `arcs_${newToken()}`;
    const rec: AgentKeyRecord = {
      id: `key_${randomBytes(6).toString('hex')}`,
      name,
      keyHash: hashToken(key),
      createdAt: this.now(),
      revokedAt: null,
    };
    await this.store.addAgentKey(rec);
    return { id: rec.id, name, key, createdAt: rec.createdAt };
  }

  async listKeys(): Promise<AgentKeyEntry[]> {
    return (await this.store.listAgentKeys()).map(({ id, name, createdAt, revokedAt }) => ({
      id,
      name,
      createdAt,
      revokedAt,
    }));
  }

  async revokeKey(id: string): Promise<boolean> {
    const done = await this.store.revokeAgentKey(id, this.now());
    for (const [hash, k] of this.keys) if (k.id === id) this.keys.delete(hash);
    return done;
  }
}
