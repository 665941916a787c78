/**
 * A PGlite data folder with every migration applied, made once and copied: a cold PGlite (its
 * `initdb`) takes seconds, a copy of a ready folder under one. Tests use it through
 * `testing.ts`; the folder is named after the PGlite version and the migrations, so a change of
 * either makes a new one.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { migrations } from './migrations';
import { openStore } from './open';

/** The installed PGlite's version (its package.json, found up from its entry point). */
function pgliteVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
    }
    if (path.dirname(dir) === dir)
      throw new Error('the installed @electric-sql/pglite has no package.json with its version');
    dir = path.dirname(dir);
  }
}

/**
 * The buffer pool of the databases made from the template, set as `ALTER SYSTEM` would set it.
 * PostgreSQL zeroes its whole pool at every start, and a fresh WebAssembly memory makes that a page
 * fault per page: 0.55 s of CPU for the default 128 MB against 0.11 s for this (a CPU profile of a
 * server's start), at each of the hundreds of databases a test run opens, most of them small and
 * short-lived. A server's own database keeps PostgreSQL's default.
 */
const TEMPLATE_SETTINGS = "shared_buffers = '16MB'\n";

/** The template's folder under `root` for this PGlite, these migrations and these settings. */
export function templateDir(root: string): string {
  const hash = createHash('sha256').update(pgliteVersion()).update(TEMPLATE_SETTINGS);
  for (const m of migrations) hash.update(`${m.version}\u0000${m.name}\u0000${m.sql}\u0000`);
  return path.join(root, `pglite-template-${hash.digest('hex').slice(0, 16)}`);
}

/**
 * Makes the template under `root` unless it is there already; returns its folder, a data folder
 * (`<folder>/db` is the database) that `seedDataDir` copies.
 */
export async function makeTemplate(root: string): Promise<string> {
  const dir = templateDir(root);
  if (existsSync(path.join(dir, 'db', 'PG_VERSION'))) return dir;
  // Made beside and renamed into place, so a template half made is never used.
  const making = `${dir}.making-${process.pid}`;
  rmSync(making, { recursive: true, force: true });
  mkdirSync(making, { recursive: true });
  const store = await openStore({ dataDir: making });
  await store.close();
  appendFileSync(path.join(making, 'db', 'postgresql.auto.conf'), TEMPLATE_SETTINGS);
  rmSync(path.join(making, 'db.lock'), { force: true });
  try {
    renameSync(making, dir);
  } catch (e) {
    // Another run made it meanwhile.
    rmSync(making, { recursive: true, force: true });
    if (!existsSync(dir)) throw e;
  }
  return dir;
}

/** Puts a copy of the template's database in `dataDir` (as `<dataDir>/db`), migrations applied. */
export function seedDataDir(template: string, dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  cpSync(path.join(template, 'db'), path.join(dataDir, 'db'), { recursive: true });
}
