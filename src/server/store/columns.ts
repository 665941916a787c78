/**
 * Reading a row's columns as the stores' records hold them. The two back ends answer the same
 * column differently (PGlite a `Date` or a `jsonb` value, node-postgres sometimes the text), so
 * every read goes through these.
 */

/** A row as a driver answers it. */
export type Row = Record<string, unknown>;

/** A `timestamptz` column in milliseconds since the epoch. */
export const ms = (d: unknown): number => (d instanceof Date ? d.getTime() : new Date(String(d)).getTime());

/** {@link ms} of a nullable column: null stays null. */
export const msOrNull = (d: unknown): number | null => (d === null || d === undefined ? null : ms(d));

/** A `json`/`jsonb` column as its value, whether the driver parsed it or answered its text. */
export const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
