/**
 * Secrets shared by every server on the database (`SecretStore`): the first server to ask makes
 * one, the others read it.
 */
import type { Driver } from './driver';
import type { SecretStore } from './types';

export class SqlSecretStore implements SecretStore {
  constructor(private readonly db: Driver) {}

  async secret(name: string, make: () => string): Promise<string> {
    await this.db.query(`INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
      name,
      make(),
    ]);
    const r = await this.db.query(`SELECT value FROM server_secrets WHERE name = $1`, [name]);
    return r.rows[0].value as string;
  }
}
