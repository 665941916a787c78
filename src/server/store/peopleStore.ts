/**
 * A lab's people in the store: accounts, browser sessions, personal API tokens, one-time sign-in
 * links, failed sign-ins, study membership and the audit trail by person. `store.people` of the
 * `Store`; the same SQL on PGlite and PostgreSQL. Every secret is kept as its SHA-256 only
 * (passwords as an scrypt hash, made by the caller).
 */
import type { Queryable, Transacting } from './driver';
import { json, ms, msOrNull, type Row } from './columns';

/** A person's role in the lab (docs/api.md, "People, roles and tokens"). */
export type Role = 'owner' | 'researcher' | 'designer' | 'proctor' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'researcher', 'designer', 'proctor', 'viewer'];

/** A person's role on one study. */
export type MemberRole = 'researcher' | 'proctor' | 'viewer';
export const MEMBER_ROLES: readonly MemberRole[] = ['researcher', 'proctor', 'viewer'];

export interface PersonRecord {
  readonly id: string;
  /** Lower-case. */
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  /** scrypt hash (`people/password.ts`); null until a password is set. */
  readonly passwordHash: string | null;
  /** The `sub` of the person's OpenID Connect account, once they signed in with it. */
  readonly oidcSubject: string | null;
  readonly createdAt: number;
  readonly disabledAt: number | null;
}

export interface PersonTokenRecord {
  readonly id: string;
  readonly personId: string;
  readonly name: string;
  /** No wider than the person's role. */
  readonly role: Role;
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
}

export interface MemberRecord {
  readonly studyId: string;
  readonly personId: string;
  readonly email: string;
  readonly name: string;
  readonly role: MemberRole;
  readonly addedAt: number;
}

/** What a credential stands for, read in one query: the person, and the token's scope if a token. */
export interface Credential {
  readonly person: PersonRecord;
  /** The token's id and role; null for a browser session. */
  readonly token: { readonly id: string; readonly role: Role } | null;
}

/** One entry of the audit trail, of a study or of the server as a whole (`studyId` null). */
export interface AuditEntryInput {
  readonly studyId: string | null;
  /** Who, by name: the person's email, or `researcher` for the bootstrap token. */
  readonly actor: string;
  readonly personId: string | null;
  /** Which credential: `session:<id>`, `token:<id>`, `admin-token`, or null (a sign-in that failed). */
  readonly credential: string | null;
  readonly action: string;
  readonly target: string;
  readonly reason: string | null;
  readonly detail?: Readonly<Record<string, unknown>>;
  readonly at: number;
}

export interface AuditEntry extends AuditEntryInput {
  readonly id: number;
  readonly detail: Readonly<Record<string, unknown>>;
}

export interface PeopleStore {
  addPerson(p: PersonRecord): Promise<void>;
  personById(id: string): Promise<PersonRecord | null>;
  personByEmail(email: string): Promise<PersonRecord | null>;
  personByOidcSubject(subject: string): Promise<PersonRecord | null>;
  /** Every person, oldest first. */
  listPeople(): Promise<PersonRecord[]>;
  countPeople(): Promise<number>;
  /** Changes what is given; false when there is no such person. */
  updatePerson(
    id: string,
    change: { name?: string; role?: Role; passwordHash?: string; oidcSubject?: string },
  ): Promise<boolean>;
  /**
   * Disables a person (or enables them again): a disabled person's sessions, tokens and links are
   * refused from the next request on, on every server, since each request reads them here.
   */
  setDisabled(id: string, at: number | null): Promise<boolean>;

  addSession(tokenHash: string, personId: string, createdAt: number, expiresAt: number): Promise<void>;
  /** Ends one session; false when it was not open. */
  endSession(tokenHash: string, at: number): Promise<boolean>;
  /** Ends every open session of a person (sign out everywhere); how many it ended. */
  endSessionsOf(personId: string, at: number): Promise<number>;
  /** The person of an open, unexpired session whose person is not disabled; else null. */
  credentialOfSession(tokenHash: string, now: number): Promise<Credential | null>;

