/**
 * "A repeated request key is answered once": a participant's write carries a client key (kept by
 * the browser while it retries), and every route that takes one (submissions, answers,
 * descriptions, survey responses) stores it under that key at most once and answers a retry as it
 * answered the first request, even when the two raced.
 */
import type { Context } from 'hono';
import { fail } from './context';

export interface KeyedWrite<R> {
  /** The key, for messages. */
  readonly key: string;
  /** The stored record with this key, if any. */
  readonly find: () => Promise<R | undefined>;
  /** Whether the stored record is this very request (same item, test input, stage...), not another one that reused the key. */
  readonly same: (stored: R) => boolean;
  /** The answer to a request whose record is stored. */
  readonly reply: (stored: R) => Response | Promise<Response>;
}

/**
 * The two halves of a keyed write: `repeat` before any check (a retry is answered even after the
 * item or the session ended), `store` at the end.
 *
 * @example
 * const once = oncePerKey(c, { key, find, same, reply });
 * const repeated = await once.repeat();
 * if (repeated) return repeated;
 * // ...admission and the route's own checks...
 * return once.store(() => store.addResponse(record), () => reply(record), () => fail(c, 409, 'already_answered', '...'));
 */
export function oncePerKey<R>(c: Context, w: KeyedWrite<R>) {
  return {
    /** The answer to a repeated request, a 409 `key_reused` for a key used by another request, or null for a new key. */
    async repeat(): Promise<Response | null> {
      const stored = await w.find();
      if (stored === undefined) return null;
      if (!w.same(stored))
        return fail(
          c,
          409,
          'key_reused',
          `Key "${w.key}" was already used for another request; use a new key for each.`,
        );
      return w.reply(stored);
    },
    /**
     * Stores with `insert` (false when the database refused it as a duplicate) and answers with
     * `stored`. When a concurrent request with the same key stored first, answers as it did;
     * otherwise the insert lost to another key for the same thing, answered by `taken`.
     */
    async store(
      insert: () => Promise<boolean>,
      stored: () => Response | Promise<Response>,
      taken: () => Response,
    ): Promise<Response> {
      if (await insert()) return stored();
      const raced = await w.find();
      if (raced !== undefined && w.same(raced)) return w.reply(raced);
      return taken();
    },
  };
}
