import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backends } from './testing';
import type { Store } from './types';
import type { PersonRecord } from './peopleStore';

const person = (id: string, email: string, role: PersonRecord['role'] = 'researcher'): PersonRecord => ({
  id,
  email,
  name: id.toUpperCase(),
  role,
  passwordHash: null,
  oidcSubject: null,
  createdAt: 1000,
  disabledAt: null,
});

describe.each(backends)('people store on $name', (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = await backend.open();
    await store.people.addPerson(person('ada', 'Ada@Lab.org'));
    await store.people.addPerson(person('bob', 'bob@lab.org', 'designer'));
  });
  afterEach(async () => {
    await store.close();
  });

  it('keeps emails lower-case and unique', async () => {
    expect((await store.people.personByEmail('ADA@lab.org'))?.id).toBe('ada');
    await expect(store.people.addPerson(person('ada2', 'ada@lab.org'))).rejects.toThrow();
    expect((await store.people.listPeople()).map((p) => p.id)).toEqual(['ada', 'bob']);
    expect(await store.people.countPeople()).toBe(2);
    expect(await store.people.updatePerson('bob', { role: 'viewer', name: 'Bob B' })).toBe(true);
    expect(await store.people.personById('bob')).toMatchObject({ role: 'viewer', name: 'Bob B', email: 'bob@lab.org' });
    expect(await store.people.updatePerson('nobody', { name: 'x' })).toBe(false);
  });

  it('opens a session until it ends, expires or its person is disabled', async () => {
    await store.people.addSession('s1', 'ada', 1000, 10_000);
    await store.people.addSession('s2', 'ada', 1000, 10_000);
    expect((await store.people.credentialOfSession('s1', 2000))?.person.id).toBe('ada');
    expect(await store.people.credentialOfSession('s1', 10_000)).toBeNull();
    expect(await store.people.endSession('s1', 3000)).toBe(true);
    expect(await store.people.endSession('s1', 3000)).toBe(false);
    expect(await store.people.credentialOfSession('s1', 4000)).toBeNull();
    expect((await store.people.credentialOfSession('s2', 4000))?.token).toBeNull();
    await store.people.setDisabled('ada', 5000);
    expect(await store.people.credentialOfSession('s2', 5001)).toBeNull();
    await store.people.setDisabled('ada', null);
    expect((await store.people.credentialOfSession('s2', 5002))?.person.id).toBe('ada');
    expect(await store.people.endSessionsOf('ada', 6000)).toBe(1);
    expect(await store.people.credentialOfSession('s2', 6001)).toBeNull();
  });

  it('answers a token with its scope until it is revoked or expires', async () => {
    const token = { personId: 'ada', role: 'viewer' as const, createdAt: 1000, revokedAt: null };
    await store.people.addToken({ ...token, id: 't1', name: 'laptop', tokenHash: 'h1', expiresAt: 5000 });
    await store.people.addToken({ ...token, id: 't2', name: 'ci', tokenHash: 'h2', expiresAt: null });
    expect(await store.people.credentialOfToken('h1', 2000)).toMatchObject({
      person: { id: 'ada' },
      token: { id: 't1', role: 'viewer' },
    });
    expect(await store.people.credentialOfToken('h1', 5000)).toBeNull();
    expect(await store.people.revokeToken('bob', 't2', 3000)).toBe(false);
    expect(await store.people.revokeToken('ada', 't2', 3000)).toBe(true);
    expect(await store.people.credentialOfToken('h2', 3001)).toBeNull();
    expect((await store.people.listTokens('ada')).map((t) => [t.id, t.revokedAt])).toEqual([
      ['t1', null],
      ['t2', 3000],
    ]);
  });

  it('uses a sign-in link once, and never for a disabled person', async () => {
    await store.people.addSigninLink('l1', 'ada', 1000, 9000);
    await store.people.addSigninLink('l2', 'bob', 1000, 9000);
    await store.people.addSigninLink('l3', 'ada', 1000, 2000);
    const [first, second] = await Promise.all([
      store.people.useSigninLink('l1', 1500),
      store.people.useSigninLink('l1', 1500),
    ]);
    expect([first?.id, second?.id].sort()).toEqual(['ada', undefined]);
    expect(await store.people.useSigninLink('l3', 2000)).toBeNull();
    await store.people.setDisabled('bob', 1200);
    expect(await store.people.useSigninLink('l2', 1500)).toBeNull();
  });

  it('counts failed sign-ins per email over a window', async () => {
    for (const at of [1000, 2000, 3000]) await store.people.addSigninFailure('Ada@lab.org', at);
    await store.people.addSigninFailure('bob@lab.org', 3000);
    expect(await store.people.countSigninFailures('ada@lab.org', 1500)).toBe(2);
    expect(await store.people.countSigninFailures('ada@lab.org', 0)).toBe(3);
  });

  it('keeps membership per study and the audit trail by person', async () => {
    await store.people.putMember('s1', 'ada', 'viewer', 1000);
    await store.people.putMember('s1', 'ada', 'researcher', 2000);
    await store.people.putMember('s2', 'ada', 'proctor', 2000);
    await store.people.putMember('s1', 'bob', 'viewer', 2000);
    expect(await store.people.memberRole('s1', 'ada')).toBe('researcher');
    expect([...(await store.people.membershipsOf('ada'))].sort()).toEqual([
      ['s1', 'researcher'],
      ['s2', 'proctor'],
    ]);
    expect((await store.people.listMembers('s1')).map((m) => [m.email, m.role])).toEqual([
      ['ada@lab.org', 'researcher'],
      ['bob@lab.org', 'viewer'],
    ]);
    expect(await store.people.removeMember('s1', 'bob')).toBe(true);
    expect(await store.people.removeMember('s1', 'bob')).toBe(false);

    const base = { actor: 'ada@lab.org', personId: 'ada', credential: 'token:t1', reason: null };
    await store.people.recordAudit({ ...base, studyId: null, action: 'person.add', target: 'bob', at: 1000 });
    await store.people.recordAudit({
      ...base,
      studyId: 's1',
      action: 'export.create',
      target: 's1',
      detail: { sha256: 'ab' },
      at: 2000,
    });
    expect(await store.setSessionExclusion('nope', { reason: null }, { actor: 'ada@lab.org', at: 3000 })).toBeNull();
    const all = await store.people.listAudit({});
    expect(all.map((e) => e.action)).toEqual(['export.create', 'person.add']);
    expect(await store.people.listAudit({ studyId: 's1' })).toMatchObject([
      { actor: 'ada@lab.org', personId: 'ada', credential: 'token:t1', detail: { sha256: 'ab' }, at: 2000 },
    ]);
    // The study's own audit log reads the same rows.
    expect((await store.listAuditEvents('s1')).map((e) => e.action)).toEqual(['export.create']);
  });
});
