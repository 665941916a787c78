/**
 * Roles: what each person may do, and the narrower scopes their tokens may carry. The routes'
 * needs are in `permissions.ts`; this module says which roles meet each need.
 */
import { MEMBER_ROLES, ROLES, type MemberRole, type Role } from '../store/peopleStore';

export { MEMBER_ROLES, ROLES, type MemberRole, type Role };

/**
 * What a role opens by itself, without study membership:
 * - `people`: the lab's people, every study (owner only);
 * - `design`: tasks, games, playtests, validation, solutions, agent keys;
 * - `create`: new studies (whose creator becomes their researcher);
 * - `member`: the studies they are members of, up to their membership's role.
 */
export type Ability = 'people' | 'design' | 'create' | 'member';

const ABILITIES: Record<Role, readonly Ability[]> = {
  owner: ['people', 'design', 'create', 'member'],
  researcher: ['design', 'create', 'member'],
  designer: ['design'],
  proctor: ['member'],
  viewer: ['member'],
};

/** The highest membership role a person of `role` can use: a viewer stays a viewer on any study. */
const MEMBERSHIP_CAP: Record<Role, MemberRole | null> = {
  owner: 'researcher',
  researcher: 'researcher',
  designer: null,
  proctor: 'proctor',
  viewer: 'viewer',
};

const MEMBER_RANK: Record<MemberRole, number> = { viewer: 1, proctor: 2, researcher: 3 };

export function can(role: Role, ability: Ability): boolean {
  return ABILITIES[role].includes(ability);
}

/**
 * Whether a token of scope `scope` may be given to a person of role `role`: everything the
 * scope opens, the role opens too.
 */
export function scopeWithin(scope: Role, role: Role): boolean {
  if (role === 'owner') return true;
  if (scope === 'owner') return false;
  const capScope = MEMBERSHIP_CAP[scope];
  const capRole = MEMBERSHIP_CAP[role];
  const membershipOk = capScope === null || (capRole !== null && MEMBER_RANK[capScope] <= MEMBER_RANK[capRole]);
  return membershipOk && ABILITIES[scope].every((a) => ABILITIES[role].includes(a));
}

/** The role a person of `role` (or their token's scope) has on a study where their membership is `member`. */
export function roleOnStudy(role: Role, member: MemberRole | null): MemberRole | null {
  if (role === 'owner') return 'researcher';
  const cap = MEMBERSHIP_CAP[role];
  if (member === null || cap === null) return null;
  return MEMBER_RANK[member] <= MEMBER_RANK[cap] ? member : cap;
}

/** Whether a membership role `have` meets one of `allowed`, researcher standing above proctor above viewer. */
export function memberMeets(have: MemberRole, allowed: readonly MemberRole[]): boolean {
  return allowed.includes(have) || (have === 'researcher' && allowed.length > 0);
}

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

export function isMemberRole(v: unknown): v is MemberRole {
  return typeof v === 'string' && (MEMBER_ROLES as readonly string[]).includes(v);
}
