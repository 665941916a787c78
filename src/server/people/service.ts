/**
 * What the people routes and the `arc-studio users` / `tokens` commands both do: add a person
 * with a one-time sign-in link, make and revoke personal tokens, disable a person. Each change is
 * recorded in the audit trail with who made it.
 */
import { randomBytes } from 'node:crypto';
import { hashToken, newToken } from './auth';
import type { PeopleStore, PersonRecord, PersonTokenRecord } from '../store/peopleStore';
import { PERSONAL_TOKEN_PREFIX } from './credentials';
import { isRole, scopeWithin, type Role } from './roles';

/** Who made a change, for the audit trail. */
export interface Actor {
  readonly actor: string;
  readonly personId: string | null;
  readonly credential: string | null;
}

/** The command line's actor: a person at the server's own terminal. */
export const COMMAND_LINE: Actor = { actor: 'command line', personId: null, credential: 'command-line' };

/** How long a sign-in link (an invitation) stays usable. */
export const LINK_DAYS = 7;
const DAY = 86_400_000;

/** A refusal the caller shows as it is: it says what is wrong and what to do. */
export class PeopleError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{1,60}$/;

/** The email as it is kept (trimmed, lower-case), or a `PeopleError` saying why it is refused. */
export function normalEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (!EMAIL.test(e))
    throw new PeopleError(400, `"${email.slice(0, 80)}" is not an email address; give one like ada@lab.org.`);
  return e;
}

function roleOrThrow(role: string): Role {
  if (!isRole(role))
    throw new PeopleError(400, `"${role}" is not a role; use one of owner, researcher, designer, proctor, viewer.`);
  return role;
}

/** A sign-in link's path and query part: `/signin#link=<token>`, the token kept out of server logs. */
export function signinPath(linkToken: string): string {
  return `/signin#link=${linkToken}`;
}

/** Makes a one-time sign-in link for a person; answers its token (only its hash is kept). */
export async function issueSigninLink(people: PeopleStore, person: PersonRecord, now: number): Promise<string> {
  const token = newToken();
  await people.addSigninLink(hashToken(token), person.id, now, now + LINK_DAYS * DAY);
  return token;
}

/** Adds a person and makes their invitation: a one-time sign-in link. */
export async function addPerson(
  people: PeopleStore,
  input: { email: string; role: string; name?: string },
  by: Actor,
  now: number,
): Promise<{ person: PersonRecord; link: string }> {
  const email = normalEmail(input.email);
  const role = roleOrThrow(input.role);
  if (await people.personByEmail(email))
    throw new PeopleError(
      409,
      `${email} is already a person of this lab; change their role instead, or send a new sign-in link.`,
    );
  const name = (input.name ?? '').trim().slice(0, 200) || email.slice(0, email.indexOf('@'));
  const person: PersonRecord = {
    id: `p-${randomBytes(9).toString('base64url')}`,
    email,
    name,
    role,
    passwordHash: null,
    oidcSubject: null,
    createdAt: now,
    disabledAt: null,
  };
  await people.addPerson(person);
  const link = await issueSigninLink(people, person, now);
  await people.recordAudit({
    ...by,
    studyId: null,
    action: 'person.add',
    target: email,
    reason: null,
    detail: { role },
    at: now,
  });
  return { person, link };
}

/** Disables a person (or enables them again) and ends their sessions; their tokens stop at once. */
export async function setDisabled(
  people: PeopleStore,
  email: string,
  disabled: boolean,
  by: Actor,
  now: number,
): Promise<PersonRecord> {
  const person = await people.personByEmail(normalEmail(email));
  if (!person) throw new PeopleError(404, `No person has the email ${email}; "arc-studio users list" lists them.`);
  await people.setDisabled(person.id, disabled ? now : null);
  if (disabled) await people.endSessionsOf(person.id, now);
  await people.recordAudit({
    ...by,
    studyId: null,
    action: disabled ? 'person.disable' : 'person.enable',
    target: person.email,
    reason: null,
    at: now,
  });
  return { ...person, disabledAt: disabled ? now : null };
}

/**
 * Makes a personal API token for a person: its scope (`role`, the person's own when absent) no
 * wider than the person's role, expiring after `days` (none when null). Answers the token once;
 * only its hash is kept.
 */
export async function createToken(
  people: PeopleStore,
  person: PersonRecord,
  input: { name: string; role?: string; days: number | null },
  by: Actor,
  now: number,
): Promise<{ token: string; record: PersonTokenRecord }> {
  const role = input.role === undefined ? person.role : roleOrThrow(input.role);
  if (!scopeWithin(role, person.role))
    throw new PeopleError(
      403,
      `A token's role cannot be wider than its person's: ${person.email} is ${person.role}, so not ${role}.`,
    );
  if (input.days !== null && !(Number.isInteger(input.days) && input.days >= 1 && input.days <= 3650))
    throw new PeopleError(
      400,
      'A token lasts a whole number of days from 1 to 3650; leave the days out for no expiry.',
    );
  const name = input.name.trim().slice(0, 100);
  if (!name) throw new PeopleError(400, 'Give the token a name, to tell it from your others (e.g. "laptop").');
  const token = PERSONAL_TOKEN_PREFIX + newToken();
  const record: PersonTokenRecord = {
    id: `t-${randomBytes(9).toString('base64url')}`,
    personId: person.id,
    name,
    role,
    tokenHash: hashToken(token),
    createdAt: now,
    expiresAt: input.days === null ? null : now + input.days * DAY,
    revokedAt: null,
  };
  await people.addToken(record);
  await people.recordAudit({
    ...by,
    studyId: null,
    action: 'token.create',
    target: `${person.email}/${record.id}`,
    reason: null,
    detail: { name, role, expiresAt: record.expiresAt },
    at: now,
  });
  return { token, record };
}

/** Revokes one of a person's tokens; a `PeopleError` 404 when there is no such open token. */
export async function revokeToken(
  people: PeopleStore,
  person: PersonRecord,
  tokenId: string,
  by: Actor,
  now: number,
): Promise<void> {
  if (!(await people.revokeToken(person.id, tokenId, now)))
    throw new PeopleError(404, `${person.email} has no open token ${tokenId}; list the tokens to see their ids.`);
  await people.recordAudit({
    ...by,
    studyId: null,
    action: 'token.revoke',
    target: `${person.email}/${tokenId}`,
    reason: null,
    at: now,
  });
}
