/**
 * The permission table: every API route, as the app registers it (`METHOD path`), with what it
 * needs. One middleware (`permissionGuard`) enforces it before any route runs; a route without an
 * entry is refused (and the route-by-role walk in `permissions.test.ts` fails), so a new route
 * cannot go out unguarded. docs/api.md's table of routes and roles is generated from this one
 * (`npm run docs:roles`; `rolesDoc.test.ts` fails when it is out of date).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { fail } from '../http';
import type { SessionStore, Store } from '../store/types';
import { type Authenticator, type Principal, actorOf } from './credentials';
import { type Ability, type MemberRole, can, memberMeets, roleOnStudy } from './roles';

/** What a route needs. */
export type Need =
  /** No person: the route checks its own credential (a participant's session token, a grader's link, an agent key, a station's secret), or none. */
  | { readonly open: 'public' | 'participant' | 'grader' | 'agent' | 'signin' | 'station' }
  /** Any signed-in person (their own account and tokens). */
  | { readonly signedIn: true }
  /** A role's ability (roles.ts): `people` is the owner's. */
  | { readonly ability: Ability; readonly audit?: 'none'; readonly creates?: true; readonly action?: string }
  /** The studies list: any signed-in person, each shown only the studies their membership allows. */
  | { readonly studyList: true }
  /**
   * A study's route: the owner, or a member whose role on the study is one of `member`
   * (researcher stands above the others); the study is named by the `:studyId` in the path, the
   * study of the `:sessionId`, or the `?study=` of the query. `design`: designers too.
   */
  | {
      readonly member: readonly MemberRole[];
      readonly from: 'studyId' | 'sessionId' | 'query';
      readonly design?: true;
      /** `self`: the route records its own audit entry. */
      readonly audit?: 'self' | 'none';
      /** The audit entry's action; the route's `METHOD path` when absent. */
      readonly action?: string;
    };

const R: readonly MemberRole[] = ['researcher'];
const RV: readonly MemberRole[] = ['researcher', 'viewer'];
const ALL: readonly MemberRole[] = ['researcher', 'proctor', 'viewer'];
/** A testing centre's proctor (and the study's researchers, who stand above). */
const P: readonly MemberRole[] = ['proctor'];
const STATION = { open: 'station' } as const;
const PARTICIPANT = { open: 'participant' } as const;
const AGENT = { open: 'agent' } as const;
const DESIGN = { ability: 'design' } as const;
const DESIGN_QUIET = { ability: 'design', audit: 'none' } as const;

/**
 * Every route and its need. Participant identifiers, answers, events, runs and exports are the
 * researcher members' only (and the owner's): a viewer reads results without identities, a
 * proctor the study's live progress.
 */
