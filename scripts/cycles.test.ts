import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkImports } from './cycles.mjs';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.splice(0).map((f) => rm(f, { recursive: true, force: true })));
});

/** Writes the files into a fresh folder and runs the check on it: its exit code and what it would print. */
async function check(files: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cycles-'));
  folders.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return checkImports(dir);
}

// The check runs in this process (TypeScript loaded once); the check of src/ itself is `npm run
// lint`'s, as a command.
describe('scripts/cycles.mjs', () => {
  it('passes a tree whose imports go one way', async () => {
    const r = await check({
      'a.ts': "import { b } from './b';\nexport const a = b;\n",
      'b.ts': 'export const b = 1;\n',
    });
    expect(r).toEqual({ code: 0, stderr: '' });
  });

  it('fails on a loop of value imports and names the files along it', async () => {
    const r = await check({
      'a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'b.ts': "import { c } from './c';\nexport const b = () => c;\n",
      'c.ts': "export { a as c } from './a';\n",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('1 import cycle in');
    expect(r.stderr).toMatch(/3 files: \S*a\.ts\s+-> \S*b\.ts\s+-> \S*c\.ts\s+-> \S*a\.ts/);
  });

  it('counts a loop closed by `import type`', async () => {
    const r = await check({
      'game.ts':
        "import { levels } from './levels';\nexport interface Level { map: string }\nexport const all = levels;\n",
      'levels.ts': "import type { Level } from './game';\nexport const levels: Level[] = [];\n",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/2 files: \S*game\.ts\s+-> \S*levels\.ts\s+-> \S*game\.ts/);
  });

  it('counts a loop closed by a dynamic import()', async () => {
    const r = await check({
      'a.ts': "import { b } from './b';\nexport const a = b;\n",
      'b.ts': "export const b = 1;\nexport const later = () => import('./a');\n",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/2 files: \S*a\.ts\s+-> \S*b\.ts\s+-> \S*a\.ts/);
  });

  it('passes imports down the layers: a server feature from a lower one, the command from the server', async () => {
    const r = await check({
      'server/store/types.ts': 'export interface Row { id: string }\n',
      'server/study/rules.ts': "import type { Row } from '../store/types';\nexport const rows: Row[] = [];\n",
      'cli/serve.ts': "import { rows } from '../server/study/rules';\nexport const n = rows.length;\n",
    });
    expect(r).toEqual({ code: 0, stderr: '' });
  });

  it('fails on an upward import between server features, naming the file and both features', async () => {
    const r = await check({
      'server/store/sql.ts': "import { rule } from '../study/rules';\nexport const sql = rule;\n",
      'server/study/rules.ts': 'export const rule = 1;\n',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/server\/store\/sql\.ts imports \S*server\/study\/rules\.ts: upward, from store to study/);
  });

  it('fails on a sideways import between features of one layer, a type-only one too', async () => {
    const r = await check({
      'server/results/routes.ts': "import type { Q } from '../questions/score';\nexport const q: Q[] = [];\n",
      'server/questions/score.ts': 'export interface Q { id: string }\n',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/server\/results\/routes\.ts imports \S*: sideways, from results to questions/);
  });

  it('fails on the engine importing the server, and on a folder that no layer names', async () => {
    const r = await check({
      'core/grid.ts': "import { n } from '../server/http';\nexport const g = n;\n",
      'server/http.ts': 'export const n = 1;\n',
      'server/newFeature/x.ts': "import { n } from '../http';\nexport const x = n;\n",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/core\/grid\.ts imports \S*server\/http\.ts: upward, from core to server \(SRC_LAYERS\)/);
    expect(r.stderr).toMatch(/In no layer: \S*server\/newFeature \(SERVER_LAYERS\)/);
  });

  it('lets a test file import from any layer', async () => {
    const r = await check({
      'server/store/sql.test.ts': "import { rule } from '../study/rules';\nexport const t = rule;\n",
      'server/study/rules.ts': 'export const rule = 1;\n',
    });
    expect(r).toEqual({ code: 0, stderr: '' });
  });
});
