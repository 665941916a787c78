/**
 * docs/architecture.md's map of `src/` ("Every folder of `src/`:") against the folders that exist:
 * every folder is named there, and every name there exists. A folder below a named `fixtures/`
 * is the fixture's own and needs no line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Where descriptions start: a line indented this far or more continues the description above it. */
const DESCRIPTION_COLUMN = 20;

/** The folders the map names, as paths from the project root (`src/core/grid`). */
export function namedFolders(doc: string): string[] {
  const start = doc.indexOf('Every folder of `src/`:');
  if (start < 0) throw new Error('docs/architecture.md has no "Every folder of `src/`:" map');
  const block = doc.slice(start).split('```')[1];
  const named: string[] = [];
  /** The path of the last folder named at each depth. */
  const at: string[] = [];
  for (const line of block.split('\n')) {
    const indent = line.length - line.trimStart().length;
    if (!line.trim() || indent >= DESCRIPTION_COLUMN) continue;
    const depth = indent / 2;
    const names = line
      .trimStart()
      .split(/\s{2,}/)[0]
      .split(/,\s*/);
    for (const name of names) {
      if (!name.endsWith('/')) throw new Error(`"${line.trim()}": a folder's name ends with "/"`);
      const full = depth === 0 ? name.slice(0, -1) : `${at[depth - 1]}/${name.slice(0, -1)}`;
      at[depth] = full;
      if (full.startsWith('src/')) named.push(full);
    }
  }
  return named;
}

/** Every folder under `dir`, as paths from the project root, but those below a `fixtures` folder. */
function folders(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const sub = `${dir}/${e.name}`;
    out.push(sub);
    if (e.name !== 'fixtures') out.push(...folders(sub));
  }
  return out;
}

describe("docs/architecture.md's map of src/", () => {
  const named = namedFolders(readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8'));
  const actual = folders('src');

  it('names every folder of src/', () => {
    expect(actual.filter((f) => !named.includes(f))).toEqual([]);
  });

  it('names no folder that does not exist', () => {
    expect(named.filter((f) => !actual.includes(f))).toEqual([]);
  });

  it('reads nested names, lists of names and descriptions that wrap', () => {
    const doc = [
      'Every folder of `src/`:',
      '',
      '```',
      'src/a/                the a',
      '  b/, c/                b and c',
      '                        more about b and c/',
      '    d/                  under c',
      'src/e/                e',
      'data/x/               not under src',
      '```',
    ].join('\n');
    expect(namedFolders(doc)).toEqual(['src/a', 'src/a/b', 'src/a/c', 'src/a/c/d', 'src/e']);
  });
});
