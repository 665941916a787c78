/**
 * CSV as RFC 4180 defines it: fields separated by commas, records ended by CRLF, a field
 * quoted with `"` when it holds a comma, a quote, CR or LF (a quote inside is doubled). A field
 * holding `;` or a tab is quoted too: spreadsheets in many locales read `;` or tab as the
 * separator. Such a reader honours a quote only at the start of its own cell, so text after a
 * `;` or tab inside a field starts a cell of its own there: when that text would start a formula
 * (`a;=cmd|...`, `a;"=cmd"`), the guard's `'` goes after the `;` or tab too (`a;'=cmd|...`).
 * Writers build one record at a time, so exports stream; the reader is for tests and tools.
 *
 * Formula guard (OWASP's rule against CSV injection): a spreadsheet runs a cell that starts
 * with `=`, `+`, `-`, `@`, tab or CR as a formula, so a text field starting with one of these
 * is written with a leading `'` and quoted: `=HYPERLINK("http://x","y")` is written as
 * `"'=HYPERLINK(""http://x"",""y"")"` and shows as text. Only text is guarded: numbers are
 * written as numbers (`-3`), so numeric columns stay numeric. The guard is reversible:
 * `unguardCsvText` gives back the original text.
 */

/** A value of a CSV cell: null and undefined are written as an empty field. */
export type CsvValue = string | number | boolean | null | undefined;

/** Quoted whatever separator the reader takes: `,`, `;` or tab. */
const NEEDS_QUOTES = /[",;\t\r\n]/;
/**
 * Text a spreadsheet would read as a formula. Leading `'`s are looked past, so text that
 * already starts with `'=` gets one more `'` and `unguardCsvText` gives back exactly the original.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;
/** A formula start right after a `;` or tab, where a `;`- or tab-separated reader starts a cell. */
const INNER_FORMULA = /([;\t])(?=['"]*[=+\-@\t\r])/g;
const INNER_GUARD = /([;\t])'(?=['"]*[=+\-@\t\r])/g;

/**
 * One field as CSV text. Numbers are written as JavaScript prints them (`1.5`, `-0` as `0`,
 * `-3` as `-3`); booleans as `true` / `false`; non-finite numbers as an empty field. Text that
 * a spreadsheet would run as a formula gets the formula guard: a leading `'`, and quotes.
 * @example csvField('a,b') // '"a,b"'
 * @example csvField('say "hi"') // '"say ""hi"""'
 * @example csvField('=1+1') // `"'=1+1"`
 * @example csvField(-3) // '-3'
 */
export function csvField(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v === 0 ? 0 : v) : '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const guarded = (FORMULA_START.test(v) ? "'" : '') + v.replace(INNER_FORMULA, "$1'");
  return FORMULA_START.test(v) || NEEDS_QUOTES.test(v) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/**
 * The original text of a field that `csvField` wrote: takes the formula guard's `'` off, and
 * leaves any other text as it is.
 * @example unguardCsvText("'=1+1") // '=1+1'
 * @example unguardCsvText("it's") // "it's"
 * @example unguardCsvText("a;'=1") // 'a;=1'
 */
export function unguardCsvText(field: string): string {
  const inner = field.replace(INNER_GUARD, '$1');
  return inner.startsWith("'") && FORMULA_START.test(inner) ? inner.slice(1) : inner;
}

/**
 * One record with its CRLF line end.
 * @example csvRecord(['id', 'note']) // 'id,note\r\n'
 */
export function csvRecord(values: readonly CsvValue[]): string {
  let out = '';
  for (let i = 0; i < values.length; i++) out += (i ? ',' : '') + csvField(values[i]);
  return out + '\r\n';
}

/** A CSV text that does not parse; the message names the record and what is wrong. */
export class CsvError extends Error {
  override readonly name = 'CsvError';
}

/**
 * Parses CSV text into records of string fields (CRLF or LF line ends; a final line end is
 * optional). Every record is returned, the header included.
 * @throws CsvError for a quote inside an unquoted field, text after a closing quote, or an
 * unclosed quote.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  const n = text.length;
  if (n === 0) return records;
  for (;;) {
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= n) throw new CsvError(`record ${records.length + 1}: a quoted field is not closed; close it with ".`);
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
      if (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
        throw new CsvError(
          `record ${records.length + 1}: text after a closing quote; quote the whole field and double the quotes inside it.`,
        );
      }
    } else {
      while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
        if (text[i] === '"')
          throw new CsvError(
            `record ${records.length + 1}: a quote inside an unquoted field; quote the field and double the quote.`,
          );
        field += text[i++];
      }
    }
    record.push(field);
    field = '';
    if (i >= n) {
      records.push(record);
      return records;
    }
    if (text[i] === ',') {
      i++;
      continue;
    }
    // A line end: CRLF or LF (a lone CR too).
    i += text[i] === '\r' && text[i + 1] === '\n' ? 2 : 1;
    records.push(record);
    record = [];
    if (i >= n) return records;
  }
}

/**
 * Parses CSV with a header into objects keyed by column name.
 * @throws CsvError when a record has a different number of fields than the header.
 */
export function parseCsvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map((r, k) => {
    if (r.length !== header.length)
      throw new CsvError(`record ${k + 2} has ${r.length} fields, the header has ${header.length}.`);
    return Object.fromEntries(header.map((h, j) => [h, r[j]]));
  });
}