  addToken(t: PersonTokenRecord): Promise<void>;
  listTokens(personId: string): Promise<PersonTokenRecord[]>;
  revokeToken(personId: string, id: string, at: number): Promise<boolean>;
  /** The person and scope of a token neither revoked nor expired whose person is not disabled; else null. */
  credentialOfToken(tokenHash: string, now: number): Promise<Credential | null>;

  addSigninLink(tokenHash: string, personId: string, createdAt: number, expiresAt: number): Promise<void>;
  /** Marks a link used and answers its person; null when it is unknown, used, expired or its person disabled. */
  useSigninLink(tokenHash: string, now: number): Promise<PersonRecord | null>;

  addSigninFailure(email: string, at: number): Promise<void>;
  /** Failed sign-ins of an email since `since`. */
  countSigninFailures(email: string, since: number): Promise<number>;

  /** Adds a member or changes their role. */
  putMember(studyId: string, personId: string, role: MemberRole, at: number): Promise<void>;
  removeMember(studyId: string, personId: string): Promise<boolean>;
  listMembers(studyId: string): Promise<MemberRecord[]>;
  /** A person's role on each study they are a member of. */
  membershipsOf(personId: string): Promise<Map<string, MemberRole>>;
  memberRole(studyId: string, personId: string): Promise<MemberRole | null>;

  recordAudit(e: AuditEntryInput): Promise<void>;
  /**
   * The audit trail, newest first: of one study, or (`studyId` undefined) of the whole server;
   * `before` an entry's id, the entries older than it (the next page).
   */
  listAudit(opts: { studyId?: string; limit?: number; before?: number }): Promise<AuditEntry[]>;
}

const personOf = (r: Row): PersonRecord => ({
  id: r.id as string,
  email: r.email as string,
  name: r.name as string,
  role: r.role as Role,
  passwordHash: (r.password_hash as string | null) ?? null,
  oidcSubject: (r.oidc_subject as string | null) ?? null,
  createdAt: ms(r.created_at),
  disabledAt: msOrNull(r.disabled_at),
});

const tokenOf = (r: Row): PersonTokenRecord => ({
  id: r.id as string,
  personId: r.person_id as string,
  name: r.name as string,
  role: r.role as Role,
  tokenHash: r.token_hash as string,
  createdAt: ms(r.created_at),
  expiresAt: msOrNull(r.expires_at),
  revokedAt: msOrNull(r.revoked_at),
});

const PERSON_COLUMNS = `p.id, p.email, p.name, p.role, p.password_hash, p.oidc_subject, p.created_at, p.disabled_at`;

export class SqlPeopleStore implements PeopleStore {
  constructor(private readonly db: Queryable & Transacting) {}

