/**
 * The lab's people in the benchmarks: a person made over a real server's routes, with each
 * credential a person can bring (a personal API token, a browser session's cookie), and the rate
 * at which a server answers one route for a given credential. The suites compare a person's
 * credentials with the bootstrap researcher token, which is checked by one hash comparison and
 * reads nothing: the difference is what checking a person costs per request (their token or
 * session, then their membership of the study, in the database behind a 2-second cache).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** A person of the lab and the credentials they bring. */
export interface BenchPerson {
  readonly email: string;
  /** A personal API token (`Authorization: Bearer`), scoped to the person's role. */
  readonly token: string;
  /** The `Cookie` header of a signed-in browser. */
  readonly cookie: string;
  /** The CSRF token a write with that cookie carries. */
  readonly csrf: string;
}

async function call(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Response> {
  const res = await fetch(url + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res;
}

/**
 * Adds a person with the bootstrap token, signs them in with their one-time link (as the sign-in
 * page does) and makes them a personal token; with `study`, a member of that study first.
 */
export async function benchPerson(
  url: string,
  adminToken: string,
  email: string,
  role: 'researcher' | 'designer' | 'viewer',
  study?: { readonly id: string; readonly role: 'researcher' | 'viewer' },
): Promise<BenchPerson> {
  const admin = { Authorization: `Bearer ${adminToken}` };
  const made = (await (await call(url, 'POST', '/api/admin/people', admin, { email, role })).json()) as {
    link: string;
  };
  if (study) await call(url, 'PUT', `/api/admin/studies/${study.id}/members/${email}`, admin, { role: study.role });
  const signedIn = await call(url, 'POST', '/api/auth/link', {}, { link: made.link.split('#link=')[1] });
  const cookie = signedIn.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const me = (await (await call(url, 'GET', '/api/me', { Cookie: cookie })).json()) as { csrf: string };
  const headers = { Cookie: cookie, 'X-CSRF-Token': me.csrf };
  const { token } = (await (await call(url, 'POST', '/api/me/tokens', headers, { name: 'bench' })).json()) as {
    token: string;
  };
  return { email, token, cookie, csrf: me.csrf };
}

/** Each credential's turn while several are measured together. */
const SLOT_MS = 250;

/**
 * GET `path` from `clients` keep-alive connections, one request at a time each, for `seconds`,
 * the credentials taking turns of 250 ms on every connection (so that each meets the same
 * moments of a shared machine; a request counts for the turn it started in). Answers the
 * requests answered per second with each credential (every answer must be a 200).
 */
export async function getRates(
  url: string,
  path: string,
  credentials: Readonly<Record<string, Readonly<Record<string, string>>>>,
  clients: number,
  seconds: number,
): Promise<Record<string, number>> {
  const target = new URL(path, url);
  const names = Object.keys(credentials);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const once = (headers: Readonly<Record<string, string>>) =>
    new Promise<void>((resolve, reject) => {
      http
        .get(target, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`GET ${path} answered ${res.statusCode}`)),
          );
        })
        .on('error', reject);
    });
  const answered = new Map(names.map((n) => [n, 0]));
  const start = performance.now();
  const end = start + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: clients }, async () => {
        for (let now = start; now < end; now = performance.now()) {
          const name = names[Math.floor((now - start) / SLOT_MS) % names.length];
          await once(credentials[name]);
          answered.set(name, answered.get(name)! + 1);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  const share = (performance.now() - start) / 1000 / names.length;
  return Object.fromEntries(names.map((n) => [n, answered.get(n)! / share]));
}
