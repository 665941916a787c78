/**
 * The ARC-AGI-3 REST protocol's routes (`/api/games`, `/api/scorecard/...`, `/api/cmd/...`) and
 * the researcher's agent keys (`/api/admin/agent-keys`). Every body is read by `readJson`
 * (size, depth, NUL and other hazards refused) and checked by zod before the service sees it.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { formatIssues } from '../../core/study/schema';
import { adminGuard, readJson } from '../study/context';
import { API_KEY_HEADER, CloseScorecardSchema, COMMANDS, CommandSchema, OpenScorecardSchema, type ProtocolError } from './protocol';
import { AgentError, type AgentService } from './service';
import { agentRunRoutes } from './studyRuns';

/** A body larger than this is refused before it is read: `reasoning` and `opaque` are 16 KiB at most. */
const MAX_BODY = 64 * 1024;

const KeyNameSchema = z.object({ name: z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty').max(100, 'name is longer than 100 characters') });

type Status = 400 | 401 | 403 | 404 | 409 | 413 | 500 | 503;
const refuse = (c: Context, status: Status, error: ProtocolError | string, message: string) => c.json({ error, message }, status);

function failure(c: Context, e: unknown): Response {
  if (e instanceof AgentError) return refuse(c, e.status, e.error, e.message);
  throw e;
}

export function agentRoutes(service: AgentService, adminTokenHash: string): Hono {
  const api = new Hono<{ Variables: { keyId: string } }>();
  const limit = bodyLimit({ maxSize: MAX_BODY, onError: (c) => refuse(c, 413, 'VALIDATION_ERROR', `The request body is larger than ${MAX_BODY} bytes; reasoning and opaque may hold 16 KiB each.`) });

  // The agent's key: the researcher token or a key the researcher issued.
  const keyed = async (c: Context<{ Variables: { keyId: string } }>, next: () => Promise<void>) => {
    const key = c.req.header(API_KEY_HEADER);
    if (!key) return refuse(c, 401, 'UNAUTHORIZED', `Send an API key in the "${API_KEY_HEADER}" header: the researcher token, or an agent key issued at POST /api/admin/agent-keys.`);
    const keyId = await service.authenticate(key);
    if (keyId === null) return refuse(c, 401, 'UNAUTHORIZED', 'This API key is not valid here (unknown, or revoked). Ask the researcher for an agent key.');
    c.set('keyId', keyId);
    await next();
  };

  const body = async <T>(c: Context, schema: z.ZodType<T>, what: string): Promise<{ ok: true; value: T } | { ok: false; res: Response }> => {
    const read = await readJson(c);
    if (!read.ok) return read;
    if (read.body === null || typeof read.body !== 'object' || Array.isArray(read.body)) {
      return { ok: false, res: refuse(c, 400, 'VALIDATION_ERROR', `${what} needs a JSON object as its body.`) };
    }
    const parsed = schema.safeParse(read.body);
    if (!parsed.success) return { ok: false, res: refuse(c, 400, 'VALIDATION_ERROR', `${what}: ${formatIssues(parsed.error.issues).join('; ')}`) };
    return { ok: true, value: parsed.data };
  };

  api.get('/games', keyed, (c) => c.json(service.games().map(({ game_id, title, default_fps, tags }) => ({ game_id, title, default_fps, tags }))));
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
    return c.json({ card_id: await service.openCard(c.get('keyId'), { ...b.value, tags: b.value.tags }) });
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
      return c.json(await service.scorecard(c.get('keyId'), c.req.param('cardId')!, gameId, c.req.query('preset') ?? undefined) as object);
    } catch (e) {
      return failure(c, e);
    }
  };
  api.get('/scorecard/:cardId', keyed, (c) => getCard(c));
  api.get('/scorecard/:cardId/:gameId', keyed, (c) => getCard(c, c.req.param('gameId')));

  for (const action of COMMANDS) {
    api.post(`/cmd/${action}`, limit, keyed, async (c) => {
      const b = await body(c, CommandSchema, `${action}`);
      if (!b.ok) return b.res;
      try {
        const answer = await service.command(c.get('keyId'), action, b.value);
        return c.body(answer.json, 200, { 'Content-Type': 'application/json' });
      } catch (e) {
        return failure(c, e);
      }
    });
  }

  // The researcher's agent keys.
  const admin = new Hono();
  admin.use('*', adminGuard(adminTokenHash));
  admin.get('/', async (c) => c.json({ keys: await service.listKeys() }));
  admin.post('/', limit, async (c) => {
    const b = await body(c, KeyNameSchema, 'POST /api/admin/agent-keys');
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
  runs.use('*', adminGuard(adminTokenHash));
  runs.route('/', agentRunRoutes(service));
  api.route('/admin', runs);
  return api as unknown as Hono;
}
