/**
 * Passwords, kept as scrypt hashes (memory-hard: 32 MiB a try at the default cost, which makes
 * guessing on graphics cards dear). Hashing runs on libuv's thread pool (`crypto.scrypt` is
 * asynchronous), so a sign-in never blocks the thread that acknowledges participants' events.
 *
 * A stored hash is `scrypt$<log2 N>$<r>$<p>$<salt, base64url>$<key, base64url>`, so the cost can be
 * raised later without making earlier hashes unreadable.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface ScryptCost {
  /** log2 of N, the CPU and memory cost. */
  readonly logN: number;
  readonly r: number;
  readonly p: number;
}

/** 2^15 x 128 x 8 bytes = 32 MiB per hash; about 0.1 s on one core of a laptop. */
export const DEFAULT_COST: ScryptCost = { logN: 15, r: 8, p: 1 };

const KEY_BYTES = 32;
/** Passwords longer than this are refused before hashing, so a huge one cannot be made to cost more. */
export const MAX_PASSWORD_LENGTH = 1024;
export const MIN_PASSWORD_LENGTH = 10;

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const N = 2 ** cost.logN;
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFC'),
      salt,
      KEY_BYTES,
      { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r + 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

/** What is wrong with a new password, or null when it can be used. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH)
    return `The password is shorter than ${MIN_PASSWORD_LENGTH} characters; choose a longer one (a few words make a good one).`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `The password is longer than ${MAX_PASSWORD_LENGTH} characters; choose a shorter one.`;
  return null;
}

/**
 * The stored form of a password.
 * @example
 * const stored = await hashPassword('correct horse battery');
 * await verifyPassword('correct horse battery', stored); // true
 */
export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.logN, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; false for a stored value it cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number);
  if (![logN, r, p].every(Number.isInteger) || logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 4)
    return false;
  const expected = Buffer.from(parts[5], 'base64url');
  const key = await derive(password, Buffer.from(parts[4], 'base64url'), { logN, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash of no password anyone knows, checked when the email given is unknown so that a failed
 * sign-in takes as long whether or not the account exists.
 */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(18).toString('base64url'));
  return decoy;
}
