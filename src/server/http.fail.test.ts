/**
 * The API's error reply: `fail` writes `{error, message, ...extra}` with the status, and takes only
 * a code of the protocol's `ErrorCode` union (the `@ts-expect-error` lines fail `npm run
 * typecheck` the day a misspelt code would pass).
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ApiErrorBody } from '../core/protocol/errors';
import { fail } from './http';

describe('fail', () => {
  it('answers the status with the code, the message and the extra fields', async () => {
    const app = new Hono().get('/x', (c) =>
      fail(c, 429, 'rate_limited', 'Wait 3 s, then send it again.', { retryAfter: 3 }),
    );
    const res = await app.request('/x');
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({
      error: 'rate_limited',
      message: 'Wait 3 s, then send it again.',
      retryAfter: 3,
    } satisfies ApiErrorBody);
  });

  it('takes only codes of the protocol', () => {
    const app = new Hono();
    // @ts-expect-error a misspelt code is not an ErrorCode
    app.get('/y', (c) => fail(c, 404, 'not_fund', 'No such thing.'));
    // @ts-expect-error an error body's code is an ErrorCode too
    const body: ApiErrorBody = { error: 'notfound', message: 'No such thing.' };
    expect(body.error).toBe('notfound');
  });
});
