/**
 * The people routes: signing in (password, one-time link), signing out (this browser, or
 * everywhere), a person's own account and tokens, the owner's People page, and study members.
 * What each route needs is in `permissions.ts`; these handlers find the principal there.
 */
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { hashToken } from './auth';
import { fail, readBody } from '../http';
import type { PersonRecord } from '../store/peopleStore';
import type { Principal } from './credentials';
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from './password';
import { auditDownload } from './audit';
import { auditActorOf, principalOf } from './permissions';
import {
  PeopleError,
  addPerson,
  createToken,
  issueSigninLink,
  normalEmail,
  revokeToken,
  setDisabled,
  signinPath,
} from './service';
import { MEMBER_ROLES, ROLES, isMemberRole } from './roles';
import { OIDC_START } from './oidc';
import { oidcRoutes } from './oidcRoutes';
import { type PeopleDeps, SIGNIN_FAILURES_ALLOWED, SIGNIN_WINDOW_MS, setSessionCookies, startSession } from './session';

export type { PeopleDeps } from './session';

const PasswordSignin = z.strictObject({ email: z.string().max(320), password: z.string().max(4096) });
const LinkSignin = z.strictObject({ link: z.string().min(20).max(200) });
const NewPassword = z.strictObject({ password: z.string().max(4096) });
const NewToken = z.strictObject({
  name: z.string().min(1).max(100),
  role: z.enum(ROLES).optional(),
  days: z.number().int().min(1).max(3650).nullable().optional(),
});
const NewPerson = z.strictObject({
  email: z.string().max(320),
  role: z.enum(ROLES),
  name: z.string().max(200).optional(),
});
const PersonChange = z.strictObject({
  role: z.enum(ROLES).optional(),
  name: z.string().min(1).max(200).optional(),
  disabled: z.boolean().optional(),
});
const Membership = z.strictObject({ role: z.enum(MEMBER_ROLES) });

/** A person as the API shows them: never a hash. */
export function personView(p: PersonRecord) {
  return {
    id: p.id,
    email: p.email,
    name: p.name,
    role: p.role,
    hasPassword: p.passwordHash !== null,
    createdAt: p.createdAt,
    disabledAt: p.disabledAt,
  };
}

/** The `GET /api/me` answer. */
export function meView(p: Principal) {
  return {
    id: p.personId ?? 'owner',
    email: p.email,
    name: p.name,
    role: p.role,
    personRole: p.personRole,
    via: p.via,
    csrf: p.csrf,
  };
}

function peopleFail(c: Context, e: unknown): Response {
  if (e instanceof PeopleError)
    return fail(
      c,
      e.status,
      e.status === 409 ? 'conflict' : e.status === 404 ? 'not_found' : e.status === 403 ? 'forbidden' : 'malformed',
      e.message,
    );
  throw e;
}

