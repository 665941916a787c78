/**
 * What the server hands anyone who asks: the built app's scripts carry no recorded solution of a
 * built-in game and no source maps; a researcher reads the solutions through the admin route.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from './studio-test';
import { solutions } from '../src/games';
import { ADMIN } from './study-helpers';

const ASSETS = path.resolve(fileURLToPath(new URL('../dist/assets', import.meta.url)));

test('the public scripts carry no recorded solution and no source map', async ({ request }) => {
  const files = readdirSync(ASSETS);
  expect(files.filter((f) => f.endsWith('.js')).length).toBeGreaterThan(1);
  expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  // Every recorded solution long enough to be unmistakable, as the game modules write it.
  const recorded = Object.values(solutions)
    .flat()
    .filter((s) => s.split(',').length >= 8);
  expect(recorded.length).toBeGreaterThan(5);
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    const text = readFileSync(path.join(ASSETS, file), 'utf8');
    expect(text.includes('sourceMappingURL'), file).toBe(false);
    for (const s of recorded) expect(text.includes(s), `${file} holds the solution ${s.slice(0, 40)}…`).toBe(false);
    // The served file is the one on disk, and a source map is not served beside it.
    const served = await request.get(`/assets/${file}`);
    expect(served.status()).toBe(200);
    expect((await request.get(`/assets/${file}.map`)).status()).toBe(404);
  }
});

test("a researcher reads a built-in game's recorded solutions; a visitor cannot", async ({ request }) => {
  const visitor = await request.get('/api/admin/games/push/solutions');
  expect(visitor.status()).toBe(401);
  const researcher = await request.get('/api/admin/games/push/solutions', { headers: ADMIN });
  expect(researcher.status()).toBe(200);
  expect(await researcher.json()).toEqual({ game: 'push', levels: [...solutions.push] });
  const unknown = await request.get('/api/admin/games/nope/solutions', { headers: ADMIN });
  expect(unknown.status()).toBe(404);
  expect((await unknown.json()).message).toContain('push');
});
