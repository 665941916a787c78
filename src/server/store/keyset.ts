/**
 * Keyset reads of one table in pages that never read more than a page, whatever the planner
 * guesses: the events and steps a store streams, and the rows an archive copies.
 */
import type { Queryable } from './driver';
import type { JsonPage } from './records';

type Row = Record<string, unknown>;

/** The largest value of an `integer` column. */
export const INT_MAX = 2_147_483_647;

/** A keyset read of one table: `key` (an integer column) in order, the rows `where` selects. */
export interface Keyset {
  readonly columns: string;
  readonly table: string;
  /** Conditions on the parameters `params` (`$1`...), e.g. `session_id = $1`. */
  readonly where: string;
  readonly params: readonly unknown[];
  readonly key: string;
}

/**
 * One page of a keyset read: the first `size` rows whose key is past `after`, in key order.
 *
 * WARNING: `key > after ORDER BY key LIMIT size` is planned from the table's statistics, and
 * PGlite never gathers any (it has no autovacuum). The planner then guesses a few hundred rows,
 * reads every later row of the session (or run) and sorts them for each page: a 200,000-event
 * log read in pages of 2,000 cost 100 reads of up to 200,000 rows, 12-20 s on the thread that
 * acknowledges participants' events. Here every query reads at most one page whatever the plan:
 * a window `after < key <= after + size` (keys are consecutive but for gaps, such as events held
 * past a missing seq), and where a window comes back short, the next key after it (one index
 * entry) tells whether the page goes on past a gap or the read is at its end.
 */
export async function keysetPage(db: Queryable, k: Keyset, after: number, size: number): Promise<Row[]> {
  const rows: Row[] = [];
  await keysetWindows(db, k, after, size, async (from, to) => {
    const n = k.params.length;
    const r = await db.query(
      `SELECT ${k.columns}, ${nextKey(k, n + 2)} AS keyset_next FROM ${k.table}
       WHERE ${k.where} AND ${k.key} > $${n + 1} AND ${k.key} <= $${n + 2} ORDER BY ${k.key}`,
      [...k.params, from, to],
    );
    const next = r.rows.length ? (r.rows[0].keyset_next as number | null) : undefined;
    // The last column added: removing it leaves each row as the table's columns alone.
    for (const row of r.rows) delete row.keyset_next;
    rows.push(...r.rows);
    return { n: r.rows.length, next };
  });
  return rows;
}

/**
 * One page of a keyset read as the database's own JSON text of its rows (`k.columns` is the SQL
 * of one row's JSON object): one value to decode instead of a row and a field per value, so a
 * long read costs the thread that acknowledges participants' events half as much on PGlite, and
 * a page bound for another thread is handed over as one string.
 */
export async function keysetJsonPage(db: Queryable, k: Keyset, after: number, size: number): Promise<JsonPage> {
  const parts: string[] = [];
  let count = 0;
  let last = after;
  await keysetWindows(db, k, after, size, async (from, to) => {
    const r = await db.query<{ n: number; last: number | null; page: string | null; next: number | null }>(
      `SELECT count(*)::int AS n, max(${k.key}) AS last, json_agg(${k.columns} ORDER BY ${k.key})::text AS page,
         ${nextKey(k, k.params.length + 2)} AS next
       FROM ${k.table} WHERE ${k.where} AND ${k.key} > $${k.params.length + 1} AND ${k.key} <= $${k.params.length + 2}`,
      [...k.params, from, to],
    );
    const { n, last: end, page, next } = r.rows[0];
    // No rows: no page (json_agg of nothing is null) and nothing to add.
    if (page !== null) {
      parts.push(page.slice(1, -1));
      count += n;
      last = end!;
    }
    return { n, next };
  });
  return { json: `[${parts.join(',')}]`, count, last };
}

/**
 * The SQL of the first key past parameter `$to` (null at the end): one index entry, read in the
 * statement of each window so that a page that ends short (most logs are shorter than a page)
 * needs no statement more to learn that the read is over.
 */
function nextKey(k: Keyset, to: number): string {
  return `(SELECT ${k.key} FROM ${k.table} WHERE ${k.where} AND ${k.key} > $${to} ORDER BY ${k.key} LIMIT 1)`;
}

/**
 * The windows of one keyset page: `read(from, to)` reads the rows with `from < key <= to` and
 * says how many there were and the first key past `to` (null: none; undefined: not read, as
 * when the window held no row); windows follow one another until `size` rows are read or the
 * rows end.
 */
async function keysetWindows(
  db: Queryable,
  k: Keyset,
  after: number,
  size: number,
  read: (from: number, to: number) => Promise<{ n: number; next: number | null | undefined }>,
): Promise<void> {
  const n = k.params.length;
  let got = 0;
  for (let from = after; ;) {
    const to = Math.min(from + (size - got), INT_MAX);
    const window = await read(from, to);
    got += window.n;
    if (got >= size || to === INT_MAX) return;
    let next = window.next;
    if (next === undefined) {
      const r = await db.query<{ next: number }>(
        `SELECT ${k.key} AS next FROM ${k.table} WHERE ${k.where} AND ${k.key} > $${n + 1} ORDER BY ${k.key} LIMIT 1`,
        [...k.params, to],
      );
      next = r.rows.length ? r.rows[0].next : null;
    }
    if (next === null) return;
    from = next - 1;
  }
}