export const PERMISSIONS: Readonly<Record<string, Need>> = {
  'GET /health': { open: 'public' },
  'GET /collections': { open: 'public' },
  'GET /collections/:cid/tasks': { open: 'public' },
  // Sealed test outputs are shown only to a person who may design (collectionsApi.ts asks).
  'GET /collections/:cid/tasks/:taskId{.+}': { open: 'public' },
  'POST /collections/:cid/tasks/:taskId{.+}/check': { open: 'public' },
  'GET /question-collections/:cid/images/:src': { open: 'public' },
  'GET /studies/:studyId': { open: 'public' },
  'POST /studies/:studyId/sessions': PARTICIPANT,
  'GET /sessions/:sessionId': PARTICIPANT,
  'POST /sessions/:sessionId/events': PARTICIPANT,
  'POST /sessions/:sessionId/submissions': PARTICIPANT,
  'POST /sessions/:sessionId/answers': PARTICIPANT,
  'POST /sessions/:sessionId/descriptions': PARTICIPANT,
  'POST /sessions/:sessionId/survey': PARTICIPANT,
  'POST /sessions/:sessionId/withdraw': PARTICIPANT,
  'POST /sessions/:sessionId/finish': PARTICIPANT,
  'POST /sessions/:sessionId/runs': PARTICIPANT,
  'POST /sessions/:sessionId/runs/:run/actions': PARTICIPANT,
  // A one-time download ticket is its own credential, made by an export a member was allowed.
  'GET /downloads/:token': { open: 'public' },
  'GET /grading/queue': { open: 'grader' },
  'PUT /grading/answers/:answerId': { open: 'grader' },
  'GET /games': AGENT,
  'GET /games/:gameId': AGENT,
  'GET /scorecard/:cardId': AGENT,
  'GET /scorecard/:cardId/:gameId': AGENT,
  'POST /scorecard/open': AGENT,
  'POST /scorecard/close': AGENT,
  ...Object.fromEntries(
    ['RESET', ...[1, 2, 3, 4, 5, 6, 7].map((n) => `ACTION${n}`)].map((a) => [`POST /cmd/${a}`, AGENT]),
  ),

  // Signing in, and a person's own account.
  'GET /auth/providers': { open: 'signin' },
  'POST /auth/password': { open: 'signin' },
  'POST /auth/link': { open: 'signin' },
  'GET /auth/oidc/start': { open: 'signin' },
  'GET /auth/oidc/callback': { open: 'signin' },
  'POST /auth/signout': { signedIn: true },
  'POST /auth/signout-everywhere': { signedIn: true },
  'GET /me': { signedIn: true },
  'PUT /me/password': { signedIn: true },
  'GET /me/tokens': { signedIn: true },
  'POST /me/tokens': { signedIn: true },
  'DELETE /me/tokens/:tokenId': { signedIn: true },

  // The lab's people and the server-wide audit trail: the owner's.
  'GET /admin/people': { ability: 'people' },
  'POST /admin/people': { ability: 'people' },
  'PATCH /admin/people/:email': { ability: 'people' },
  'POST /admin/people/:email/link': { ability: 'people' },
  'GET /admin/audit': { ability: 'people' },

  // Prolific: the lab's API token and webhook secret (set or not; never read back), and its webhook,
  // which carries its own credential (the signature).
  'GET /admin/prolific': { ability: 'create' },
  'PUT /admin/prolific/token': { ability: 'create' },
  'DELETE /admin/prolific/token': { ability: 'create' },
  'PUT /admin/prolific/webhook-secret': { ability: 'create' },
  'DELETE /admin/prolific/webhook-secret': { ability: 'create' },
  'POST /prolific/webhook': { open: 'public' },

  // Studies.
  'GET /admin/studies': { studyList: true },
  'POST /admin/studies/:studyId': { ability: 'create', creates: true, action: 'study.create' },
  'GET /admin/studies/:studyId': { member: ALL, from: 'studyId' },
  'PUT /admin/studies/:studyId': { member: R, from: 'studyId', action: 'study.edit' },
  'DELETE /admin/studies/:studyId': { member: R, from: 'studyId', audit: 'self' },
  'GET /admin/studies/:studyId/members': { member: R, from: 'studyId' },
  'PUT /admin/studies/:studyId/members/:email': { member: R, from: 'studyId', audit: 'self' },
  'DELETE /admin/studies/:studyId/members/:email': { member: R, from: 'studyId', audit: 'self' },
  'GET /admin/studies/:studyId/audit': { member: R, from: 'studyId' },
  // Moving a study between stages (pilot, main, ...): recorded by the route, in its transaction.
  'PUT /admin/studies/:studyId/stage': { member: R, from: 'studyId', audit: 'self' },
  'GET /admin/studies/:studyId/results': { member: RV, from: 'studyId' },
  'GET /admin/studies/:studyId/results/progress': { member: ALL, from: 'studyId' },
  'GET /admin/studies/:studyId/results/surveys': { member: RV, from: 'studyId' },
  'GET /admin/studies/:studyId/usage': { member: ALL, from: 'studyId' },
  'GET /admin/studies/:studyId/games/:gameId/levels/:level/frame': { member: ALL, from: 'studyId', design: true },
  // The campaign view lists the participants in flight by recruitment id.
  'GET /admin/studies/:studyId/campaign': { member: R, from: 'studyId' },
  'GET /admin/studies/:studyId/campaign/payments': { member: R, from: 'studyId' },
  'GET /admin/studies/:studyId/campaign/bonuses.csv': { member: R, from: 'studyId' },
  'GET /admin/studies/:studyId/campaign/ledger.csv': { member: R, from: 'studyId' },
  // Paying moves the lab's money: the study's researchers only.
  'POST /admin/studies/:studyId/campaign/bonuses/pay': { member: R, from: 'studyId' },
  'POST /admin/studies/:studyId/prolific/sync': { member: R, from: 'studyId' },
  'POST /admin/studies/:studyId/exports': { member: R, from: 'studyId', audit: 'self' },
  'GET /admin/studies/:studyId/grading': { member: R, from: 'studyId' },
  'POST /admin/studies/:studyId/graders': { member: R, from: 'studyId', audit: 'self' },
  'POST /admin/studies/:studyId/graders/:graderId/revoke': { member: R, from: 'studyId', audit: 'self' },
  'POST /admin/studies/:studyId/adjudications': { member: R, from: 'studyId', audit: 'self' },
  'POST /admin/studies/:studyId/question-scores': { member: R, from: 'studyId', audit: 'none' },
  'GET /admin/studies/:studyId/agent-runs': { member: RV, from: 'studyId' },

  // A testing centre: its proctors see the participants they seat, by the ids they typed.
  'GET /admin/studies/:studyId/centre': { member: P, from: 'studyId' },
  'POST /admin/studies/:studyId/centre/stations': { member: P, from: 'studyId', action: 'centre.station.add' },
  'POST /admin/studies/:studyId/centre/stations/:stationId/checkin': {
    member: P,
    from: 'studyId',
    action: 'centre.checkin',
  },
  'POST /admin/studies/:studyId/centre/stations/:stationId/retire': {
    member: P,
    from: 'studyId',
    action: 'centre.station.retire',
  },
  'POST /admin/studies/:studyId/centre/stations/:stationId/unretire': {
    member: P,
    from: 'studyId',
    action: 'centre.station.unretire',
  },
  'GET /admin/studies/:studyId/centre/payouts': { member: P, from: 'studyId' },
  'GET /admin/studies/:studyId/centre/payouts.csv': { member: P, from: 'studyId' },
  'POST /admin/sessions/:sessionId/centre/pause': { member: P, from: 'sessionId', action: 'centre.pause' },
  'POST /admin/sessions/:sessionId/centre/resume': { member: P, from: 'sessionId', action: 'centre.resume' },
  'POST /admin/sessions/:sessionId/centre/end': { member: P, from: 'sessionId', action: 'centre.end' },
  'POST /admin/sessions/:sessionId/centre/notes': { member: P, from: 'sessionId', action: 'centre.note' },
  'POST /centre/station/ping': STATION,
  'POST /centre/station/sessions': STATION,
  'POST /centre/station/cleared': STATION,

  // Sessions: participant identifiers, events and runs.
  // Sessions carry participants' identifiers (params): a proctor follows the study's progress instead.
  'GET /admin/sessions': { member: R, from: 'query' },
  'GET /admin/sessions/:sessionId': { member: R, from: 'sessionId' },
  'GET /admin/sessions/:sessionId/events': { member: R, from: 'sessionId' },
  'GET /admin/sessions/:sessionId/runs': { member: R, from: 'sessionId' },
  'POST /admin/sessions/:sessionId/runs/verify': { member: R, from: 'sessionId', audit: 'none' },
  'GET /admin/sessions/:sessionId/runs/verify/:job': { member: R, from: 'sessionId' },
  'POST /admin/sessions/:sessionId/exclude': { member: R, from: 'sessionId', audit: 'self' },
  'POST /admin/sessions/:sessionId/include': { member: R, from: 'sessionId', audit: 'self' },
  'DELETE /admin/sessions/:sessionId': { member: R, from: 'sessionId', audit: 'self' },

  // A participant's data on request: a researcher finds and deletes it in the studies they are a
  // researcher of (the owner in every study); the deletion records its own audit entries.
  'POST /admin/participants/find': { ability: 'create', audit: 'none' },
  'POST /admin/participants/delete': { ability: 'create', audit: 'none' },
  'GET /admin/participants/deletions': { ability: 'create' },
  'GET /admin/participants/deletions/:receiptId': { ability: 'create' },

  // Design: tasks, games, playtests, validation, graphs, determinism, agent keys.
  'GET /admin/games/:gameId/solutions': DESIGN,
  'GET /admin/games/:gameId/baselines': DESIGN,
  // Reference recordings hold no participant identities: designers import and read them too.
  'GET /admin/games/:gameId/references': DESIGN,
  'POST /admin/games/:gameId/references': DESIGN,
  'DELETE /admin/games/:gameId/references/:group': DESIGN,
  'GET /admin/question-collections': DESIGN,
  'GET /admin/question-collections/:cid/questions': DESIGN,
  'GET /admin/arc3/games': DESIGN,
  'GET /admin/arc3/games/:id/status': DESIGN,
  'GET /admin/arc3/games/:id/frame': DESIGN,
  'POST /admin/arc3/games/:id/graph': DESIGN_QUIET,
  'POST /admin/arc3/graphs/:exploration/cancel': DESIGN_QUIET,
  'POST /admin/arc3/runs': DESIGN_QUIET,
  'POST /admin/arc3/runs/:run/actions': DESIGN_QUIET,
  'POST /admin/arc3/runs/:run/determinism': DESIGN_QUIET,
  'GET /admin/arc3/runs/:run/inspect': DESIGN,
  'GET /admin/agent-keys': DESIGN,
  'POST /admin/agent-keys': DESIGN,
  'DELETE /admin/agent-keys/:keyId': DESIGN,
  'GET /admin/agent-runs/:guid': DESIGN,
};

