/**
 * The studio's Prolific secrets (the API token, the webhook secret), sealed at rest: AES-256-GCM
 * under the server's key, which is never in the database. The key is `ARC_STUDIO_SECRET_KEY`
 * (any long value; its SHA-256 is the key), else the file `secret-key` in the data folder, made
 * on first use (mode 600). Several servers on one PostgreSQL must share the key: set the
 * variable on each. No route reads a secret back; the studio shows only whether one is set.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The sealing key: from `ARC_STUDIO_SECRET_KEY`, else `<dataDir>/secret-key` (made when missing). */
export function loadSecretKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const fromEnv = env.ARC_STUDIO_SECRET_KEY?.trim();
  if (fromEnv) {
    if (fromEnv.length < 16)
      throw new Error(
        'ARC_STUDIO_SECRET_KEY is shorter than 16 characters; use a long random value (e.g. "openssl rand -base64 32").',
      );
    return createHash('sha256').update(fromEnv).digest();
  }
  const file = path.join(dataDir, 'secret-key');
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8').trim();
    if (text.length < 16)
      throw new Error(`${file} holds no usable key. Restore it from a backup, or set ARC_STUDIO_SECRET_KEY.`);
    return createHash('sha256').update(text).digest();
  }
  mkdirSync(dataDir, { recursive: true });
  const text = randomBytes(32).toString('base64');
  writeFileSync(file, text + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return createHash('sha256').update(text).digest();
}

/** Seals `plain` under `key`: `v1.<iv>.<tag>.<ciphertext>`, each base64. */
export function seal(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return ['v1', iv.toString('base64'), c.getAuthTag().toString('base64'), data.toString('base64')].join('.');
}

/** Opens what `seal` made; null when it was sealed under another key or is damaged. */
export function unseal(key: Buffer, sealed: string): string | null {
  const [v, iv, tag, data] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || data === undefined) return null;
  try {
    const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    d.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(data, 'base64')), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}
