import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { hashToken } from './auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, loadStudyFiles, replayWithEngine, syncStudyFiles } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { SESSION_COOKIE } from './credentials';
import { COMMAND_LINE, createToken } from './service';
import { auditLines } from './audit';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-tests-0123456789';

/** Two servers on one database, each with its own caches, and a clock the test moves. */
describe.each(backends)('people routes ($name)', (backend) => {
  let store: Store;
  let a: Hono;
  let b: Hono;
  let clock = 1_800_000_000_000;

  beforeAll(async () => {
    store = await backend.open();
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    await syncStudyFiles(store, await loadStudyFiles(path.join(ROOT, 'data/studies')), clock);
    const make = () =>
      createApi({
        library,
        version: 'test',
        study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => clock },
      });
    a = make();
    b = make();
  });
  afterAll(async () => {
    await store.close();
  });

  interface Call {
    token?: string;
    cookie?: string;
    csrf?: string;
    body?: unknown;
    proto?: string;
  }
  const call = async (app: Hono, method: string, url: string, o: Call = {}) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (o.token) headers.Authorization = `Bearer ${o.token}`;
    if (o.cookie) headers.Cookie = `${SESSION_COOKIE}=${o.cookie}`;
    if (o.csrf) headers['X-CSRF-Token'] = o.csrf;
    if (o.proto) headers['X-Forwarded-Proto'] = o.proto;
    const res = await app.request(url, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      /* not JSON */
    }
    return { status: res.status, json, text, headers: res.headers };
  };
  const createTokenFor = async (email: string) =>
    createToken(
      store.people,
      (await store.people.personByEmail(email))!,
      { name: 'test', days: 1 },
      COMMAND_LINE,
      clock,
    );
  const cookieOf = (headers: Headers) => /arc_studio_session=([^;]*)/.exec(headers.get('Set-Cookie') ?? '')?.[1] ?? '';
  /** Invites a person as the owner and signs them in with the link; answers their cookie and CSRF token. */
  const invite = async (email: string, role: string) => {
    const made = await call(a, 'POST', '/admin/people', { token: ADMIN, body: { email, role } });
    expect(made.status, made.text).toBe(201);
    const link = (made.json.link as string).split('#link=')[1];
    const signed = await call(b, 'POST', '/auth/link', { body: { link } });
    expect(signed.status, signed.text).toBe(200);
    return { cookie: cookieOf(signed.headers), csrf: (signed.json.me as { csrf: string }).csrf, link };
  };

  it('answers /me for the bootstrap token as the owner, and 401 without a credential', async () => {
    expect((await call(a, 'GET', '/me', { token: ADMIN })).json).toMatchObject({ role: 'owner', via: 'admin-token' });
    expect((await call(a, 'GET', '/me')).status).toBe(401);
    expect((await call(a, 'GET', '/me', { token: 'arcp_not-a-real-token-000000000000' })).status).toBe(401);
  });

  it('signs in by a one-time link into an HttpOnly, SameSite cookie, Secure over HTTPS', async () => {
    const made = await call(a, 'POST', '/admin/people', {
      token: ADMIN,
      body: { email: 'Ada@Lab.org', role: 'researcher', name: 'Ada' },
    });
    expect(made.json).toMatchObject({ person: { email: 'ada@lab.org', role: 'researcher', hasPassword: false } });
    const link = (made.json.link as string).split('#link=')[1];
    const signed = await call(a, 'POST', '/auth/link', { body: { link }, proto: 'https' });
    const [setCookie, hint] = signed.headers.getSetCookie();
    expect(setCookie).toMatch(/^arc_studio_session=/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Secure/);
    // Beside it, a cookie the page can read that says only that a session is there.
    expect(hint).toMatch(/^arc_studio_signed_in=1;/);
    expect(hint).not.toMatch(/HttpOnly/);
    expect(hint).toMatch(/Secure/);
    // The link opens once.
    expect((await call(a, 'POST', '/auth/link', { body: { link } })).status).toBe(401);
    const cookie = cookieOf(signed.headers);
    const me = await call(b, 'GET', '/me', { cookie });
    expect(me.json).toMatchObject({ email: 'ada@lab.org', role: 'researcher', via: 'session' });
    // Over plain HTTP the cookie is not marked Secure (it would never be sent back).
    const again = await call(a, 'POST', `/admin/people/ada@lab.org/link`, { token: ADMIN });
    const plain = await call(a, 'POST', '/auth/link', {
      body: { link: (again.json.link as string).split('#link=')[1] },
    });
    expect(plain.headers.get('Set-Cookie')).not.toMatch(/Secure/);
  });

  it('refuses a write with the cookie but without its CSRF token', async () => {
    const { cookie, csrf } = await invite('carl@lab.org', 'researcher');
    const noCsrf = await call(a, 'PUT', '/me/password', { cookie, body: { password: 'a long enough password' } });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.json.message).toMatch(/X-CSRF-Token/);
    const wrong = await call(a, 'PUT', '/me/password', {
      cookie,
      csrf: 'x'.repeat(43),
      body: { password: 'a long enough password' },
    });
    expect(wrong.status).toBe(403);
    const ok = await call(a, 'PUT', '/me/password', { cookie, csrf, body: { password: 'a long enough password' } });
    expect(ok.status, ok.text).toBe(200);
    const pw = await call(b, 'POST', '/auth/password', {
      body: { email: 'CARL@lab.org', password: 'a long enough password' },
    });
    expect(pw.status, pw.text).toBe(200);
  });

  it('rate-limits failed password sign-ins per email on every server, and records them', async () => {
    await invite('dora@lab.org', 'viewer');
    for (let i = 0; i < 5; i++) {
      const r = await call(i % 2 ? a : b, 'POST', '/auth/password', {
        body: { email: 'dora@lab.org', password: `wrong guess ${i}` },
      });
      expect(r.status).toBe(401);
    }
    const limited = await call(a, 'POST', '/auth/password', {
      body: { email: 'dora@lab.org', password: 'wrong guess 6' },
    });
    expect(limited.status).toBe(429);
    expect(limited.json.message).toMatch(/Too many failed sign-ins/);
    const audit = await call(a, 'GET', '/admin/audit', { token: ADMIN });
    const fails = (audit.json.entries as { action: string; actor: string }[]).filter((e) => e.action === 'signin.fail');
    expect(fails.filter((e) => e.actor === 'dora@lab.org')).toHaveLength(5);
    // The window passes.
    clock += 16 * 60_000;
    expect(
      (await call(a, 'POST', '/auth/password', { body: { email: 'dora@lab.org', password: 'wrong guess 7' } })).status,
    ).toBe(401);
  });

  it('signs a browser out, and every browser of a person out everywhere', async () => {
    const first = await invite('eve@lab.org', 'designer');
    const link = await call(a, 'POST', '/admin/people/eve@lab.org/link', { token: ADMIN });
    const second = cookieOf(
      (await call(a, 'POST', '/auth/link', { body: { link: (link.json.link as string).split('#link=')[1] } })).headers,
    );
    expect((await call(a, 'POST', '/auth/signout', { cookie: first.cookie, csrf: first.csrf })).status).toBe(200);
    expect((await call(a, 'GET', '/me', { cookie: first.cookie })).status).toBe(401);
    expect((await call(a, 'GET', '/me', { cookie: second })).status).toBe(200);
    const me = await call(a, 'GET', '/me', { cookie: second });
    const everywhere = await call(a, 'POST', '/auth/signout-everywhere', {
      cookie: second,
      csrf: me.json.csrf as string,
    });
    expect(everywhere.json).toEqual({ ended: 1 });
    clock += 3_000;
    expect((await call(b, 'GET', '/me', { cookie: second })).status).toBe(401);
  });

  it('makes personal tokens no wider than the person, and stops them when revoked', async () => {
    const { cookie, csrf } = await invite('finn@lab.org', 'researcher');
    const wide = await call(a, 'POST', '/me/tokens', { cookie, csrf, body: { name: 'too wide', role: 'owner' } });
    expect(wide.status).toBe(403);
    const made = await call(a, 'POST', '/me/tokens', {
      cookie,
      csrf,
      body: { name: 'laptop', role: 'viewer', days: 30 },
    });
    expect(made.status, made.text).toBe(201);
    const token = made.json.token as string;
    expect(token).toMatch(/^arcp_/);
    expect(made.json).not.toHaveProperty('tokenHash');
    expect((await call(b, 'GET', '/me', { token })).json).toMatchObject({
      email: 'finn@lab.org',
      role: 'viewer',
      personRole: 'researcher',
    });
    const listed = await call(a, 'GET', '/me/tokens', { token });
    expect(listed.text).not.toContain(hashToken(token));
    expect((listed.json.tokens as { name: string }[]).map((t) => t.name)).toEqual(['laptop']);
    expect((await call(a, 'DELETE', `/me/tokens/${made.json.id as string}`, { cookie, csrf })).status).toBe(200);
    expect((await call(a, 'GET', '/me', { token })).status).toBe(401);
    // Expiry.
    const short = await call(a, 'POST', '/me/tokens', { cookie, csrf, body: { name: 'short', days: 1 } });
    clock += 86_400_000 + 1;
    expect((await call(a, 'GET', '/me', { token: short.json.token as string })).status).toBe(401);
  });

  it('disables a person at once on this server, and within the cache on another', async () => {
    const { cookie } = await invite('gus@lab.org', 'viewer');
    const made = await call(a, 'POST', '/me/tokens', {
      cookie,
      csrf: (await call(a, 'GET', '/me', { cookie })).json.csrf as string,
      body: { name: 'ci' },
    });
    const token = made.json.token as string;
    expect((await call(b, 'GET', '/me', { token })).status).toBe(200);
    expect((await call(b, 'GET', '/me', { cookie })).status).toBe(200);
    const off = await call(a, 'PATCH', '/admin/people/gus@lab.org', { token: ADMIN, body: { disabled: true } });
    expect(off.json).toMatchObject({ person: { email: 'gus@lab.org' } });
    expect((await call(a, 'GET', '/me', { token })).status).toBe(401);
    expect((await call(a, 'GET', '/me', { cookie })).status).toBe(401);
    // The other server read the database at most 2 s ago; past that it refuses too.
    clock += 2_001;
    expect((await call(b, 'GET', '/me', { token })).status).toBe(401);
    expect((await call(b, 'GET', '/me', { cookie })).status).toBe(401);
    expect(
      (await call(a, 'POST', '/auth/password', { body: { email: 'gus@lab.org', password: 'whatever it was' } })).status,
    ).toBe(401);
  });

  it('keeps the People routes and the server-wide audit to the owner', async () => {
    const { cookie, csrf } = await invite('hal@lab.org', 'researcher');
    expect((await call(a, 'GET', '/admin/people', { cookie })).status).toBe(403);
    expect(
      (await call(a, 'POST', '/admin/people', { cookie, csrf, body: { email: 'x@lab.org', role: 'owner' } })).status,
    ).toBe(403);
    expect((await call(a, 'GET', '/admin/audit', { cookie })).status).toBe(403);
    const people = await call(a, 'GET', '/admin/people', { token: ADMIN });
    expect(people.text).not.toMatch(/scrypt/);
    expect(
      (await call(a, 'POST', '/admin/people', { token: ADMIN, body: { email: 'not an email', role: 'viewer' } }))
        .status,
    ).toBe(400);
    expect(
      (await call(a, 'POST', '/admin/people', { token: ADMIN, body: { email: 'hal@lab.org', role: 'viewer' } })).status,
    ).toBe(409);
  });

  it('adds and removes study members, by the owner or a researcher member, with the person named in the audit', async () => {
    const res = await invite('ida@lab.org', 'researcher');
    const viewer = await invite('jan@lab.org', 'viewer');
    const put = (who: Call, email: string, role: string) =>
      call(a, 'PUT', `/admin/studies/sample/members/${email}`, { ...who, body: { role } });
    expect((await put({ cookie: res.cookie, csrf: res.csrf }, 'jan@lab.org', 'viewer')).status).toBe(403);
    expect((await put({ token: ADMIN }, 'ida@lab.org', 'researcher')).status).toBe(200);
    expect((await put({ cookie: res.cookie, csrf: res.csrf }, 'jan@lab.org', 'viewer')).status).toBe(200);
    expect((await put({ token: ADMIN }, 'nobody@lab.org', 'viewer')).status).toBe(404);
    expect((await put({ token: ADMIN }, 'jan@lab.org', 'owner')).status).toBe(400);
    expect(
      (await call(a, 'PUT', '/admin/studies/nope/members/jan@lab.org', { token: ADMIN, body: { role: 'viewer' } }))
        .status,
    ).toBe(404);
    // A viewer member may not change the members.
    expect((await put({ cookie: viewer.cookie, csrf: viewer.csrf }, 'jan@lab.org', 'researcher')).status).toBe(403);
    // The studies list says each caller's standing on each study it shows.
    const standing = async (who: Call) =>
      ((await call(a, 'GET', '/admin/studies', who)).json.studies as { id: string; yourRole: string }[]).map((s) => [
        s.id,
        s.yourRole,
      ]);
    expect(await standing({ cookie: res.cookie })).toEqual([['sample', 'researcher']]);
    expect(await standing({ cookie: viewer.cookie })).toEqual([['sample', 'viewer']]);
    expect((await standing({ token: ADMIN })).every(([, role]) => role === 'owner')).toBe(true);
    const members = await call(a, 'GET', '/admin/studies/sample/members', { cookie: res.cookie });
    expect((members.json.members as { email: string; role: string }[]).map((m) => [m.email, m.role])).toEqual([
      ['ida@lab.org', 'researcher'],
      ['jan@lab.org', 'viewer'],
    ]);
    const study = (app: Hono) => call(app, 'GET', '/admin/studies/sample', { cookie: viewer.cookie });
    expect((await study(b)).status).toBe(200);
    expect(
      (await call(a, 'DELETE', '/admin/studies/sample/members/jan@lab.org', { cookie: res.cookie, csrf: res.csrf }))
        .status,
    ).toBe(200);
    // Removed: refused at once by the server that removed her, by another once its 2 s cache has passed.
    expect((await study(a)).status).toBe(403);
    expect((await study(b)).status).toBe(200);
    clock += 2_001;
    expect((await study(b)).status).toBe(403);
    const audit = await store.people.listAudit({ studyId: 'sample' });
    expect(audit.slice(0, 2).map((e) => [e.actor, e.action, e.target])).toEqual([
      ['ida@lab.org', 'member.delete', 'jan@lab.org'],
      ['ida@lab.org', 'member.put', 'jan@lab.org'],
    ]);
    expect(audit[0].credential).toMatch(/^session:[0-9a-f]{12}$/);

    // The study's audit view names the person and the credential; its download holds every entry.
    const view = await call(a, 'GET', '/admin/studies/sample/audit', { cookie: res.cookie });
    expect((view.json.events as Record<string, unknown>[])[0]).toMatchObject({
      actor: 'ida@lab.org',
      action: 'member.delete',
      personId: (await store.people.personByEmail('ida@lab.org'))!.id,
      credential: audit[0].credential,
    });
    const all = await store.people.listAudit({ studyId: 'sample', limit: 10_000 });
    const download = await a.request('/admin/studies/sample/audit?format=jsonl', {
      headers: { Authorization: `Bearer ${ADMIN}` },
    });
    expect(download.headers.get('Content-Disposition')).toBe('attachment; filename="audit-sample.jsonl"');
    expect(
      (await download.text())
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual(all);
    expect((await call(a, 'GET', '/admin/studies/none/audit?format=jsonl', { token: ADMIN })).status).toBe(404);
    // A viewer member may not read it.
    expect((await call(a, 'GET', '/admin/studies/sample/audit', { cookie: viewer.cookie })).status).toBe(403);
  });

  it("downloads the whole server's audit trail, page after page", async () => {
    const everything = await store.people.listAudit({ limit: 10_000 });
    expect(everything.length).toBeGreaterThan(3);
    const read = async (stream: ReadableStream<Uint8Array>) =>
      (await new Response(stream).text())
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown);
    // Pages of 2 entries: the page boundaries lose and repeat nothing.
    expect(await read(auditLines(store.people, undefined, 2))).toEqual(everything);
    const sample = await store.people.listAudit({ studyId: 'sample', limit: 10_000 });
    expect(await read(auditLines(store.people, 'sample', 2))).toEqual(sample);
    const route = await a.request('/admin/audit?format=jsonl', { headers: { Authorization: `Bearer ${ADMIN}` } });
    expect(route.headers.get('Content-Type')).toBe('application/x-ndjson');
    expect(await read(route.body!)).toEqual(everything);
  });
  it('records who exported a study and the hash of the file written', async () => {
    const res = await invite('kim@lab.org', 'researcher');
    await call(a, 'PUT', '/admin/studies/sample/members/kim@lab.org', { token: ADMIN, body: { role: 'researcher' } });
    const made = await call(a, 'POST', '/admin/studies/sample/exports', {
      cookie: res.cookie,
      csrf: res.csrf,
      body: { format: 'jsonl' },
    });
    expect(made.status, made.text).toBe(201);
    const file = await b.request((made.json.url as string).replace(/^\/api/, ''));
    const bytes = Buffer.from(await file.arrayBuffer());
    const audit = await store.people.listAudit({ studyId: 'sample' });
    const created = audit.find((e) => e.action === 'export.create')!;
    const written = audit.find((e) => e.action === 'export.written')!;
    expect(created).toMatchObject({ actor: 'kim@lab.org', detail: { format: 'jsonl' } });
    expect(written.detail).toMatchObject({
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
      ticket: created.detail.ticket,
    });
  });
  it("shows a viewer member the study's results without participants' identifiers", async () => {
    const made = await call(a, 'POST', '/studies/sample/sessions', {
      body: { params: { PROLIFIC_PID: 'pid-to-hide' } },
    });
    expect(made.status, made.text).toBe(201);
    await invite('lia@lab.org', 'viewer');
    await call(a, 'PUT', '/admin/studies/sample/members/lia@lab.org', { token: ADMIN, body: { role: 'viewer' } });
    const token = (await createTokenFor('lia@lab.org')).token;
    const asViewer = await call(a, 'GET', '/admin/studies/sample/results', { token });
    expect(asViewer.status, asViewer.text).toBe(200);
    expect(asViewer.text).not.toContain('pid-to-hide');
    expect((await call(a, 'GET', '/admin/studies/sample/results', { token: ADMIN })).text).toContain('pid-to-hide');
    expect((await call(a, 'GET', '/admin/sessions?study=sample', { token })).status).toBe(403);
    expect((await call(a, 'GET', '/admin/studies/sample/campaign', { token })).status).toBe(403);
  });
});
