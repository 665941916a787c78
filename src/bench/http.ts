/**
 * The load generators' HTTP: JSON over connections kept open between requests, as each
 * participant's browser keeps its own, so the figures measure the server and not a storm of new
 * handshakes in the generator.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, keepAliveMsecs: 30_000 });

export interface JsonAnswer {
  readonly status: number;
  readonly json: unknown;
  readonly headers: http.IncomingHttpHeaders;
}

/**
 * When a request's steps happened in the generator, `performance.now()` of this process (NaN: the
 * step did not happen). `start` is the call; `written` the moment the whole request was handed to
 * the socket; `response` when this process read the answer's headers; `end` its last byte.
 */
export interface RequestTiming {
  start: number;
  written: number;
  response: number;
  end: number;
  /** Whether the request opened a new connection (no kept-alive one was free). */
  newConnection: boolean;
  /** When that new connection was established. */
  connected: number;
}

export const newTiming = (): RequestTiming => ({
  start: NaN,
  written: NaN,
  response: NaN,
  end: NaN,
  newConnection: false,
  connected: NaN,
});

/**
 * Sends `payload` (JSON text, `''` for none) and parses the JSON answer. With `timeoutMs`, a
 * request not answered in time fails with an error named `TimeoutError`.
 */
export function requestJson(
  url: string,
  method: 'GET' | 'POST',
  payload: string,
  token?: string | null,
  timeoutMs?: number,
  timing?: RequestTiming,
): Promise<JsonAnswer> {
  if (timing) timing.start = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        timeout: timeoutMs,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(payload),
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        if (timing) timing.response = performance.now();
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => {
          if (timing) timing.end = performance.now();
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(text), headers: res.headers });
          } catch (e) {
            reject(e);
          }
        });
      },
    );
    req.on('timeout', () => {
      req.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' }));
    });
    req.on('error', reject);
    if (timing) {
      req.once('socket', (socket) => {
        // A socket still connecting is a new one; a kept-alive one is already open.
        if (!socket.connecting) return;
        timing.newConnection = true;
        socket.once('connect', () => {
          timing.connected = performance.now();
        });
      });
      req.once('finish', () => {
        timing.written = performance.now();
      });
    }
    req.end(payload);
  });
}