/** Signing in and out, and a person's own account and tokens; with the lab's routes below. */
export function peopleRoutes(deps: PeopleDeps): Hono {
  const { store, auth } = deps;
  const now = deps.now ?? Date.now;
  const api = new Hono();
  const me = (c: Context) => principalOf(c)!;

  api.get('/auth/providers', (c) =>
    c.json({ password: true, link: true, oidc: deps.oidc ? { name: deps.oidc.config.name, start: OIDC_START } : null }),
  );
  api.route('/', oidcRoutes(deps));

  api.post('/auth/password', async (c) => {
    const body = await readBody(c, PasswordSignin, 'The sign-in is not valid');
    if (!body.ok) return body.res;
    const email = body.data.email.trim().toLowerCase();
    const at = now();
    const failures = await store.people.countSigninFailures(email, at - SIGNIN_WINDOW_MS);
    if (failures >= SIGNIN_FAILURES_ALLOWED) {
      const retryAfter = Math.ceil(SIGNIN_WINDOW_MS / 1000);
      return fail(
        c,
        429,
        'rate_limited',
        `Too many failed sign-ins for ${email}; wait ${SIGNIN_WINDOW_MS / 60_000} minutes, or sign in with a link from the lab's owner.`,
        { retryAfter },
      );
    }
    const person = await store.people.personByEmail(email);
    // The hash is checked even for an unknown email, so the answer takes as long either way.
    const ok = await verifyPassword(body.data.password, person?.passwordHash ?? (await decoyHash()));
    if (!ok || !person || person.disabledAt !== null) {
      await store.people.addSigninFailure(email, at);
      await store.people.recordAudit({
        studyId: null,
        actor: email,
        personId: person?.id ?? null,
        credential: null,
        action: 'signin.fail',
        target: email,
        reason: null,
        at,
      });
      console.warn(
        `Failed sign-in for ${JSON.stringify(email.slice(0, 100))} (${failures + 1} in the last 15 minutes).`,
      );
      return fail(
        c,
        401,
        'unauthorized',
        "The email or the password is wrong (or the account is disabled). Try again, or ask the lab's owner for a sign-in link.",
      );
    }
    return startSession(c, deps, person, 'password');
  });

  api.post('/auth/link', async (c) => {
    const body = await readBody(c, LinkSignin, 'The sign-in link is not valid');
    if (!body.ok) return body.res;
    const person = await store.people.useSigninLink(hashToken(body.data.link), now());
    if (!person)
      return fail(
        c,
        401,
        'unauthorized',
        "This sign-in link was used already, expired, or never existed. Ask the lab's owner for a new one.",
      );
    return startSession(c, deps, person, 'link');
  });

  api.post('/auth/signout', async (c) => {
    const p = me(c);
    if (p.sessionHash) await store.people.endSession(p.sessionHash, now());
    auth.forget();
    setSessionCookies(c, '', 0);
    return c.json({ signedOut: true });
  });

  api.post('/auth/signout-everywhere', async (c) => {
    const p = me(c);
    if (!p.personId)
      return fail(
        c,
        400,
        'malformed',
        'The researcher token has no sessions to end; change ARC_STUDIO_ADMIN_TOKEN (or delete the admin-token file) to stop it.',
      );
    const ended = await store.people.endSessionsOf(p.personId, now());
    auth.forget();
    await store.people.recordAudit({
      ...auditActorOf(c),
      studyId: null,
      action: 'signout.everywhere',
      target: p.email ?? '',
      reason: null,
      detail: { ended },
      at: now(),
    });
    setSessionCookies(c, '', 0);
    return c.json({ ended });
  });

  api.get('/me', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(meView(me(c)));
  });

  api.put('/me/password', async (c) => {
    const p = me(c);
    if (!p.personId)
      return fail(c, 400, 'malformed', 'The researcher token has no password; sign in as a person to set one.');
    const body = await readBody(c, NewPassword, 'The new password is not valid');
    if (!body.ok) return body.res;
    const problem = passwordProblem(body.data.password);
    if (problem) return fail(c, 400, 'malformed', problem);
    await store.people.updatePerson(p.personId, { passwordHash: await hashPassword(body.data.password) });
    return c.json({ passwordSet: true });
  });

  const ownPerson = async (c: Context): Promise<PersonRecord | Response> => {
    const p = me(c);
    const person = p.personId ? await store.people.personById(p.personId) : null;
    return (
      person ??
      fail(
        c,
        400,
        'malformed',
        'The researcher token is not a person and has no tokens of its own; add yourself with "arc-studio users add" and sign in.',
      )
    );
  };

  api.get('/me/tokens', async (c) => {
    const person = await ownPerson(c);
    if (person instanceof Response) return person;
    const tokens = await store.people.listTokens(person.id);
    return c.json({ tokens: tokens.map(({ tokenHash: _h, ...t }) => t) });
  });

  api.post('/me/tokens', async (c) => {
    const person = await ownPerson(c);
    if (person instanceof Response) return person;
    const body = await readBody(c, NewToken, 'The new token is not valid');
    if (!body.ok) return body.res;
    try {
      const made = await createToken(
        store.people,
        person,
        { name: body.data.name, role: body.data.role, days: body.data.days ?? null },
        auditActorOf(c),
        now(),
      );
      const { tokenHash: _h, ...record } = made.record;
      return c.json({ token: made.token, ...record }, 201);
    } catch (e) {
      return peopleFail(c, e);
    }
  });

  api.delete('/me/tokens/:tokenId', async (c) => {
    const person = await ownPerson(c);
    if (person instanceof Response) return person;
    try {
      await revokeToken(store.people, person, c.req.param('tokenId'), auditActorOf(c), now());
      auth.forget();
      return c.json({ revoked: true });
    } catch (e) {
      return peopleFail(c, e);
    }
  });

  api.route('/', labRoutes(deps));
  return api;
}

