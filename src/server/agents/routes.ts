/**
 * The ARC-AGI-3 REST protocol's routes (`/api/games`, `/api/scorecard/...`, `/api/cmd/...`) and
 * the researcher's agent keys (`/api/admin/agent-keys`). Every body is read by `readJson`
 * (size, depth, NUL and other hazards refused) and checked by zod before the service sees it.
 */
import { bodyLimit } from '../http';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { formatIssues } from '../../core/study/schema';
import { jsonProblem } from '../../core/protocol/json';
import { AgentKeyRequest } from '../../core/protocol/requests';
import type { ErrorCode } from '../../core/protocol/errors';
import type { GameAction } from '../../core/game/types';
import { readJson } from '../study/context';
import {
  API_KEY_HEADER,
  CloseScorecardSchema,
  COMMANDS,
  CommandSchema,
  OpenScorecardSchema,
  type ProtocolError,
} from './protocol';
import { AgentError, type AgentService } from './service';
import { agentRunRoutes } from './studyRuns';
import { DATABASE_RETRY_AFTER_S } from '../store/unavailable';

/** A body larger than this is refused before it is read: `reasoning` and `opaque` are 16 KiB at most. */
export const MAX_BODY = 64 * 1024;

/** The refusal of a body over {@link MAX_BODY}. */
export const TOO_LARGE = {
  error: 'VALIDATION_ERROR',
  message: `The request body is larger than ${MAX_BODY} bytes; reasoning and opaque may hold 16 KiB each.`,
} as const;

const NO_KEY = `Send an API key in the "${API_KEY_HEADER}" header: the researcher token, or an agent key issued at POST /api/admin/agent-keys.`;
const BAD_KEY = 'This API key is not valid here (unknown, or revoked). Ask the researcher for an agent key.';

