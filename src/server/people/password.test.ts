import { describe, expect, it } from 'vitest';
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from './password';

describe('passwords', () => {
  it('verifies the password a hash was made from, and no other', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$15\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    // Each hash has its own salt.
    expect(await hashPassword('correct horse battery')).not.toBe(stored);
    expect(await verifyPassword('anything at all', await decoyHash())).toBe(false);
  });

  it('refuses stored values it cannot read instead of throwing', async () => {
    for (const bad of ['', 'plain', 'scrypt$30$8$1$aa$bb', 'bcrypt$10$8$1$aa$bb', 'scrypt$x$8$1$aa$bb'])
      expect(await verifyPassword('whatever password', bad)).toBe(false);
  });

  it('does not block the event loop while hashing', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await hashPassword('a password of some length');
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });

  it('says what is wrong with a password that cannot be used', () => {
    expect(passwordProblem('short')).toMatch(/shorter than 10/);
    expect(passwordProblem('x'.repeat(2000))).toMatch(/longer than 1024/);
    expect(passwordProblem('a good long passphrase')).toBeNull();
  });
});