/** The owner's People routes, the server's audit trail, and study members. */
function labRoutes(deps: PeopleDeps): Hono {
  const { store, auth } = deps;
  const now = deps.now ?? Date.now;
  const api = new Hono();
  api.get('/admin/people', async (c) => c.json({ people: (await store.people.listPeople()).map(personView) }));

  api.post('/admin/people', async (c) => {
    const body = await readBody(c, NewPerson, 'The new person is not valid');
    if (!body.ok) return body.res;
    try {
      const { person, link } = await addPerson(store.people, body.data, auditActorOf(c), now());
      return c.json({ person: personView(person), link: signinPath(link) }, 201);
    } catch (e) {
      return peopleFail(c, e);
    }
  });

  const personOfParam = async (c: Context): Promise<PersonRecord | Response> => {
    let email: string;
    try {
      email = normalEmail(c.req.param('email') ?? '');
    } catch (e) {
      return peopleFail(c, e);
    }
    return (
      (await store.people.personByEmail(email)) ??
      fail(
        c,
        404,
        'not_found',
        `No person has the email ${email}. GET /api/admin/people lists them; POST there adds one.`,
      )
    );
  };

  api.patch('/admin/people/:email', async (c) => {
    const person = await personOfParam(c);
    if (person instanceof Response) return person;
    const body = await readBody(c, PersonChange, 'The change of a person is not valid');
    if (!body.ok) return body.res;
    const by = auditActorOf(c);
    if (body.data.role !== undefined || body.data.name !== undefined) {
      await store.people.updatePerson(person.id, { role: body.data.role, name: body.data.name });
      await store.people.recordAudit({
        ...by,
        studyId: null,
        action: 'person.change',
        target: person.email,
        reason: null,
        detail: { role: body.data.role, name: body.data.name },
        at: now(),
      });
    }
    if (body.data.disabled !== undefined) await setDisabled(store.people, person.email, body.data.disabled, by, now());
    auth.forget();
    const after = await store.people.personById(person.id);
    return c.json({ person: personView(after!) });
  });

  api.post('/admin/people/:email/link', async (c) => {
    const person = await personOfParam(c);
    if (person instanceof Response) return person;
    if (person.disabledAt !== null) return fail(c, 409, 'conflict', `${person.email} is disabled; enable them first.`);
    const link = await issueSigninLink(store.people, person, now());
    await store.people.recordAudit({
      ...auditActorOf(c),
      studyId: null,
      action: 'person.link',
      target: person.email,
      reason: null,
      at: now(),
    });
    return c.json({ link: signinPath(link) });
  });

  api.get('/admin/audit', async (c) => {
    // The download is the whole trail; the view its newest `limit` entries.
    if (c.req.query('format') === 'jsonl') return auditDownload(c, store.people, undefined, 'audit.jsonl');
    const entries = await store.people.listAudit({ limit: Number(c.req.query('limit') ?? 1000) || 1000 });
    return c.json({ entries });
  });

  api.get('/admin/studies/:studyId/members', async (c) =>
    c.json({ members: await store.people.listMembers(c.req.param('studyId')) }),
  );

  api.put('/admin/studies/:studyId/members/:email', async (c) => {
    const studyId = c.req.param('studyId');
    if (!(await store.getStudy(studyId)))
      return fail(c, 404, 'not_found', `No study "${studyId}". GET /api/admin/studies lists them.`);
    const person = await personOfParam(c);
    if (person instanceof Response) return person;
    const body = await readBody(c, Membership, 'The membership is not valid');
    if (!body.ok) return body.res;
    if (!isMemberRole(body.data.role)) return fail(c, 400, 'malformed', 'A member is a researcher, proctor or viewer.');
    await store.people.putMember(studyId, person.id, body.data.role, now());
    auth.forget();
    await store.people.recordAudit({
      ...auditActorOf(c),
      studyId,
      action: 'member.put',
      target: person.email,
      reason: null,
      detail: { role: body.data.role },
      at: now(),
    });
    return c.json({ studyId, email: person.email, role: body.data.role });
  });

  api.delete('/admin/studies/:studyId/members/:email', async (c) => {
    const studyId = c.req.param('studyId');
    const person = await personOfParam(c);
    if (person instanceof Response) return person;
    if (!(await store.people.removeMember(studyId, person.id)))
      return fail(c, 404, 'not_found', `${person.email} is not a member of study "${studyId}".`);
    auth.forget();
    await store.people.recordAudit({
      ...auditActorOf(c),
      studyId,
      action: 'member.delete',
      target: person.email,
      reason: null,
      at: now(),
    });
    return c.json({ studyId, email: person.email, removed: true });
  });

  return api;
}
