/**
 * Reference recordings of a game, for designers and researchers (they hold no participant
 * identities): `GET /api/admin/games/:gameId/references` (the groups with their per-level
 * figures), `POST /api/admin/games/:gameId/references` (a multipart form: `group`, and one
 * `files` entry per `.recording.jsonl`) and `DELETE /api/admin/games/:gameId/references/:group`.
 * Documented in docs/api.md ("Reference recordings"); error bodies are `{error, message}`, with
 * `problems` (`[{file, line, message}]`) for bad lines.
 */
import { Hono } from 'hono';
import type { ReferenceGroupsView } from '../../core/protocol/api';
import { serviceReplayer } from '../arc3/adminRuns';
import type { Arc3RouteInfo } from '../arc3/runs';
import { stringProblem } from '../../core/protocol/json';
import { bodyLimit, fail } from '../http';
import { auditActorOf } from '../people/permissions';
import type { Store } from '../store/types';
import { groupView, importReferenceGroup, type ReferenceDeps, type ReferenceFile } from './importer';

/** The largest import the route reads; the CLI has no limit. */
export const MAX_REFERENCE_BYTES = 64 * 1024 * 1024;

export interface ReferenceRouteDeps {
  readonly store: Pick<Store, 'references'>;
  /** The server-run games; absent: none are mounted, and imports are refused. */
  readonly arc3?: Arc3RouteInfo;
  readonly now?: () => number;
}

/** The import's dependencies from the server's ARC-AGI-3 service. */
export function referenceDeps(deps: ReferenceRouteDeps): ReferenceDeps {
  const service = deps.arc3?.service;
  return {
    references: deps.store.references,
    game: (id) => {
      if (!service) return null;
      try {
        return service.info(service.resolve(id));
      } catch {
        return null;
      }
    },
    gameIds: () => service?.list().map((g) => g.id) ?? [],
    replayer: () => {
      if (!deps.arc3) throw new Error('no server-run games are mounted');
      // A fresh Python engine process when the server has one for checks, off the participants'.
      return (
        deps.arc3.checkReplayer?.() ?? {
          replayer: serviceReplayer(deps.arc3.service),
          release: () => Promise.resolve(),
        }
      );
    },
    now: deps.now ?? Date.now,
  };
}

const GAME_ID = /^[A-Za-z0-9_.-]{1,100}$/;

/** The routes, to mount under `/admin` before any router with a smaller body limit. */
export function referenceRoutes(deps: ReferenceRouteDeps): Hono {
  const admin = new Hono();
  const ref = referenceDeps(deps);

  admin.get('/games/:gameId/references', async (c) => {
    const gameId = c.req.param('gameId');
    if (!GAME_ID.test(gameId))
      return fail(
        c,
        400,
        'malformed',
        `"${gameId.slice(0, 40)}" is not a game id: letters, digits, "-", "_" and "." only.`,
      );
    const full = ref.game(gameId)?.id ?? gameId;
    const groups = await deps.store.references.listReferenceGroups(full);
    const views = [];
    for (const g of groups) views.push(await groupView(ref, g));
    return c.json({ game: full, groups: views } satisfies ReferenceGroupsView);
  });

  admin.post(
    '/games/:gameId/references',
    bodyLimit({
      maxSize: MAX_REFERENCE_BYTES,
      onError: (c) =>
        fail(
          c,
          413,
          'too_large',
          `The recordings are larger than ${MAX_REFERENCE_BYTES / 1024 / 1024} MiB together. Import them as several groups, or with "arc-studio recordings import", which has no limit.`,
        ),
    }),
    async (c) => {
      const gameId = c.req.param('gameId');
      if (!deps.arc3)
        return fail(
          c,
          404,
          'not_found',
          'This server runs no ARC-AGI-3 games, so it cannot check recordings: start it with --arc3-games DIR.',
        );
      let form: FormData;
      try {
        form = await c.req.formData();
      } catch {
        return fail(
          c,
          400,
          'malformed',
          'Send the recordings as a multipart form: a "group" field with the group\'s name and one "files" entry per .recording.jsonl file.',
        );
      }
      const group = form.get('group');
      const files: ReferenceFile[] = [];
      const utf8 = new TextDecoder('utf-8', { fatal: true });
      for (const entry of form.getAll('files')) {
        if (typeof entry === 'string')
          return fail(c, 400, 'malformed', 'Each "files" entry must be a file, not a text field.');
        let text: string;
        try {
          text = utf8.decode(await entry.arrayBuffer());
        } catch {
          return fail(
            c,
            422,
            'invalid_recording',
            `${entry.name.slice(0, 120)} is not UTF-8 text. Nothing was imported: give the .recording.jsonl files as the toolkit wrote them.`,
          );
        }
        // The name is stored and shown: control characters and lone surrogates go (PostgreSQL refuses NUL).
        const name = [...entry.name]
          .filter((ch) => ch >= ' ' && ch !== '\u007f' && stringProblem(ch) === null)
          .join('')
          .slice(0, 200);
        files.push({ name: name || `file ${files.length + 1}`, lines: text.split('\n') });
      }
      const out = await importReferenceGroup(
        ref,
        gameId,
        typeof group === 'string' ? group.trim() : '',
        files,
        auditActorOf(c).actor,
      );
      if ('refused' in out) {
        const r = out.refused;
        return fail(c, r.status, r.code, r.message, r.problems ? { problems: r.problems } : undefined);
      }
      return c.json(out.group, 201);
    },
  );

  admin.delete('/games/:gameId/references/:group', async (c) => {
    const gameId = c.req.param('gameId');
    const name = c.req.param('group');
    const full = ref.game(gameId)?.id ?? gameId;
    if (!(await deps.store.references.deleteReferenceGroup(full, name)))
      return fail(
        c,
        404,
        'not_found',
        `${full.slice(0, 100)} has no reference group "${name.slice(0, 80)}". GET /api/admin/games/${encodeURIComponent(full.slice(0, 100))}/references lists them.`,
      );
    return c.json({ deleted: { game: full, group: name } });
  });

  return admin;
}