  async addPerson(p: PersonRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO people (id, email, name, role, password_hash, oidc_subject, created_at, disabled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        p.id,
        p.email.toLowerCase(),
        p.name,
        p.role,
        p.passwordHash,
        p.oidcSubject,
        new Date(p.createdAt),
        p.disabledAt === null ? null : new Date(p.disabledAt),
      ],
    );
  }

  private async onePerson(where: string, value: string): Promise<PersonRecord | null> {
    const r = await this.db.query(`SELECT ${PERSON_COLUMNS} FROM people p WHERE ${where} = $1`, [value]);
    return r.rows[0] ? personOf(r.rows[0]) : null;
  }
  personById(id: string) {
    return this.onePerson('p.id', id);
  }
  personByEmail(email: string) {
    return this.onePerson('p.email', email.toLowerCase());
  }
  personByOidcSubject(subject: string) {
    return this.onePerson('p.oidc_subject', subject);
  }

  async listPeople(): Promise<PersonRecord[]> {
    const r = await this.db.query(`SELECT ${PERSON_COLUMNS} FROM people p ORDER BY p.created_at, p.email`);
    return r.rows.map(personOf);
  }

  async countPeople(): Promise<number> {
    const r = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM people`);
    return r.rows[0].n;
  }

  async updatePerson(
    id: string,
    change: { name?: string; role?: Role; passwordHash?: string; oidcSubject?: string },
  ): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE people SET name = coalesce($2, name), role = coalesce($3, role),
         password_hash = coalesce($4, password_hash), oidc_subject = coalesce($5, oidc_subject)
       WHERE id = $1 RETURNING id`,
      [id, change.name ?? null, change.role ?? null, change.passwordHash ?? null, change.oidcSubject ?? null],
    );
    return r.rows.length > 0;
  }

  async setDisabled(id: string, at: number | null): Promise<boolean> {
    const r = await this.db.query(`UPDATE people SET disabled_at = $2 WHERE id = $1 RETURNING id`, [
      id,
      at === null ? null : new Date(at),
    ]);
    return r.rows.length > 0;
  }

  async addSession(tokenHash: string, personId: string, createdAt: number, expiresAt: number): Promise<void> {
    await this.db.query(
      `INSERT INTO person_sessions (token_hash, person_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
      [tokenHash, personId, new Date(createdAt), new Date(expiresAt)],
    );
  }

  async endSession(tokenHash: string, at: number): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE person_sessions SET ended_at = $2 WHERE token_hash = $1 AND ended_at IS NULL RETURNING token_hash`,
      [tokenHash, new Date(at)],
    );
    return r.rows.length > 0;
  }

  async endSessionsOf(personId: string, at: number): Promise<number> {
    const r = await this.db.query(
      `UPDATE person_sessions SET ended_at = $2 WHERE person_id = $1 AND ended_at IS NULL RETURNING token_hash`,
      [personId, new Date(at)],
    );
    return r.rows.length;
  }

  async credentialOfSession(tokenHash: string, now: number): Promise<Credential | null> {
    const r = await this.db.query(
      `SELECT ${PERSON_COLUMNS} FROM person_sessions s JOIN people p ON p.id = s.person_id
       WHERE s.token_hash = $1 AND s.ended_at IS NULL AND s.expires_at > $2 AND p.disabled_at IS NULL`,
      [tokenHash, new Date(now)],
    );
    return r.rows[0] ? { person: personOf(r.rows[0]), token: null } : null;
  }

  async addToken(t: PersonTokenRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO person_tokens (id, person_id, name, role, token_hash, created_at, expires_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        t.id,
        t.personId,
        t.name,
        t.role,
        t.tokenHash,
        new Date(t.createdAt),
        t.expiresAt === null ? null : new Date(t.expiresAt),
        t.revokedAt === null ? null : new Date(t.revokedAt),
      ],
    );
  }

  async listTokens(personId: string): Promise<PersonTokenRecord[]> {
    const r = await this.db.query(`SELECT * FROM person_tokens WHERE person_id = $1 ORDER BY created_at, id`, [
      personId,
    ]);
    return r.rows.map(tokenOf);
  }

  async revokeToken(personId: string, id: string, at: number): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE person_tokens SET revoked_at = $3 WHERE person_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING id`,
      [personId, id, new Date(at)],
    );
    return r.rows.length > 0;
  }

  async credentialOfToken(tokenHash: string, now: number): Promise<Credential | null> {
    const r = await this.db.query(
      `SELECT ${PERSON_COLUMNS}, t.id AS token_id, t.role AS token_role
       FROM person_tokens t JOIN people p ON p.id = t.person_id
       WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)
         AND p.disabled_at IS NULL`,
      [tokenHash, new Date(now)],
    );
    const row = r.rows[0];
    return row ? { person: personOf(row), token: { id: row.token_id as string, role: row.token_role as Role } } : null;
  }

  async addSigninLink(tokenHash: string, personId: string, createdAt: number, expiresAt: number): Promise<void> {
    await this.db.query(
      `INSERT INTO signin_links (token_hash, person_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
      [tokenHash, personId, new Date(createdAt), new Date(expiresAt)],
    );
  }

  async useSigninLink(tokenHash: string, now: number): Promise<PersonRecord | null> {
    // One statement: two servers given the same link at once cannot both use it.
    const r = await this.db.query(
      `UPDATE signin_links l SET used_at = $2 FROM people p
       WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > $2 AND p.id = l.person_id
         AND p.disabled_at IS NULL
       RETURNING ${PERSON_COLUMNS}`,
      [tokenHash, new Date(now)],
    );
    return r.rows[0] ? personOf(r.rows[0]) : null;
  }

  async addSigninFailure(email: string, at: number): Promise<void> {
    await this.db.query(`INSERT INTO signin_failures (email, at) VALUES ($1, $2)`, [email.toLowerCase(), new Date(at)]);
  }

  async countSigninFailures(email: string, since: number): Promise<number> {
    const r = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM signin_failures WHERE email = $1 AND at > $2`,
      [email.toLowerCase(), new Date(since)],
    );
    return r.rows[0].n;
  }

  async putMember(studyId: string, personId: string, role: MemberRole, at: number): Promise<void> {
    await this.db.query(
      `INSERT INTO study_members (study_id, person_id, role, added_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (study_id, person_id) DO UPDATE SET role = EXCLUDED.role`,
      [studyId, personId, role, new Date(at)],
    );
  }

  async removeMember(studyId: string, personId: string): Promise<boolean> {
    const r = await this.db.query(
      `DELETE FROM study_members WHERE study_id = $1 AND person_id = $2 RETURNING person_id`,
      [studyId, personId],
    );
    return r.rows.length > 0;
  }

  async listMembers(studyId: string): Promise<MemberRecord[]> {
    const r = await this.db.query(
      `SELECT m.study_id, m.person_id, m.role, m.added_at, p.email, p.name
       FROM study_members m JOIN people p ON p.id = m.person_id WHERE m.study_id = $1 ORDER BY p.email`,
      [studyId],
    );
    return r.rows.map((row) => ({
      studyId: row.study_id as string,
      personId: row.person_id as string,
      email: row.email as string,
      name: row.name as string,
      role: row.role as MemberRole,
      addedAt: ms(row.added_at),
    }));
  }

  async membershipsOf(personId: string): Promise<Map<string, MemberRole>> {
    const r = await this.db.query<{ study_id: string; role: MemberRole }>(
      `SELECT study_id, role FROM study_members WHERE person_id = $1`,
      [personId],
    );
    return new Map(r.rows.map((row) => [row.study_id, row.role]));
  }

  async memberRole(studyId: string, personId: string): Promise<MemberRole | null> {
    const r = await this.db.query<{ role: MemberRole }>(
      `SELECT role FROM study_members WHERE study_id = $1 AND person_id = $2`,
      [studyId, personId],
    );
    return r.rows[0]?.role ?? null;
  }

  async recordAudit(e: AuditEntryInput): Promise<void> {
    await this.db.query(
      `INSERT INTO audit_events (study_id, actor, person_id, credential, action, target, reason, detail, at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9)`,
      [
        e.studyId,
        e.actor,
        e.personId,
        e.credential,
        e.action,
        e.target,
        e.reason,
        JSON.stringify(e.detail ?? {}),
        new Date(e.at),
      ],
    );
  }

  async listAudit(opts: { studyId?: string; limit?: number; before?: number }): Promise<AuditEntry[]> {
    const limit = Math.min(Math.max(opts.limit ?? 1000, 1), 10_000);
    const before = opts.before ?? Number.MAX_SAFE_INTEGER;
    const r =
      opts.studyId === undefined
        ? await this.db.query(`SELECT * FROM audit_events WHERE id < $1 ORDER BY id DESC LIMIT $2`, [before, limit])
        : await this.db.query(`SELECT * FROM audit_events WHERE study_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, [
            opts.studyId,
            before,
            limit,
          ]);
    return r.rows.map((row) => ({
      id: Number(row.id),
      studyId: (row.study_id as string | null) ?? null,
      actor: row.actor as string,
      personId: (row.person_id as string | null) ?? null,
      credential: (row.credential as string | null) ?? null,
      action: row.action as string,
      target: row.target as string,
      reason: (row.reason as string | null) ?? null,
      detail: json(row.detail),
      at: ms(row.at),
    }));
  }
}
