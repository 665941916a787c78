import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../server/app';
import { hashToken } from '../server/people/auth';
import { TaskLibrary } from '../server/collections/collections';
import { openStore } from '../server/store/open';
import { freshPostgresDatabase, seedDataDir } from '../server/store/testing';
import { runCli } from './testing';

const dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-people-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lastLine = (out: string) => out.trimEnd().split('\n').at(-1)!;

/** What a server on the same database answers to a token. */
async function me(where: { dataDir?: string; databaseUrl?: string }, token: string) {
  const store = await openStore(where);
  try {
    const api = createApi({
      library: new TaskLibrary(),
      version: 'test',
      study: { store, adminTokenHash: hashToken('not-this-one-0123456789'), replay: null, games: null },
    });
    const res = await api.request('/me', { headers: { Authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } finally {
    await store.close();
  }
}

describe('arc-studio users and tokens', () => {
  const data = path.join(dir, 'data');
  beforeAll(() => seedDataDir(data));

  it('adds a person, prints their sign-in link last, and makes a token that opens /api/me', async () => {
    const added = await runCli([
      'users',
      'add',
      'Ada@Lab.org',
      '--role',
      'researcher',
      '--data-dir',
      data,
      '--url',
      'https://studio.lab.org/',
    ]);
    expect(added.code, added.err).toBe(0);
    expect(lastLine(added.out)).toMatch(/^https:\/\/studio\.lab\.org\/signin#link=[\w-]{43}$/);
    const made = await runCli([
      'tokens',
      'create',
      '--user',
      'ada@lab.org',
      '--role',
      'viewer',
      '--days',
      '7',
      '--data-dir',
      data,
    ]);
    expect(made.code, made.err).toBe(0);
    const token = lastLine(made.out);
    expect(token).toMatch(/^arcp_[\w-]{43}$/);
    expect(await me({ dataDir: data }, token)).toMatchObject({
      status: 200,
      body: { email: 'ada@lab.org', role: 'viewer' },
    });
    const list = await runCli(['users', 'list', '--data-dir', data]);
    expect(list.out).toContain('ada@lab.org\tresearcher\tada\tactive');
    // A scope wider than the person's is refused.
    const wide = await runCli(['tokens', 'create', '--user', 'ada@lab.org', '--role', 'owner', '--data-dir', data]);
    expect(wide.code).toBe(1);
    expect(wide.err).toMatch(/cannot be wider/);
    // Disabled: the token stops.
    expect((await runCli(['users', 'disable', 'ada@lab.org', '--data-dir', data])).code).toBe(0);
    expect((await me({ dataDir: data }, token)).status).toBe(401);
  });

  it('revokes a token by its id', async () => {
    await runCli(['users', 'add', 'bob@lab.org', '--role', 'designer', '--data-dir', data]);
    const made = await runCli(['tokens', 'create', '--user', 'bob@lab.org', '--data-dir', data]);
    const id = /Token (t-[\w-]+)/.exec(made.out)![1];
    const listed = await runCli(['tokens', 'list', '--user', 'bob@lab.org', '--data-dir', data]);
    expect(listed.out).toContain(`${id}\tcommand line\tdesigner\tno expiry\topen`);
    expect((await runCli(['tokens', 'revoke', id, '--user', 'bob@lab.org', '--data-dir', data])).code).toBe(0);
    expect((await me({ dataDir: data }, lastLine(made.out))).status).toBe(401);
    const again = await runCli(['tokens', 'revoke', id, '--user', 'bob@lab.org', '--data-dir', data]);
    expect(again.err).toMatch(/no open token/);
  });

  it('says what is wrong with a command line', async () => {
    expect((await runCli(['users', 'add', 'x@lab.org', '--data-dir', data])).err).toMatch(/--role/);
    expect((await runCli(['users', 'add', 'x@lab.org', '--role', 'boss', '--data-dir', data])).err).toMatch(
      /not a role/,
    );
    expect((await runCli(['users', 'list', '--data-dir', path.join(dir, 'none')])).err).toMatch(/no database/);
  });

  it('works against PostgreSQL with DATABASE_URL, as serve does', async () => {
    const db = await freshPostgresDatabase('people');
    try {
      const pg = await openStore({ databaseUrl: db.url });
      await pg.close();
      const added = await runCli(['users', 'add', 'cy@lab.org', '--role', 'owner'], { DATABASE_URL: db.url });
      expect(added.code, added.err).toBe(0);
      const made = await runCli(['tokens', 'create', '--user', 'cy@lab.org', '--days', '1'], { DATABASE_URL: db.url });
      expect(await me({ databaseUrl: db.url }, lastLine(made.out))).toMatchObject({
        status: 200,
        body: { role: 'owner' },
      });
    } finally {
      await db.drop();
    }
  });
});
