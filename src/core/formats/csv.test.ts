import { describe, expect, it } from 'vitest';
import { CsvError, csvField, csvRecord, parseCsv, parseCsvObjects } from './csv';

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
    expect(csvRecord([1.5, -0, 0, true, false, null, undefined, Number.NaN, Infinity])).toBe('1.5,0,0,true,false,,,,\r\n');
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

  it('reads LF line ends and a last record without a line end', () => {
    expect(parseCsv('a,b\n1,2')).toEqual([['a', 'b'], ['1', '2']]);
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
