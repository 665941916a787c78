/**
 * A participant's data on request, under `/api/admin` (owner or researcher; docs/api.md, "A
 * participant's data on request"):
 *
 * - `POST /participants/find` `{participantId}`: every session holding the id (as `PROLIFIC_PID`,
 *   `workerId` or `participantId`) in the studies the caller may manage, and the exports written
 *   since, which may hold them.
 * - `POST /participants/delete` `{participantId, reason, confirm}`: deletes all of it in one
 *   transaction and answers the receipt: what was removed per study, the exports to recall.
 * - `GET /participants/deletions`: the receipts of the caller's deletions (every one for the owner).
 * - `GET /participants/deletions/:receiptId`: a receipt again (its maker's, or any for the owner).
 *
 * The id itself is never stored by any of these: the audit trail and the receipt name the
 * participant by an HMAC-SHA-256 of it under a secret of the database, which a lab can compute
 * again from the id (a search shows it) but nobody can turn back into the id.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import type { ParticipantSearch } from '../../core/protocol/api';
import { ParticipantDeleteRequest, ParticipantFindRequest } from '../../core/protocol/requests';
import { auditActorOf, principalOf } from '../people/permissions';
import { roleOnStudy } from '../people/roles';
import type { Store } from '../store/types';
import { fail, readBody } from './context';
import type { StudyWiring } from './services';

/** The studies a caller may manage (null: every study, the owner's), or null when no person is known. */
async function managedStudies(c: Context, store: Store): Promise<readonly string[] | null> {
  const p = principalOf(c);
  if (!p || p.role === 'owner') return null;
  if (p.personId === null) return [];
  const out: string[] = [];
  for (const [studyId, member] of await store.people.membershipsOf(p.personId))
    if (roleOnStudy(p.role, member) === 'researcher') out.push(studyId);
  return out;
}

/** The keyed hash the audit trail and receipts name a participant by. */
async function participantHash(store: Store, participantId: string): Promise<string> {
  const key = await store.secret('participant-hash', () => randomBytes(32).toString('hex'));
  return createHmac('sha256', key).update(participantId, 'utf8').digest('hex');
}

export function participantRoutes({
  store,
  now,
  participants,
}: Pick<StudyWiring, 'store' | 'now' | 'participants'>): Hono {
  const admin = new Hono();

  admin.post('/participants/find', async (c) => {
    const body = await readBody(
      c,
      ParticipantFindRequest,
      'Send {"participantId": "<Prolific id, worker id or participant id>"}',
    );
    if (!body.ok) return body.res;
    const { participantId } = body.data;
    const studies = await managedStudies(c, store);
    const rows = await store.participantData.findParticipant(participantId, studies);
    const firsts = new Map<string, number>();
    for (const r of rows) firsts.set(r.studyId, Math.min(firsts.get(r.studyId) ?? Infinity, r.createdAt));
    const exports = await store.participantData.exportsSince(firsts);
    const out: ParticipantSearch['studies'][number][] = [];
    for (const studyId of firsts.keys()) {
      const rec = await store.getStudy(studyId);
      const title = (rec?.definition as { title?: unknown } | undefined)?.title;
      out.push({
        studyId,
        title: typeof title === 'string' ? title : studyId,
        sessions: rows
          .filter((r) => r.studyId === studyId)
          .map((r) => ({
            sessionId: r.sessionId,
            studyVersion: r.studyVersion,
            stage: r.stage,
            state: r.state,
            createdAt: r.createdAt,
            param: r.param,
          })),
        exports: exports.filter((e) => e.studyId === studyId),
      });
    }
    return c.json({
      participantHash: await participantHash(store, participantId),
      studies: out,
    } satisfies ParticipantSearch);
  });

  admin.post('/participants/delete', async (c) => {
    const body = await readBody(
      c,
      ParticipantDeleteRequest,
      'Deleting a participant\'s data is permanent; send {"participantId": "...", "reason": "...", "confirm": "<the participant id again>"}',
    );
    if (!body.ok) return body.res;
    const { participantId, reason, confirm } = body.data;
    if (confirm.trim() !== participantId)
      return fail(
        c,
        400,
        'confirmation_mismatch',
        'confirm must repeat the participant id exactly, so that a stray or replayed request cannot delete. Nothing was deleted.',
      );
    const studies = await managedStudies(c, store);
    const { receipt, tokenHashes } = await store.participantData.deleteParticipant({
      participantId,
      participantHash: await participantHash(store, participantId),
      studies,
      receipt: randomUUID(),
      reason,
      audit: { ...auditActorOf(c), at: now() },
    });
    if (receipt.studies.length === 0)
      return fail(
        c,
        404,
        'not_found',
        'No session holds this id (as PROLIFIC_PID, workerId or participantId) in the studies you may manage. Check the id as the participant gave it; nothing was deleted.',
      );
    participants.forget(tokenHashes);
    return c.json(receipt);
  });

  admin.get('/participants/deletions', async (c) => {
    const p = principalOf(c);
    const mine = p && p.role !== 'owner' ? (p.personId ?? '') : undefined;
    return c.json({ receipts: await store.participantData.receipts({ personId: mine }) });
  });

  admin.get('/participants/deletions/:receiptId', async (c) => {
    const id = c.req.param('receiptId');
    const found = /^[0-9a-f-]{36}$/.test(id) ? await store.participantData.receipt(id) : null;
    const p = principalOf(c);
    // A receipt is its maker's to read again, and the owner's.
    if (!found || (p && p.role !== 'owner' && found.personId !== p.personId))
      return fail(
        c,
        404,
        'not_found',
        `No deletion receipt "${id.slice(0, 40)}" of yours. The studio's Data requests page lists the receipts of your deletions.`,
      );
    const { personId: _person, ...receipt } = found;
    return c.json(receipt);
  });

  return admin;
}
