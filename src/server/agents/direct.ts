/**
 * `POST /api/cmd/<action>` answered straight from Node's request, before the web framework: an
 * agent sends one command after another and waits for each answer, so the framework's per-request
 * work (a web `Request`, its body stream, an abort signal) is most of a command's time. The
 * answer itself comes from {@link runCommand}, the function the Hono route uses too; only the
 * reading of the body (with the same size limit) and the writing of the answer are here.
 * Any other method, path or query goes on to the framework.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GameAction } from '../../core/game/types';
import { API_KEY_HEADER } from './protocol';
import { databaseUnavailable } from '../store/unavailable';
import { DATABASE_UNAVAILABLE, FAILED, MAX_BODY, runCommand, TOO_LARGE, type CommandReply } from './routes';
import type { AgentService } from './service';

const COMMAND_PATH = /^\/api\/cmd\/(RESET|ACTION[1-7])$/;
const KEY_HEADER = API_KEY_HEADER.toLowerCase();

/**
 * A request handler that answers the protocol's commands and returns false for every other
 * request. `headers` go on every answer (the server's security headers).
 */
export function directCommands(
  service: AgentService,
  headers: Readonly<Record<string, string>>,
  log: (message: string) => void,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const m = COMMAND_PATH.exec(req.url ?? '');
    if (!m) return false;
    const send = (r: CommandReply) => {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(r.status, {
        ...headers,
        ...r.headers,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(r.json),
      });
      res.end(r.json);
    };
    const tooLarge = () => send({ status: 413, json: JSON.stringify(TOO_LARGE) });
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) {
      tooLarge();
      req.resume();
      return true;
    }
    const key = req.headers[KEY_HEADER];
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) tooLarge();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return;
      runCommand(
        service,
        m[1] as GameAction,
        Array.isArray(key) ? key[0] : key,
        Buffer.concat(chunks).toString('utf8'),
      ).then(send, (e: Error) => {
        if (databaseUnavailable(e)) return send(DATABASE_UNAVAILABLE);
        log(`POST ${req.url} failed: ${e.stack ?? e.message}`);
        send(FAILED);
      });
    });
    req.on('error', () => res.destroy());
    return true;
  };
}
