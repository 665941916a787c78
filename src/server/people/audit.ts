/**
 * The audit trail as a download: every entry of one study or of the whole server, one JSON object
 * a line, newest first, read in pages so that a long trail is never held whole in memory.
 */
import type { Context } from 'hono';
import type { PeopleStore } from '../store/peopleStore';

/** Entries read per query. */
const PAGE = 1_000;

/** The trail of `studyId` (the whole server's when undefined) as JSON lines, `pageSize` entries a read. */
export function auditLines(
  people: PeopleStore,
  studyId: string | undefined,
  pageSize = PAGE,
): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let before: number | undefined;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      if (done) return ctrl.close();
      const page = await people.listAudit({ studyId, limit: pageSize, before });
      if (page.length < pageSize) done = true;
      if (page.length === 0) return ctrl.close();
      before = page[page.length - 1].id;
      ctrl.enqueue(enc.encode(page.map((e) => JSON.stringify(e) + '\n').join('')));
    },
  });
}

/**
 * The answer of a `?format=jsonl` audit route: the whole trail as a file named `fileName`.
 *
 * @example
 * ```ts
 * if (c.req.query('format') === 'jsonl') return auditDownload(c, store.people, studyId, `audit-${studyId}.jsonl`);
 * ```
 */
export function auditDownload(
  c: Context,
  people: PeopleStore,
  studyId: string | undefined,
  fileName: string,
): Response {
  return c.body(auditLines(people, studyId), 200, {
    'Content-Type': 'application/x-ndjson',
    'Content-Disposition': `attachment; filename="${fileName}"`,
    'Cache-Control': 'no-store',
  });
}