/** The `METHOD path` of a route as the table keys it. */
export function routeKey(method: string, path: string): string {
  return `${method} ${path.startsWith('/api/') ? path.slice(4) : path}`;
}

/** The values of a route pattern's `:params` in a path (decoded), for the segments the pattern names. */
export function paramsOf(pattern: string, path: string): Record<string, string> {
  const p = pattern.split('/');
  const s = (path.startsWith('/api/') && !pattern.startsWith('/api/') ? path.slice(4) : path).split('/');
  const out: Record<string, string> = {};
  p.forEach((seg, i) => {
    if (!seg.startsWith(':') || s[i] === undefined) return;
    try {
      out[seg.slice(1).replace(/\{.*\}$/, '')] = decodeURIComponent(s[i]);
    } catch {
      out[seg.slice(1)] = s[i];
    }
  });
  return out;
}

const PRINCIPAL = 'principal';
const STUDY_ROLE = 'studyRole';

/** The person the permission middleware let through; null on a route that needs none. */
export function principalOf(c: Context): Principal | null {
  return (c.get(PRINCIPAL as never) as Principal | undefined) ?? null;
}

/** Who made a change, for an audit entry the route records itself. */
export function auditActorOf(c: Context): { actor: string; personId: string | null; credential: string | null } {
  const p = principalOf(c);
  return p
    ? { actor: actorOf(p), personId: p.personId, credential: p.credential }
    : { actor: 'researcher', personId: null, credential: null };
}

