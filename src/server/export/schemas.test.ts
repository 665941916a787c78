import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSchemas } from './schemas';

const DOCS = path.resolve(__dirname, '../../../docs/formats/schemas');

describe('export schemas', () => {
  it('are the files in docs/formats/schemas, byte for byte (regenerate them from exportSchemas() after a change)', () => {
    const schemas = exportSchemas();
    expect(readdirSync(DOCS).sort()).toEqual(Object.keys(schemas).sort());
    for (const [name, schema] of Object.entries(schemas)) {
      expect(readFileSync(path.join(DOCS, name), 'utf8'), name).toBe(JSON.stringify(schema, null, 2) + '\n');
    }
  });

  it('give every schema an id, a title and, for CSV files, a pattern for each typed column', () => {
    for (const [name, s] of Object.entries(exportSchemas()) as [string, Record<string, unknown>][]) {
      expect(s.$id, name).toBe(`https://arc-studio.dev/schemas/${name}`);
      expect(typeof s.title).toBe('string');
    }
    const grid = exportSchemas()['grid-actions.schema.json'] as { properties: Record<string, { pattern?: string }> };
    expect(new RegExp(grid.properties.action_x.pattern!).test('')).toBe(true);
    expect(new RegExp(grid.properties.action_x.pattern!).test('12')).toBe(true);
    expect(new RegExp(grid.properties.action_x.pattern!).test('x')).toBe(false);
    expect(new RegExp(grid.properties.solved.pattern!).test('')).toBe(false);
  });
});
