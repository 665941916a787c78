import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadAdminToken } from '../server/people/auth';
import { main } from './main';

const dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-login-link-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let out: string[] = [];
let err: string[] = [];
beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
    out.push(a.join(' '));
  });
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => {
    err.push(a.join(' '));
  });
  vi.stubEnv('ARC_STUDIO_ADMIN_TOKEN', '');
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('arc-studio login-link', () => {
  it("prints the whole login link of the data folder's token, as serve prints it last", async () => {
    const data = path.join(dir, 'data');
    loadAdminToken(data, {});
    const token = readFileSync(path.join(data, 'admin-token'), 'utf8').trim();
    expect(await main(['login-link', '--data-dir', data, '--url', 'http://studio.example:8080/'])).toBe(0);
    expect(out[0]).toBe(
      `Researcher login: http://studio.example:8080/login#token=${token}\n(the token is kept in ${path.join(data, 'admin-token')}; print this link again with "arc-studio login-link")`,
    );
  });

  it('says how to get a token when the folder has none, and writes nothing', async () => {
    const empty = path.join(dir, 'empty');
    expect(await main(['login-link', '--data-dir', empty])).toBe(1);
    expect(err[0]).toContain(`no researcher token in ${empty}: start the studio once`);
    expect(() => readFileSync(path.join(empty, 'admin-token'))).toThrow();
  });
});
