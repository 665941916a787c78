/**
 * Tokens. A researcher (admin) token opens `/api/admin/...`; each participant session has a
 * capability token that opens that session only. Only SHA-256 hashes are kept and compared,
 * in constant time; tokens are never logged.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** 32 random bytes, base64url (43 characters). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares a presented token with a stored hash in time independent of where they differ. */
export function tokenMatches(token: string, storedHash: string): boolean {
  return hashesMatch(hashToken(token), storedHash);
}

/** Compares two token hashes in time independent of where they differ (a token hashed once, compared twice). */
export function hashesMatch(hash: string, storedHash: string): boolean {
  const a = Buffer.from(hash, 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearer(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m ? m[1] : null;
}

export interface AdminToken {
  /** SHA-256 of the token; all the server keeps in memory after start. */
  readonly hash: string;
  /** Where it came from, for the start message. */
  readonly source: 'env' | 'file' | 'generated';
  /** The token itself, when it was generated now. */
  readonly fresh: string | null;
  /**
   * The token to print in the login link: the one in the data folder's file (generated now or
   * before), which only this machine's user can read; null for `ARC_STUDIO_ADMIN_TOKEN`, which a
   * deployment keeps out of its logs.
   */
  readonly linkToken: string | null;
  readonly file: string | null;
}

/**
 * The researcher token: `ARC_STUDIO_ADMIN_TOKEN` when set; else the one kept in
 * `<dataDir>/admin-token` (mode 0600), generated on first start.
 */
export function loadAdminToken(dataDir: string, env: NodeJS.ProcessEnv = process.env): AdminToken {
  const fromEnv = env.ARC_STUDIO_ADMIN_TOKEN?.trim();
  if (fromEnv) {
    if (fromEnv.length < 16)
      throw new Error(
        'ARC_STUDIO_ADMIN_TOKEN is shorter than 16 characters; use a long random value (e.g. "openssl rand -base64 32").',
      );
    return { hash: hashToken(fromEnv), source: 'env', fresh: null, linkToken: null, file: null };
  }
  const file = path.join(dataDir, 'admin-token');
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length < 16)
      throw new Error(
        `${file} holds no usable token. Delete it to have a new one generated, or set ARC_STUDIO_ADMIN_TOKEN.`,
      );
    return { hash: hashToken(token), source: 'file', fresh: null, linkToken: token, file };
  }
  mkdirSync(dataDir, { recursive: true });
  const token = newToken();
  writeFileSync(file, token + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return { hash: hashToken(token), source: 'generated', fresh: token, linkToken: token, file };
}

/**
 * The line `serve` prints last on every start (and `arc-studio login-link` prints again): the whole
 * login link when the token is kept in the data folder, else where the token is.
 */
export function adminLoginMessage(admin: AdminToken, baseUrl: string): string {
  if (admin.linkToken)
    return `Researcher login: ${baseUrl}/login#token=${admin.linkToken}\n(the token is kept in ${admin.file}; print this link again with "arc-studio login-link")`;
  return `Researcher login: ${baseUrl}/login with the token in ARC_STUDIO_ADMIN_TOKEN`;
}
