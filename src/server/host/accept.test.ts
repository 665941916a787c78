/**
 * New connections accepted several per turn of the event loop: connections that queued while the
 * thread was held are all let in on the next turns, served by the server's own handler, and the
 * copies of the listening socket close with the server.
 */
import { createServer as createHttpServer, get } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptPerTurnFromEnv, acceptSeveralPerTurn, DEFAULT_ACCEPT_PER_TURN } from './accept';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', 64, () => resolve((server.address() as { port: number }).port)),
  );

/**
 * Opens `n` connections while the thread is held (the kernel completes them and queues them for
 * accepting), then counts the connections the server accepted on each turn of the event loop
 * until all are in: the counts per turn.
 */
async function acceptedPerTurn(server: Server, port: number, n: number): Promise<number[]> {
  let accepted = 0;
  server.on('connection', () => accepted++);
  const clients: Socket[] = [];
  for (let i = 0; i < n; i++) clients.push(connect(port, '127.0.0.1').on('error', () => {}));
  open.push({ close: () => clients.forEach((c) => c.destroy()) });
  // Held until every connection waits in the accept queue: the kernel finishes the handshakes.
  const until = Date.now() + 300;
  while (Date.now() < until) {
    /* busy */
  }
  const turns: number[] = [];
  let seen = 0;
  while (seen < n) {
    await new Promise<void>((r) => setImmediate(r));
    turns.push(accepted - seen);
    seen = accepted;
  }
  return turns;
}

describe('accepting several connections per turn', () => {
  it('lets in the connections that queued behind a held thread several per turn, where Node alone takes one', async () => {
    // Node by itself (libuv 1.45 and later): one connection per turn, the reason for the copies.
    const plain = createServer();
    open.push(plain);
    expect(Math.max(...(await acceptedPerTurn(plain, await listen(plain), 12)))).toBe(1);

    const server = createServer();
    open.push(server);
    const port = await listen(server);
    const copies = acceptSeveralPerTurn(server, 8, 64);
    open.push(copies);
    await copies.ready;
    const turns = await acceptedPerTurn(server, port, 24);
    expect(turns.reduce((a, b) => a + b, 0)).toBe(24);
    // Eight descriptors of one socket: up to eight per turn (the kernel may still be finishing
    // a handshake, so a turn can take fewer).
    expect(Math.max(...turns)).toBeGreaterThan(1);
    expect(Math.max(...turns)).toBeLessThanOrEqual(8);
  });

  it("serves a connection accepted on a copy with the server's own handler, and stops accepting once closed", async () => {
    const server = createHttpServer((_req, res) => res.end('served'));
    open.push(server);
    const port = await listen(server);
    const copies = acceptSeveralPerTurn(server, 4, 64);
    await copies.ready;
    // Fresh connections (no keep-alive), so that the copies accept some of them.
    const answers = await Promise.all(
      Array.from(
        { length: 12 },
        () =>
          new Promise<string>((resolve, reject) =>
            get(`http://127.0.0.1:${port}/`, { agent: false }, (res) => {
              let text = '';
              res.on('data', (d: Buffer) => (text += d.toString()));
              res.on('end', () => resolve(text));
            }).on('error', reject),
          ),
      ),
    );
    expect(answers).toEqual(Array(12).fill('served'));

    copies.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // Nothing listens on the port any more: a connection is refused.
    const refused = await new Promise<string>((resolve) =>
      connect(port, '127.0.0.1')
        .once('connect', () => resolve('connected'))
        .once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error')),
    );
    expect(refused).toBe('ECONNREFUSED');
  });

  it('reads the number from the environment, and names a bad value', () => {
    expect(acceptPerTurnFromEnv({})).toBe(DEFAULT_ACCEPT_PER_TURN);
    expect(acceptPerTurnFromEnv({ ARC_STUDIO_ACCEPT_PER_TURN: '1' })).toBe(1);
    expect(() => acceptPerTurnFromEnv({ ARC_STUDIO_ACCEPT_PER_TURN: '0' })).toThrow(
      /ARC_STUDIO_ACCEPT_PER_TURN=0 is not a whole number from 1 to 256/,
    );
  });
});
