import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSchemas } from './schemas';
import { jsonName, SESSION_COLUMNS } from './sessionColumns';

const DOCS = path.resolve(__dirname, '../../../docs/formats/schemas');

describe('export schemas', () => {
  it('are the files in docs/formats/schemas, byte for byte (regenerate them from exportSchemas() after a change)', () => {
    const schemas = exportSchemas();
    expect(readdirSync(DOCS).sort()).toEqual(Object.keys(schemas).sort());
    for (const [name, schema] of Object.entries(schemas)) {
      expect(readFileSync(path.join(DOCS, name), 'utf8'), name).toBe(JSON.stringify(schema, null, 2) + '\n');
    }
  });

  it('word each session column one way in every CSV and JSON schema that has it', () => {
    let seen = 0;
    // Files of rows that belong to sessions: the CSV files and the JSON lines of events and runs
    // (the JSON documents' studyVersion is the version exported, another thing).
    const rowFiles = Object.entries(exportSchemas()).filter(
      ([file, schema]) => 'x-columns' in schema || file === 'events.schema.json' || file === 'game-runs.schema.json',
    );
    for (const [file, schema] of rowFiles) {
      const props = (schema as { properties?: Record<string, { description?: string }> }).properties ?? {};
      for (const [name, col] of Object.entries(SESSION_COLUMNS)) {
        for (const key of new Set([name, jsonName(name)])) {
          // payments.csv's participant_id is the platform id a bonus file pays, without the
          // session id to fall back on: another column under the same name.
          if (!props[key] || (file === 'payments.schema.json' && key === 'participant_id')) continue;
          seen++;
          expect(props[key].description?.startsWith(col.description), `${file}: ${key}`).toBe(true);
        }
      }
    }
    // attempts (11), grid-actions (7), grades (6), responses (8), campaign (1), payments (2), events and game runs (5 each).
    expect(seen).toBe(45);
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
