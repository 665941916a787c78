import type { Me } from './auth';

type Role = Me['role'];

/**
 * The roles a person of each role may give a personal token: everything the token's role opens,
 * theirs opens too. The form offers only these; the server decides (`scopeWithin`), and a test
 * holds the two to the same answer.
 */
const SCOPES: Record<Role, readonly Role[]> = {
  owner: ['owner', 'researcher', 'designer', 'proctor', 'viewer'],
  researcher: ['researcher', 'designer', 'proctor', 'viewer'],
  designer: ['designer'],
  proctor: ['proctor', 'viewer'],
  viewer: ['viewer'],
};

/**
 * The roles a token of a person of `role` may carry, widest first.
 *
 * @example tokenScopes('proctor') // ['proctor', 'viewer']
 */
export function tokenScopes(role: Role): readonly Role[] {
  return SCOPES[role];
}
