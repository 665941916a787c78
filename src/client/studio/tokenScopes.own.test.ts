import { describe, expect, it } from 'vitest';
import { ROLES, scopeWithin } from '../../server/people/roles';
import { tokenScopes } from './tokenScopes';

describe('tokenScopes', () => {
  it.each(ROLES)('offers a %s exactly the token roles the server allows them', (role) => {
    expect(tokenScopes(role)).toEqual(ROLES.filter((scope) => scopeWithin(scope, role)));
  });

  it('never offers a token wider than its person', () => {
    expect(tokenScopes('viewer')).toEqual(['viewer']);
    expect(tokenScopes('designer')).not.toContain('researcher');
    expect(tokenScopes('researcher')).not.toContain('owner');
  });
});
