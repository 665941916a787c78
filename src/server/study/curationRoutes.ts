/**
 * The researcher's curation of a study's data, under `/api/admin` and its guard: excluding a
 * session from every count and counting it again, deleting a session, deleting a study, and the
 * study's audit log, which records each of these actions (who, what, which, when, why).
 *
 * An excluded session stays listed (marked) and exported (with `excluded`), and counts toward
 * nothing: results, funnels, baselines. A deletion is permanent; the request must repeat the
 * id it deletes in `confirm`, so that a stray or replayed request cannot delete. A study defined
 * by a file in the studies folder is not deleted: the file would re-create it at the next start.
 */
import { type Context, Hono } from 'hono';
import type { AuditEntry, DeletionResult, ExclusionResult } from '../../core/protocol/api';
import type { SessionRecord } from '../store/types';
import { DeleteRequest, ExclusionRequest } from '../../core/protocol/requests';
import { fail, readBody } from './context';
import type { StudyWiring } from './services';
import { auditDownload } from '../people/audit';
import { auditActorOf } from '../people/permissions';

/** A deletion's body, refused unless its `confirm` repeats the id being deleted. */
async function readDeletion(c: Context, what: 'session' | 'study', id: string) {
  const parsed = await readBody(
    c,
    DeleteRequest,
    `Deleting a ${what} is permanent; send {"confirm": "<the ${what} id>"}`,
    { absent: {} },
  );
  if (parsed.ok && parsed.data.confirm !== id) {
    return {
      ok: false as const,
      res: fail(
        c,
        400,
        'confirmation_mismatch',
        `confirm must be the ${what} id "${id.slice(0, 100)}" exactly; it is "${parsed.data.confirm.slice(0, 100)}". Nothing was deleted.`,
      ),
    };
  }
  return parsed;
}

export function curationRoutes({
  store,
  now,
  studyFile,
  participants,
  definitions,
}: Pick<StudyWiring, 'store' | 'now' | 'studyFile' | 'participants' | 'definitions'>): Hono {
  const admin = new Hono();

  const exclusion = async (c: Context, exclude: boolean) => {
    const id = c.req.param('sessionId')!;
    const parsed = await readBody(c, ExclusionRequest, `Send {"reason": "..."} (the reason is optional)`);
    if (!parsed.ok) return parsed.res;
    const reason = parsed.data.reason ?? null;
    const r = await store.setSessionExclusion(id, exclude ? { reason } : null, { ...auditActorOf(c), at: now() });
    if (!r)
      return fail(
        c,
        404,
        'not_found',
        `No session ${id.slice(0, 100)}; it may have been deleted. Reload the study's results.`,
      );
    return c.json(exclusionOf(r.session, r.changed));
  };
  admin.post('/sessions/:sessionId/exclude', (c) => exclusion(c, true));
  admin.post('/sessions/:sessionId/include', (c) => exclusion(c, false));

  admin.delete('/sessions/:sessionId', async (c) => {
    const id = c.req.param('sessionId');
    const parsed = await readDeletion(c, 'session', id);
    if (!parsed.ok) return parsed.res;
    const before = await store.getSession(id);
    const deleted = await store.deleteSession(id, {
      ...auditActorOf(c),
      reason: parsed.data.reason ?? null,
      at: now(),
    });
    if (!before || !deleted)
      return fail(c, 404, 'not_found', `No session ${id.slice(0, 100)}; it may have been deleted already.`);
    participants.forget([before.tokenHash]);
    return c.json({ studyId: before.studyId, sessionId: id, deleted } satisfies DeletionResult);
  });

  admin.delete('/studies/:studyId', async (c) => {
    const id = c.req.param('studyId');
    const parsed = await readDeletion(c, 'study', id);
    if (!parsed.ok) return parsed.res;
    if (!(await store.getStudy(id)))
      return fail(c, 404, 'not_found', `No study "${id.slice(0, 100)}"; it may have been deleted already.`);
    const file = (await studyFile?.(id)) ?? null;
    if (file) {
      return fail(
        c,
        409,
        'defined_by_file',
        `Study "${id}" is defined by the file ${file}, which the server loads at every start, so it would come back. Move that file out of the studies folder and restart the server, then delete the study; or delete its sessions one by one. Nothing was deleted.`,
        { file },
      );
    }
    const sessions = await store.listSessions(id);
    const deleted = await store.deleteStudy(id, { ...auditActorOf(c), reason: parsed.data.reason ?? null, at: now() });
    if (!deleted) return fail(c, 404, 'not_found', `No study "${id.slice(0, 100)}"; it may have been deleted already.`);
    participants.forget(sessions.map((s) => s.tokenHash));
    definitions.forget(id);
    return c.json({ studyId: id, deleted } satisfies DeletionResult);
  });

  // Also for a deleted study: its log says who deleted it. `?format=jsonl` downloads all of it.
  admin.get('/studies/:studyId/audit', async (c) => {
    const id = c.req.param('studyId');
    const missing = async (entries: number) =>
      entries === 0 && !(await store.getStudy(id))
        ? fail(
            c,
            404,
            'not_found',
            `No study "${id.slice(0, 100)}" and no audit log for one. GET /api/admin/studies lists the studies there are.`,
          )
        : null;
    if (c.req.query('format') === 'jsonl')
      return (
        (await missing((await store.people.listAudit({ studyId: id, limit: 1 })).length)) ??
        auditDownload(c, store.people, id, `audit-${id.replace(/[^\w.-]/g, '_').slice(0, 100)}.jsonl`)
      );
    const events = await store.listAuditEvents(id);
    return (await missing(events.length)) ?? c.json({ studyId: id, events: events.map((e): AuditEntry => ({ ...e })) });
  });

  return admin;
}

function exclusionOf(s: SessionRecord, changed: boolean): ExclusionResult {
  return {
    sessionId: s.id,
    studyId: s.studyId,
    excluded: s.excludedAt !== null,
    excludedAt: s.excludedAt,
    excludedReason: s.excludedReason,
    changed,
  };
}
