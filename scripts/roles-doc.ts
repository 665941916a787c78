/**
 * Writes docs/api.md's table of routes and roles from the permission table
 * (src/server/people/permissions.ts), between its two markers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROLES_DOC_END, ROLES_DOC_START, rolesTable } from '../src/server/people/rolesDoc';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/api.md');
const doc = readFileSync(file, 'utf8');
const start = doc.indexOf(ROLES_DOC_START);
const end = doc.indexOf(ROLES_DOC_END);
if (start < 0 || end < start) {
  console.error(
    `docs/api.md has no "${ROLES_DOC_START}" ... "${ROLES_DOC_END}" markers; put them where the table goes.`,
  );
  process.exit(1);
}
writeFileSync(file, doc.slice(0, start) + rolesTable() + doc.slice(end + ROLES_DOC_END.length));
console.log('docs/api.md: routes and roles written.');
