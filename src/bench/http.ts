/**
 * The load generators' HTTP: JSON over connections kept open between requests, as each
 * participant's browser keeps its own, so the figures measure the server and not a storm of new
 * handshakes in the generator.
 */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, keepAliveMsecs: 30_000 });

export interface JsonAnswer {
  readonly status: number;
  readonly json: unknown;
  readonly headers: http.IncomingHttpHeaders;
}

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
): Promise<JsonAnswer> {
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
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => {
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
    req.end(payload);
  });
}
