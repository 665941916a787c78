/**
 * New connections accepted several at a time. Node's libuv (1.45 and later, Node 20) accepts one
 * connection per turn of the event loop and leaves the rest in the kernel's accept queue until
 * the next turn. A server busy with participants' writes turns perhaps ten times a second, so at a
 * study launch new connections waited seconds in that queue (`npm run bench -- overload` measured
 * a median of 8 s between a client's connect and the server's accept at three times capacity),
 * where no admission figure sees them and nothing can be refused early.
 *
 * Every descriptor of the listening socket that the loop watches accepts one connection per
 * turn, so the server listens on `perTurn` descriptors of its one socket. Node 20 has no `dup()`
 * and no `reusePort`, so the copies are made the one way it offers: the listening handle is sent
 * to a short-lived child process, which sends it back `perTurn - 1` times (each message carries a
 * new descriptor of the same socket). The child never listens and exits once the copies arrived.
 * Connections accepted on a copy are handed to the server's own `connection` handler, so they are
 * exactly like the others (keep-alive, timeouts, the overload gate).
 *
 * The number is `ARC_STUDIO_ACCEPT_PER_TURN` (default {@link DEFAULT_ACCEPT_PER_TURN}; 1 keeps
 * Node's own behaviour). Documented in docs/deploy.md.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';

/** Connections accepted per turn of the event loop unless `ARC_STUDIO_ACCEPT_PER_TURN` says otherwise. */
export const DEFAULT_ACCEPT_PER_TURN = 64;

/** `ARC_STUDIO_ACCEPT_PER_TURN`, or the default; throws a message naming a bad value. */
export function acceptPerTurnFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.ARC_STUDIO_ACCEPT_PER_TURN;
  if (raw === undefined || raw === '') return DEFAULT_ACCEPT_PER_TURN;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 256)
    throw new Error(
      `ARC_STUDIO_ACCEPT_PER_TURN=${raw} is not a whole number from 1 to 256; unset it or give one, e.g. ARC_STUDIO_ACCEPT_PER_TURN=${DEFAULT_ACCEPT_PER_TURN} (1 accepts one connection per turn, as Node does by itself).`,
    );
  return n;
}

/** The child: sends the handle it is given back `argv[1]` times, and closes it once the parent disconnects. */
const COPIER = `process.once('message', (_m, handle) => {
  process.once('disconnect', () => handle.close());
  for (let i = 0; i < Number(process.argv[1]); i++) process.send('copy', handle);
});`;

/** The copies of a listening socket: `ready` once they listen, `close()` closes them. */
export interface AcceptCopies {
  /** Resolves once every copy listens (at once when none is made); rejects when they could not be made. */
  readonly ready: Promise<void>;
  /** Closes the copies, those still on their way included; call it before `server.close()`, or they go on accepting. */
  close(): void;
}

/**
 * Makes the listening `server` accept up to `perTurn` connections per turn of the event loop
 * (see the module's comment). The server accepts meanwhile, one per turn: the copies come from
 * a child process, which takes a few hundred ms on a busy machine, so nothing waits for them.
 * `backlog` is the accept queue's length, given again because every `listen()` on the socket sets it.
 *
 * @example
 * server.listen(port, host, backlog);
 * const copies = acceptSeveralPerTurn(server, DEFAULT_ACCEPT_PER_TURN, backlog);
 * copies.ready.catch((e) => log(`One connection per turn: ${e.message}`));
 * // ... on shutdown:
 * copies.close();
 * server.close();
 */
export function acceptSeveralPerTurn(server: Server, perTurn: number, backlog: number): AcceptCopies {
  const copies: Server[] = [];
  let closed = false;
  const close = () => {
    closed = true;
    for (const c of copies) c.close();
  };
  const handle = (server as unknown as { _handle?: { fd?: number } })._handle;
  // A worker of `--workers N` has no socket of its own (the primary accepts and hands connections on).
  if (perTurn <= 1 || process.platform === 'win32' || !(typeof handle?.fd === 'number' && handle.fd >= 0))
    return { ready: Promise.resolve(), close };
  const child = spawn(process.execPath, ['-e', COPIER, String(perTurn - 1)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let received = 0;
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (_m, copyHandle) => {
      received++;
      const copy = createServer();
      // The server's own handler: the connection is served as if the server had accepted it.
      copy.on('connection', (socket) => server.emit('connection', socket));
      copy.on('error', (e) => server.emit('error', e));
      copy.listen(copyHandle, backlog);
      copies.push(copy);
      // Closed meanwhile: this copy must not go on accepting.
      if (closed) copy.close();
      if (received === perTurn - 1) {
        child.disconnect();
        resolve();
      }
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`the process copying the listening socket ended (${code}) after ${received} copies`)),
    );
    child.send('listen', handle as Server);
  });
  return { ready, close };
}
