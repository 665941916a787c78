/**
 * The body limit of the API's POST routes (`bodyLimit` in http.ts) on Node's HTTP server and in
 * process: a body of a stated length is judged by it, a chunked one as it arrives, and a body
 * within the limit reaches the route whole.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyLimit } from './http';

const MAX = 1000;
const app = new Hono();
app.use('*', bodyLimit({ maxSize: MAX, onError: (c) => c.json({ error: 'too_large' }, 413) }));
app.post('/echo', async (c) => c.json({ length: (await c.req.text()).length }));
app.get('/echo', (c) => c.json({ length: 0 }));

let base: string;
let server: ReturnType<typeof createAdaptorServer>;

beforeAll(async () => {
  server = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** A body sent in chunks of 100 characters, with no Content-Length. */
const chunked = (length: number) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let sent = 0; sent < length; sent += 100)
        c.enqueue(new TextEncoder().encode('x'.repeat(Math.min(100, length - sent))));
      c.close();
    },
  });

describe('bodyLimit', () => {
  it('passes a body within the limit to the route whole, stated or chunked, over HTTP and in process', async () => {
    for (const body of ['', 'x'.repeat(MAX)]) {
      const r = await fetch(`${base}/echo`, { method: 'POST', body });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ length: body.length });
      const local = await app.request('/echo', { method: 'POST', body });
      expect(await local.json()).toEqual({ length: body.length });
    }
    const r = await fetch(`${base}/echo`, { method: 'POST', body: chunked(MAX), duplex: 'half' } as RequestInit);
    expect(await r.json()).toEqual({ length: MAX });
    expect(await (await fetch(`${base}/echo`)).json()).toEqual({ length: 0 });
  });

  it('refuses a body past the limit with its answer, stated or chunked, over HTTP and in process', async () => {
    const stated = await fetch(`${base}/echo`, { method: 'POST', body: 'x'.repeat(MAX + 1) });
    expect(stated.status).toBe(413);
    expect(await stated.json()).toEqual({ error: 'too_large' });
    const sent = await fetch(`${base}/echo`, { method: 'POST', body: chunked(MAX + 1), duplex: 'half' } as RequestInit);
    expect(sent.status).toBe(413);
    const local = await app.request('/echo', { method: 'POST', body: 'x'.repeat(MAX + 1) });
    expect(local.status).toBe(413);
  });
});
