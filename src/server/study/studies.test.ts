import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { adminLoginMessage, bearer, hashToken, loadAdminToken, newToken, tokenMatches } from '../people/auth';
import { checkStudyReferences, gameIds, loadStudyFiles } from './studies';
import { TaskLibrary } from '../collections/collections';
import { backends } from '../store/testing';

const ROOT = path.resolve(__dirname, '../../..');
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-studies-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('study files', () => {
  it('loads the bundled sample, whose tasks and game all exist', async () => {
    const [sample] = await loadStudyFiles(path.join(ROOT, 'data/studies'));
    expect(sample.id).toBe('sample');
    expect(sample.study.items.map((i) => i.kind)).toEqual(['page', 'task', 'task', 'task', 'task', 'game']);
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    expect(await checkStudyReferences(sample.study, library, gameIds)).toEqual([]);
  });

  it('names the file and the path of each problem', async () => {
    const d = tmp();
    writeFileSync(
      path.join(d, 'bad.json'),
      JSON.stringify({ title: 'x', consent: '', items: [{ kind: 'task', id: 't', collection: 'c' }], completion: {} }),
    );
    writeFileSync(path.join(d, 'broken.json'), '{');
    writeFileSync(path.join(d, 'Bad Name.json'), '{}');
    const err = await loadStudyFiles(d).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(err).toContain(`${path.join(d, 'bad.json')}: items[0].task:`);
    expect(err).toContain(`${path.join(d, 'bad.json')}: completion.code:`);
    expect(err).toContain(`${path.join(d, 'broken.json')}: not valid JSON`);
    expect(err).toContain('the file name "Bad Name" must be');
  });
});

describe('tokens', () => {
  it('match only their own hash', () => {
    const t = newToken();
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenMatches(t, hashToken(t))).toBe(true);
    expect(tokenMatches(t + 'x', hashToken(t))).toBe(false);
    expect(tokenMatches(t, 'short')).toBe(false);
    expect(bearer('Bearer abc')).toBe('abc');
    expect(bearer('Basic abc')).toBeNull();
    expect(bearer(undefined)).toBeNull();
  });

  it('generates the researcher token once, keeps it private, and prints the whole link on every start', () => {
    const d = tmp();
    const first = loadAdminToken(d, {});
    expect(first.source).toBe('generated');
    const file = path.join(d, 'admin-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(tokenMatches(readFileSync(file, 'utf8').trim(), first.hash)).toBe(true);
    expect(adminLoginMessage(first, 'http://h:1')).toContain(`http://h:1/login#token=${first.fresh}`);
    const second = loadAdminToken(d, {});
    expect(second).toMatchObject({ source: 'file', fresh: null, hash: first.hash });
    expect(adminLoginMessage(second, 'http://h:1')).toContain(`http://h:1/login#token=${first.fresh}`);
    const env = loadAdminToken(d, { ARC_STUDIO_ADMIN_TOKEN: 'a-long-enough-token-value' });
    expect(env).toMatchObject({ source: 'env', hash: hashToken('a-long-enough-token-value') });
    // A token from the environment stays out of the output (a deployment's logs).
    expect(adminLoginMessage(env, 'http://h:1')).toBe(
      'Researcher login: http://h:1/login with the token in ARC_STUDIO_ADMIN_TOKEN',
    );
    expect(() => loadAdminToken(d, { ARC_STUDIO_ADMIN_TOKEN: 'short' })).toThrow(/16 characters/);
  });
});

describe('study files at start', () => {
  it('keep their version across restarts, and a changed file after a session makes a new version', async () => {
    const { syncStudyFiles } = await import('./studies');
    // PGlite from the template (a cold PGlite in memory would start from initdb).
    const store = await backends[0].open();
    try {
      const files = await loadStudyFiles(path.join(ROOT, 'data/studies'));
      await syncStudyFiles(store, files, 1);
      await store.createSession({
        id: 's1',
        studyId: 'sample',
        studyVersion: 1,
        tokenHash: 'h',
        params: {},
        seed: 1,
        order: [0, 1, 2, 3, 4, 5],
        createdAt: 2,
        flags: [],
      });
      // A restart reads the same file: the database's JSON has its keys in another order.
      await syncStudyFiles(store, await loadStudyFiles(path.join(ROOT, 'data/studies')), 3);
      expect((await store.getStudy('sample'))!.version).toBe(1);
      const changed = files.map((f) => ({ ...f, written: { ...f.written, title: 'Changed title' } }));
      await syncStudyFiles(store, changed, 4);
      expect((await store.getStudy('sample'))!.version).toBe(2);
    } finally {
      await store.close();
    }
  });
});
