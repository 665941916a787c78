/**
 * The export routes. A researcher asks for an export (`POST /api/admin/studies/:studyId/exports`)
 * and gets a one-time download link (`GET /api/downloads/:token`), so a browser saves the file
 * straight to disk while the server streams it. Tokens are random, single use, expire after
 * 5 minutes and live in memory only. Documented in docs/api.md; error bodies are `{error, message}`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import type { ReplayGame } from '../../core/study/rules';
import type { TaskLibrary } from '../collections/collections';
import type { DownloadStore, Store } from '../store/types';
import { readBody } from '../study/context';
import { ExportRequest } from '../../core/protocol/requests';
import { hashToken } from '../people/auth';
import { ExportError, exportContext, exportReads, type ExportGames, type ExportStore } from './context';
import { exportOnThread, threadJob } from './thread';
import { builtInGamesOnly } from '../study/studies';
import type { ThreadReplay } from '../arc3/replayCheck';
import { EXPORT_FORMATS, FORMAT_NAMES, fileBase, isExportFormat } from './formats';
import { fail, stageQuery } from '../http';
import { ALL_STAGES } from '../../core/study/stages';
import { auditActorOf } from '../people/permissions';

/** How long a download link works, ms. */
export const DOWNLOAD_TTL_MS = 5 * 60_000;

export interface ExportDeps {
  /** What an export reads, its download links, and the audit trail its files are recorded in. */
  readonly store: ExportStore & DownloadStore & Pick<Store, 'people'>;
  readonly library: TaskLibrary;
  /** SHA-256 of the researcher token. */
  readonly adminTokenHash: string;
  readonly replay: ReplayGame | null;
  /** The games the server runs (built-in and arcengine); the built-in games when not given. */
  readonly gameInfo?: () => ExportGames;
  /** The clock, ms since the epoch. */
  readonly now?: () => number;
  /**
   * Write downloads on a worker thread (`thread.ts`): studies whose games are all built-in
   * (verified there by their engine, as `replay` does for them), and studies with server-run
   * games when `threadReplay` hands the thread what checks their logs (or nothing is verified).
   * Only a study with server-run games, verified, and no `threadReplay` is written here.
   */
  readonly exportThreads?: boolean;
  /** What an export thread needs to check server-run games' logs as `replay` does (`replayCheck.ts`). */
  readonly threadReplay?: () => ThreadReplay;
}

/**
 * A chunk source as a web stream that reads the next chunk only when the client takes one.
 * A source that fails calls `onError` and then errors the stream, never ends it: a download
 * that failed must reach the client as a broken connection, not as a complete file.
 */
/** A download ticket's name in the audit trail: the first 12 hex of its hash (never the token). */
const ticketId = (token: string) => hashToken(token).slice(0, 12);

/** The chunks as they are, and then the SHA-256 and length of all of them, once the last has gone out. */
async function* withHash(
  chunks: AsyncIterable<string | Uint8Array>,
  done: (sha256: string, bytes: number) => Promise<void>,
): AsyncIterable<string | Uint8Array> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of chunks) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    hash.update(b);
    bytes += b.length;
    yield chunk;
  }
  await done(hash.digest('hex'), bytes);
}

export function toWebStream(
  chunks: AsyncIterable<string | Uint8Array>,
  onError: (e: unknown) => void,
): ReadableStream<Uint8Array> {
  const it = chunks[Symbol.asyncIterator]();
  const enc = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(ctrl) {
        try {
          const r = await it.next();
          if (r.done) ctrl.close();
          else ctrl.enqueue(typeof r.value === 'string' ? enc.encode(r.value) : r.value);
        } catch (e) {
          onError(e);
          ctrl.error(e);
        }
      },
      async cancel() {
        await it.return?.();
      },
    },
    { highWaterMark: 1 },
  );
}

