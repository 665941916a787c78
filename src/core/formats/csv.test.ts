import { describe, expect, it } from 'vitest';
import { CsvError, csvField, csvRecord, parseCsv, parseCsvObjects, unguardCsvText } from './csv';

/**
 * The cells of one line as a lenient spreadsheet import splits them on `separator`: a field
 * opened by a quote runs to its closing quote, and text after the closing quote is kept in the cell.
 */
function spreadsheetCells(line: string, separator: string): string[] {
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    let cell = '';
    if (line[i] === '"') {
      for (i++; i < line.length; i++) {
        if (line[i] === '"' && line[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (line[i] === '"') {
          i++;
          break;
        } else cell += line[i];
      }
    }
    while (i < line.length && line[i] !== separator && line[i] !== '\r') cell += line[i++];
    cells.push(cell);
    if (line[i] !== separator) return cells;
    i++;
  }
}

describe('CSV (RFC 4180)', () => {
  it('quotes only fields with a comma, a quote or a line break, doubling quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField(' padded ')).toBe(' padded ');
    expect(csvField('')).toBe('');
  });

  it('writes numbers, booleans and missing values plainly', () => {
    expect(csvRecord([1.5, -0, 0, true, false, null, undefined, Number.NaN, Infinity])).toBe(
      '1.5,0,0,true,false,,,,\r\n',
    );
    expect(csvRecord([])).toBe('\r\n');
  });

  it('reads back what it writes, whatever the fields hold', () => {
    const rows = [
      ['id', 'note', 'grid'],
      ['1', 'a "quoted", comma', '[[1,2],[3,4]]'],
      ['2', 'line\r\nbreak', ''],
      ['', '', '"'],
    ];
    const text = rows.map((r) => csvRecord(r)).join('');
    expect(parseCsv(text)).toEqual(rows);
    expect(parseCsvObjects(text)[0]).toEqual({ id: '1', note: 'a "quoted", comma', grid: '[[1,2],[3,4]]' });
  });

  it('guards text a spreadsheet would run as a formula, and only text', () => {
    const pid = '=HYPERLINK("http://x","y")';
    expect(csvField(pid)).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      const field = csvField(`${start}1+2`);
      expect(field, JSON.stringify(start)).toBe(`"'${start}1+2"`);
      // Read back, the field starts with the guard, never with the formula character.
      expect(parseCsv(field)[0][0]).toBe(`'${start}1+2`);
    }
    // Numbers stay numbers: a negative number in a numeric column is written plainly.
    expect(csvRecord([-3, -0.5, -1e-7])).toBe('-3,-0.5,-1e-7\r\n');
    // A character later in the text, or a space first, is no formula.
    expect(csvField('a=b')).toBe('a=b');
    expect(csvField('1-2')).toBe('1-2');
    expect(csvField("it's")).toBe("it's");
    expect(csvField("'quoted'")).toBe("'quoted'");
  });

  it('leaves no formula cell for a spreadsheet reading with ";" or tab as the separator', () => {
    // Text a participant controls, each hiding a formula after a separator some locale uses.
    const hostile = ["a;=cmd|' /C calc'!A0", 'b\t=1+1', 'c,@SUM(A1)', 'x;+2;-3', 'p\t-1;=2', '=lead;=next'];
    const text = csvRecord(['id', ...hostile, 7, -3]);
    for (const separator of [',', ';', '\t'] as const) {
      const cells = spreadsheetCells(text, separator);
      for (const cell of cells) {
        // A numeric cell is a number, never a formula; every other cell starts with plain text or the guard.
        if (cell === '-3') continue;
        expect(/^[=+\-@\t\r]/.test(cell), `${JSON.stringify(separator)}: ${JSON.stringify(cell)}`).toBe(false);
      }
    }
    // Read with the separator it was written with, every value comes back whole.
    expect(parseCsv(text)[0].map(unguardCsvText)).toEqual(['id', ...hostile, '7', '-3']);
    expect(csvField('a;b')).toBe('"a;b"');
    expect(csvField('a;=1')).toBe(`"a;'=1"`);
    expect(csvField('a\t\t=1;"@x')).toBe(`"a\t'\t'=1;'""@x"`);
    expect(csvField('a\tb')).toBe('"a\tb"');
  });

  it('unguards exactly what it guarded, text that starts with quotes included', () => {
    const texts = [
      '=1',
      '+1',
      '-1',
      '@SUM(A1)',
      '\tx',
      '\rx',
      "'=1",
      "''-1",
      "'",
      "'plain",
      'plain',
      '',
      '-',
      'a,b',
      '"=x"',
      "a;'=1",
      'a;;=1',
      "=a\t''\t=b",
      'a;"\'=c',
    ];
    const text = csvRecord(texts);
    const read = parseCsv(text)[0];
    expect(read.map(unguardCsvText)).toEqual(texts);
    // Every guarded field starts with a quote, so no spreadsheet runs it.
    for (const f of read) expect(/^[=+\-@\t\r]/.test(f), f).toBe(false);
  });

  it('reads LF line ends and a last record without a line end', () => {
    expect(parseCsv('a,b\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(parseCsv('a\n\nb\n')).toEqual([['a'], [''], ['b']]);
    expect(parseCsv('')).toEqual([]);
  });

  it('refuses malformed quoting with the record number', () => {
    expect(() => parseCsv('a,b\r\n"open,1\r\n')).toThrow(/record 2: a quoted field is not closed/);
    expect(() => parseCsv('a"b,c')).toThrow(CsvError);
    expect(() => parseCsv('"a"b,c')).toThrow(/text after a closing quote/);
    expect(() => parseCsvObjects('a,b\r\n1\r\n')).toThrow(/record 2 has 1 fields, the header has 2/);
  });
});