/** An answer of `POST /api/cmd/<action>`: its status and JSON text. */
export interface CommandReply {
  readonly status: 200 | Status;
  readonly json: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const reply = (
  status: Status,
  error: ProtocolError | ErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
): CommandReply => ({ status, json: JSON.stringify({ error, message, ...extra }) });

/** The answer when the database was not reachable: the agent sends the command again later (docs/api.md, "Database restarts"). */
export const DATABASE_UNAVAILABLE: CommandReply = {
  ...reply(
    503,
    'database_unavailable',
    `The database is not reachable right now (it may be restarting). Send the command again in ${DATABASE_RETRY_AFTER_S} s.`,
    { retryAfter: DATABASE_RETRY_AFTER_S },
  ),
  headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
};

/** The answer when the server itself failed on a command (logged where it happened). */
export const FAILED: CommandReply = reply(
  500,
  'internal',
  'The server failed on this request; nothing was changed. Try again, and report it if it repeats.',
);

/**
 * `POST /api/cmd/<action>` from the key header and the body's text to the answer: the key, the
 * JSON and its hazards, the schema, then the service. Both HTTP paths (the Hono route and the
 * server's direct path for this hottest route, see `directCommands`) answer through this one.
 */
export async function runCommand(
  service: AgentService,
  action: GameAction,
  key: string | undefined,
  text: string,
): Promise<CommandReply> {
  if (!key) return reply(401, 'UNAUTHORIZED', NO_KEY);
  const keyId = await service.authenticate(key);
  if (keyId === null) return reply(401, 'UNAUTHORIZED', BAD_KEY);
  let body: unknown;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch (e) {
      return reply(400, 'malformed', `The request body is not valid JSON (${(e as Error).message}).`);
    }
    const problem = jsonProblem(body);
    if (problem)
      return reply(
        400,
        'malformed',
        `The request body is refused: ${problem.path} ${problem.reason}. Nothing was stored.`,
        { path: problem.path },
      );
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return reply(400, 'VALIDATION_ERROR', `${action} needs a JSON object as its body.`);
  const parsed = CommandSchema.safeParse(body);
  if (!parsed.success)
    return reply(400, 'VALIDATION_ERROR', `${action}: ${formatIssues(parsed.error.issues).join('; ')}`);
  try {
    return { status: 200, json: (await service.command(keyId, action, parsed.data)).json };
  } catch (e) {
    if (e instanceof AgentError) return reply(e.status, e.error, e.message);
    throw e;
  }
}

type Status = 400 | 401 | 403 | 404 | 409 | 413 | 500 | 503;
const refuse = (c: Context, status: Status, error: ProtocolError | ErrorCode, message: string) =>
  c.json({ error, message }, status);

function failure(c: Context, e: unknown): Response {
  if (e instanceof AgentError) return refuse(c, e.status, e.error, e.message);
  throw e;
}

export function agentRoutes(service: AgentService): Hono {
  const api = new Hono<{ Variables: { keyId: string } }>();
  const limit = bodyLimit({ maxSize: MAX_BODY, onError: (c) => c.json(TOO_LARGE, 413) });

  // The agent's key: the researcher token or a key the researcher issued.
  const keyed = async (c: Context<{ Variables: { keyId: string } }>, next: () => Promise<void>) => {
    const key = c.req.header(API_KEY_HEADER);
    if (!key) return refuse(c, 401, 'UNAUTHORIZED', NO_KEY);
    const keyId = await service.authenticate(key);
    if (keyId === null) return refuse(c, 401, 'UNAUTHORIZED', BAD_KEY);
    c.set('keyId', keyId);
    await next();
  };

  const body = async <T>(
    c: Context,
    schema: z.ZodType<T>,
    what: string,
  ): Promise<{ ok: true; value: T } | { ok: false; res: Response }> => {
    const read = await readJson(c);
    if (!read.ok) return read;
    if (read.body === null || typeof read.body !== 'object' || Array.isArray(read.body)) {
      return { ok: false, res: refuse(c, 400, 'VALIDATION_ERROR', `${what} needs a JSON object as its body.`) };
    }
    const parsed = schema.safeParse(read.body);
    if (!parsed.success)
      return {
        ok: false,
        res: refuse(c, 400, 'VALIDATION_ERROR', `${what}: ${formatIssues(parsed.error.issues).join('; ')}`),
      };
    return { ok: true, value: parsed.data };
  };

  api.get('/games', keyed, (c) =>
    c.json(service.games().map(({ game_id, title, default_fps, tags }) => ({ game_id, title, default_fps, tags }))),
  );
  api.get('/games/:gameId', keyed, (c) => {
    try {
      const { game_id, title, default_fps, tags } = service.gameInfo(c.req.param('gameId') ?? '');
      return c.json({ game_id, title, default_fps, tags });
    } catch (e) {
      return failure(c, e);
    }
  });

  api.post('/scorecard/open', limit, keyed, async (c) => {
    const b = await body(c, OpenScorecardSchema, 'POST /api/scorecard/open');
    if (!b.ok) return b.res;
    try {
      return c.json({ card_id: await service.openCard(c.get('keyId'), { ...b.value, tags: b.value.tags }) });
    } catch (e) {
      return failure(c, e);
    }
  });
  api.post('/scorecard/close', limit, keyed, async (c) => {
    const b = await body(c, CloseScorecardSchema, 'POST /api/scorecard/close');
    if (!b.ok) return b.res;
    try {
      return c.json(await service.closeCard(c.get('keyId'), b.value.card_id));
    } catch (e) {
      return failure(c, e);
    }
  });
  const getCard = async (c: Context<{ Variables: { keyId: string } }>, gameId?: string) => {
    try {
      return c.json(
        (await service.scorecard(
          c.get('keyId'),
          c.req.param('cardId')!,
          gameId,
          c.req.query('preset') ?? undefined,
        )) as object,
      );
    } catch (e) {
      return failure(c, e);
    }
  };
  api.get('/scorecard/:cardId', keyed, (c) => getCard(c));
  api.get('/scorecard/:cardId/:gameId', keyed, (c) => getCard(c, c.req.param('gameId')));

  for (const action of COMMANDS) {
    api.post(`/cmd/${action}`, limit, async (c) => {
      const r = await runCommand(service, action, c.req.header(API_KEY_HEADER), await c.req.text());
      return c.body(r.json, r.status, { 'Content-Type': 'application/json' });
    });
  }

  // The researcher's agent keys.
  const admin = new Hono();
  admin.get('/', async (c) => c.json({ keys: await service.listKeys() }));
  admin.post('/', limit, async (c) => {
    const b = await body(c, AgentKeyRequest, 'POST /api/admin/agent-keys');
    if (!b.ok) return b.res;
    return c.json(await service.issueKey(b.value.name), 201);
  });
  admin.delete('/:keyId', async (c) => {
    const id = c.req.param('keyId');
    if (await service.revokeKey(id)) return c.json({ id, revoked: true });
    return refuse(c, 404, 'NOT_FOUND', `No active agent key "${id}"; GET /api/admin/agent-keys lists them.`);
  });
  api.route('/admin/agent-keys', admin);

  // Agent runs in a study's results, and their replays.
  const runs = new Hono();
  runs.route('/', agentRunRoutes(service));
  api.route('/admin', runs);
  return api as unknown as Hono;
}