/** The routes, to mount at `/api` (`/admin/...` carries the researcher guard). */
export function exportRoutes(deps: ExportDeps): Hono {
  const now = deps.now ?? Date.now;
  // Every page an export reads lets the participants' writes go first (`exportReads`).
  const store = exportReads(deps.store);
  const context = (studyId: string, version: number | null, stage: string | null) =>
    exportContext({
      store,
      studyId,
      version,
      stage,
      library: deps.library,
      replay: deps.replay,
      games: deps.gameInfo?.(),
      now: now(),
    });

  const api = new Hono();
  const admin = new Hono();

  admin.post('/studies/:studyId/exports', async (c) => {
    const studyId = c.req.param('studyId');
    const body = await readBody(c, ExportRequest, `Send {"format": "${FORMAT_NAMES.join('" | "')}", "version"?: N}`);
    if (!body.ok) return body.res;
    const { format, version } = body.data;
    const st = stageQuery(c);
    if (!st.ok) return st.res;
    if (!isExportFormat(format)) {
      return fail(
        c,
        400,
        'unknown_format',
        `${format === undefined ? 'No format given' : `Unknown format ${JSON.stringify(format)}`}; formats: ${FORMAT_NAMES.join(', ')}.`,
      );
    }
    if (format === 'archive' && version !== undefined && version !== null)
      return fail(
        c,
        400,
        'malformed',
        'An archive holds every version of a study, to restore it whole: ask for it without "version".',
      );
    let base: string;
    try {
      base = fileBase(await context(studyId, version ?? null, st.stage));
    } catch (e) {
      if (e instanceof ExportError) return fail(c, e.status, e.code, e.message);
      throw e;
    }
    const t = now();
    const token = randomBytes(24).toString('base64url');
    // Kept in the database, so that the link works on whichever server the download reaches.
    await deps.store.addDownloadTicket({
      tokenHash: hashToken(token),
      studyId,
      version: version ?? null,
      format,
      stage: st.stage,
      expiresAt: t + DOWNLOAD_TTL_MS,
    });
    await deps.store.people.recordAudit({
      ...auditActorOf(c),
      studyId,
      action: 'export.create',
      target: studyId,
      reason: null,
      detail: { format, version: version ?? null, stage: st.stage ?? ALL_STAGES, ticket: ticketId(token) },
      at: t,
    });
    return c.json(
      {
        url: `/api/downloads/${token}`,
        fileName: EXPORT_FORMATS[format].fileName(base),
        expiresAt: t + DOWNLOAD_TTL_MS,
      },
      201,
    );
  });

  api.get('/downloads/:token', async (c) => {
    const claimed = await deps.store.claimDownloadTicket(hashToken(c.req.param('token')), now());
    if (claimed === 'missing')
      return fail(
        c,
        404,
        'not_found',
        'No such download link. Ask for the export again (POST /api/admin/studies/:studyId/exports).',
      );
    if (claimed === 'used')
      return fail(
        c,
        410,
        'gone',
        'This download link was used already; each link works once. Ask for the export again.',
      );
    if (claimed === 'expired')
      return fail(
        c,
        410,
        'gone',
        'This download link has expired (links work for 5 minutes). Ask for the export again.',
      );
    if (!isExportFormat(claimed.format))
      return fail(
        c,
        404,
        'not_found',
        `This download link names a format this server does not write (${claimed.format}); ask for the export again.`,
      );
    const ticket = { ...claimed, format: claimed.format };
    let ctx;
    try {
      ctx = await context(ticket.studyId, ticket.version, ticket.stage);
    } catch (e) {
      if (e instanceof ExportError) return fail(c, e.status === 400 ? 400 : 404, e.code, e.message);
      throw e;
    }
    const spec = EXPORT_FORMATS[ticket.format];
    const name = spec.fileName(fileBase(ctx));
    // Under @hono/node-server the Node response is at hand: a failure mid-stream destroys the
    // connection itself, before anything could end the response as if the file were whole.
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    const builtIn = [...ctx.versions.values()].every(builtInGamesOnly);
    const verify = deps.replay !== null;
    const onThread = deps.exportThreads === true && (builtIn || !verify || deps.threadReplay !== undefined);
    const chunks = onThread
      ? exportOnThread(
          threadJob(ticket.format, ctx, verify, !builtIn && verify ? deps.threadReplay!() : undefined),
          store,
        )
      : spec.write(ctx);
    // The file's hash goes in the audit trail beside the export that asked for it (same ticket).
    const recorded = withHash(chunks, (sha256, bytes) =>
      deps.store.people.recordAudit({
        studyId: ticket.studyId,
        actor: 'server',
        personId: null,
        credential: null,
        action: 'export.written',
        target: ticket.studyId,
        reason: null,
        detail: { format: ticket.format, file: name, sha256, bytes, ticket: ticketId(c.req.param('token')) },
        at: now(),
      }),
    );
    const stream = toWebStream(recorded, (e) => {
      console.error(
        `Export ${ticket.format} of study ${ticket.studyId} failed mid-stream; the download was aborted: ${e instanceof Error ? e.message : String(e)}`,
      );
      outgoing?.destroy();
    });
    return c.body(stream, 200, {
      'Content-Type': spec.contentType,
      'Content-Disposition': `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
  });

  api.route('/admin', admin);
  return api;
}