/** The requester's role on the route's study (`researcher` for the owner); null off study routes. */
export function studyRoleOf(c: Context): MemberRole | null {
  return (c.get(STUDY_ROLE as never) as MemberRole | undefined) ?? null;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface GuardDeps {
  /** The lab's people and their memberships, and the sessions whose study a route names by session. */
  readonly store: SessionStore & Pick<Store, 'people'>;
  readonly auth: Authenticator;
  readonly now?: () => number;
  /** The table; `PERMISSIONS` when absent (tests give one with a route left out). */
  readonly table?: Readonly<Record<string, Need>>;
}

/**
 * The one middleware that enforces the table: mount it before every route. It identifies the
 * person only on routes that need one, so participants' and agents' requests cost nothing more.
 */
export function permissionGuard(deps: GuardDeps): MiddlewareHandler {
  const table = deps.table ?? PERMISSIONS;
  const now = deps.now ?? Date.now;
  const warned = new Set<string>();
  return async (c, next) => {
    // A route of the API: not a middleware, nor one of the server's own answers to what the API
    // does not have (serve.ts: `app.all('/api', ...)`, and the app's page for every other GET,
    // matched after the API's routes), or every API GET of a real server would name that one.
    const route = matchedRoutes(c).findLast((r) => r.method !== 'ALL' && !(r.method === 'GET' && r.path === '/*'));
    const rel = c.req.path.startsWith('/api/') ? c.req.path.slice(4) : c.req.path;
    if (!route) {
      // No route: a 404, but not before a visitor learns nothing of the researcher's paths.
      if (!rel.startsWith('/admin/') && rel !== '/admin') return next();
      const who = await deps.auth.identify(c);
      if (who.kind !== 'principal') return refuse(c, who);
      return next();
    }
    const key = routeKey(route.method, route.path);
    const need = Object.hasOwn(table, key) ? table[key] : undefined;
    if (!need) {
      if (!warned.has(key)) console.error(`The route ${key} has no entry in the permission table; it is refused.`);
      warned.add(key);
      return fail(c, 403, 'forbidden', `The route ${key} has no entry in the permission table, so no one may use it.`);
    }
    if ('open' in need) return next();

    const who = await deps.auth.identify(c);
    if (who.kind !== 'principal') return refuse(c, who);
    const p = who.principal;
    c.set(PRINCIPAL as never, p as never);

    let studyId: string | null = null;
    if ('ability' in need && !can(p.role, need.ability))
      return fail(
        c,
        403,
        'forbidden',
        `Your role (${p.role}) does not open this: it needs ${ABILITY_TEXT[need.ability]}.`,
      );
    if ('member' in need) {
      const params = paramsOf(route.path, c.req.path);
      if (need.from === 'studyId') studyId = params.studyId ?? null;
      else if (need.from === 'query') studyId = c.req.query('study') ?? null;
      else studyId = (await deps.store.getSession(params.sessionId ?? ''))?.studyId ?? null;
      const allowed = await studyRole(deps.auth, p, studyId, need);
      if (allowed === 'refused') return refuseStudy(c, p, studyId, need);
      c.set(STUDY_ROLE as never, allowed as never);
    } else if ('creates' in need) studyId = paramsOf(route.path, c.req.path).studyId ?? null;

    await next();

    if (SAFE.has(c.req.method) || c.res.status >= 400) return;
    // The creator of a study is its first researcher.
    if ('creates' in need && studyId && p.personId) {
      await deps.store.people.putMember(studyId, p.personId, 'researcher', now());
      deps.auth.forget();
    }
    const audit = 'audit' in need ? need.audit : undefined;
    if (audit === undefined)
      await deps.store.people.recordAudit({
        studyId,
        actor: actorOf(p),
        personId: p.personId,
        credential: p.credential,
        action: ('action' in need && need.action) || key,
        target: rel,
        reason: null,
        at: now(),
      });
  };
}

const ABILITY_TEXT: Record<Ability, string> = {
  people: "the lab's owner",
  design: 'a designer, researcher or owner',
  create: 'a researcher or owner',
  member: 'a member of the study',
};

async function studyRole(
  auth: Authenticator,
  p: Principal,
  studyId: string | null,
  need: { member: readonly MemberRole[]; design?: true },
): Promise<MemberRole | 'design' | 'refused'> {
  if (p.role === 'owner') return 'researcher';
  if (need.design && can(p.role, 'design')) return 'design';
  if (studyId === null || p.personId === null) return 'refused';
  const role = roleOnStudy(p.role, await auth.memberRole(studyId, p.personId));
  return role !== null && memberMeets(role, need.member) ? role : 'refused';
}

function refuse(c: Context, who: { kind: 'none' } | { kind: 'refused'; status: 401 | 403; message: string }) {
  if (who.kind === 'refused')
    return fail(c, who.status, who.status === 401 ? 'unauthorized' : 'forbidden', who.message);
  return fail(
    c,
    401,
    'unauthorized',
    'The researcher routes need a signed-in person: sign in at /signin, or send "Authorization: Bearer <token>" with a personal token or the researcher token.',
  );
}

function refuseStudy(c: Context, p: Principal, studyId: string | null, need: { member: readonly MemberRole[] }) {
  if (studyId === null)
    return fail(
      c,
      403,
      'forbidden',
      `Name the study (?study=<id>): only the lab's owner may read every study at once.`,
    );
  return fail(
    c,
    403,
    'forbidden',
    `${p.email ?? 'This token'} may not do this on study "${studyId}": it needs a ${need.member.join(' or ')} member of the study. Ask the study's researcher or the lab's owner to add you.`,
  );
}
