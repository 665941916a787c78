/**
 * Prolific's webhook signature: `X-Prolific-Request-Signature` is the base64 of an HMAC-SHA256,
 * keyed with the workspace's webhook secret, over `X-Prolific-Request-Timestamp` followed by the
 * request's body as sent.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The signature Prolific sends with `body` at `timestamp` (UNIX seconds, as text). */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret)
    .update(timestamp + body)
    .digest('base64');
}

/** Whether `signature` is the one `secret` gives for `timestamp` and `body` (compared in constant time). */
export function signatureMatches(secret: string, timestamp: string, body: string, signature: string): boolean {
  const want = Buffer.from(webhookSignature(secret, timestamp, body));
  const got = Buffer.from(signature);
  return want.length === got.length && timingSafeEqual(want, got);
}
