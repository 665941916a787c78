/**
 * The official ARC-AGI-3 engine, toolkit and games vendored beside the checkout
 * (`../shared/vendor/arc-agi-3`, or `ARC_AGI_3_VENDOR`) as the tests use them: their paths, an
 * engine process's environment, action lists of the official games, and the toolkit's scripts.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
export const VENDOR = path.resolve(process.env.ARC_AGI_3_VENDOR ?? path.join(ROOT, '../shared/vendor/arc-agi-3'));
export const PYTHONPATH = path.join(VENDOR, 'python');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);
/** The official games (ls20, vc33, ft09) in the toolkit's layout. */
export const OFFICIAL_GAMES = path.join(VENDOR, 'environment_files');
/** Games of the tests in the toolkit's layout (tg01). */
export const FIXTURE_GAMES = path.join(ROOT, 'e2e/fixtures/arc3-games');
/** The environment of an engine process: the vendored engine, no games from the caller's environment, no `.pyc` files written into the vendor folder. */
export const ARC3_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  ARC_STUDIO_PYTHONPATH: PYTHONPATH,
  ARC_STUDIO_ARC3_GAMES: '',
  PYTHONDONTWRITEBYTECODE: '1',
};

export const LS20 = 'ls20-9607627b';
export const VC33 = 'vc33-5430563c';
export const TG01 = 'tg01-5e1f0a27';

/** `n` times the action `a`. */
export const times = (n: number, a: string): string[] => Array<string>(n).fill(a);
/** vc33: clicks that solve levels 1 and 2, one that changes nothing, and 75 that end level 3 in GAME_OVER. */
export const VC33_MOVES = {
  solve1: times(3, 'ACTION6:60:32'),
  solve2: [...times(2, 'ACTION6:0:24'), ...times(5, 'ACTION6:0:44')],
  waste: 'ACTION6:10:60',
  lose: times(75, 'ACTION6:60:32'),
} as const;
/** tg01's recorded solution (its README), after the opening RESET: 10 actions per level. */
export const TG01_SOLUTION: readonly string[] = [
  ...['ACTION2', 'ACTION2', 'ACTION4', 'ACTION4', 'ACTION4', 'ACTION4', 'ACTION4', 'ACTION2', 'ACTION2', 'ACTION2'],
  ...['ACTION6:12:52', 'ACTION2', 'ACTION2', 'ACTION4', 'ACTION4', 'ACTION4', 'ACTION4', 'ACTION2', 'ACTION2'],
  'ACTION4',
];

/**
 * Runs a script of `src/core/scoring/fixtures` against the vendored toolkit: `input` as JSON on
 * its standard input, its standard output read as JSON.
 */
export function runToolkit<T>(script: string, input: unknown): T {
  const r = spawnSync('python3', [path.join(ROOT, 'src/core/scoring/fixtures', script), VENDOR], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    timeout: 180_000,
    env: ARC3_ENV,
  });
  if (r.status !== 0) throw new Error(`the official toolkit failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/**
 * A copy of an official game's folder (`ls20/9607627b`) at `<root>/games/ls20/9607627b`, its files
 * writable, as a designer's folder to edit and reload; the copy's path. Mount `<root>/games`.
 */
export function editableGame(root: string, game: string): string {
  const dir = path.join(root, 'games', game);
  cpSync(path.join(OFFICIAL_GAMES, game), dir, { recursive: true });
  // The vendored files may be read-only; the designer's are not.
  for (const f of [`${game.split('/')[0]}.py`, 'metadata.json']) chmodSync(path.join(dir, f), 0o644);
  return dir;
}
