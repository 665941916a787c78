import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROLES_DOC_END, ROLES_DOC_START, rolesTable } from './rolesDoc';

/** A Markdown table as Prettier may align it: cells trimmed, rules of dashes alike. */
const normal = (md: string) =>
  md
    .split('\n')
    .map((line) => line.replace(/\s*\|\s*/g, '|').replace(/-{3,}/g, '---'))
    .join('\n');

describe("docs/api.md's routes and roles", () => {
  it('are the permission table as it is (run "npm run docs:roles" after changing it)', () => {
    const doc = readFileSync(path.resolve(__dirname, '../../../docs/api.md'), 'utf8');
    const start = doc.indexOf(ROLES_DOC_START);
    const end = doc.indexOf(ROLES_DOC_END);
    expect(start, 'docs/api.md has no roles table: run "npm run docs:roles"').toBeGreaterThan(0);
    expect(normal(doc.slice(start, end + ROLES_DOC_END.length))).toBe(normal(rolesTable()));
    expect(rolesTable()).toContain(
      '| `PUT /admin/studies/:studyId/members/:email` | owner; member as researcher of the study |',
    );
  });
});
