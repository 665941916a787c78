/**
 * The HTTP API. `createApp` builds a Hono app from its dependencies so that tests call it
 * in-process with `app.request(...)`, against the same code `serve` runs.
 */
import { randomBytes } from 'node:crypto';
import { type Context, Hono } from 'hono';
import type { ApiErrorBody } from '../core/protocol/errors';
import type { TaskLibrary } from './collections/collections';
import { type StudyDeps, studyRoutes } from './study/routes';
import { studyServices } from './study/services';
import { resultsRoutes } from './results/routes';
import { campaignRoutes } from './campaign/routes';
import { type ProlificSettings, prolificRoutes, prolificSettings } from './prolific/routes';
import { questionScoreRoutes } from './questions/scoreRoutes';
import { referenceRoutes } from './reference/routes';
import { exportRoutes } from './export/routes';
import { collectionsRoutes } from './collections/routes';
import { questionImageRoutes } from './questions/imageRoutes';
import { questionCollectionRoutes } from './questions/collectionRoutes';
import { apiNotFound, refuseMalformedUrl } from './http';
import { agentRoutes } from './agents/routes';
import { gradingRoutes } from './grading/routes';
import { centreRoutes } from './centre/routes';
import { isParticipantWrite, participantWrites, type LoadReport } from './load';
import type { AgentService } from './agents/service';
import { DATABASE_RETRY_AFTER_S, databaseUnavailable } from './store/unavailable';
import { STORAGE_RETRY_AFTER_S, type StorageWatch, storageFull } from './store/storageFull';
import { Authenticator } from './people/credentials';
import { permissionGuard } from './people/permissions';
import { can } from './people/roles';
import { peopleRoutes } from './people/routes';
import type { OidcRelyingParty } from './people/oidc';

export interface AppDeps {
  readonly library: TaskLibrary;
  readonly version: string;
  /** The study server (sessions, event ingestion, judging, researcher routes); absent: not mounted. */
  readonly study?: Omit<StudyDeps, 'library'>;
  /** Agents over the ARC-AGI-3 protocol (src/server/agents); absent: not mounted. */
  readonly agents?: AgentService;
  /** The server's load, reported by `/api/health` (server/load.ts). */
  readonly load?: () => LoadReport;
  /** The database's disk (store/storageFull.ts): reported by `/api/health`, and writes refused while it is full. */
  readonly storage?: StorageWatch;
  /** The OpenID Connect provider people may sign in with (people/oidc.ts); absent: none. */
  readonly oidc?: OidcRelyingParty | null;
  /** How the server reaches Prolific (prolific/routes.ts); absent: Prolific's API, a key of this process alone. */
  readonly prolific?: ProlificSettings;
}

/** The answer to a write refused because the database's disk is full. */
const storageFullBody: ApiErrorBody = {
  error: 'storage_full',
  retryAfter: STORAGE_RETRY_AFTER_S,
  message: `The server's disk is full, so it stores nothing for now; nothing of this request was stored. Everything you did is kept: send the request again in ${STORAGE_RETRY_AFTER_S} s (the study page does so by itself) and tell the researcher if it lasts.`,
};

export function createApi(deps: AppDeps): Hono {
  const api = new Hono();
  // A NUL or non-UTF-8 id in a URL is the client's mistake (400), not the database's (500).
  api.use('*', refuseMalformedUrl);
  // Participants' writes in progress: a researcher's long read lets them go first between its pages.
  api.use('*', async (c, next) => {
    const path = c.req.path.startsWith('/api/') ? c.req.path : `/api${c.req.path}`;
    if (!isParticipantWrite(c.req.method, path)) return next();
    // Refused before any work while the disk is full: a game step is never answered unstored.
    if (deps.storage?.refusing) return c.json(storageFullBody, 503, { 'Retry-After': String(STORAGE_RETRY_AFTER_S) });
    const answered = participantWrites.begin();
    try {
      await next();
    } finally {
      answered();
    }
  });

  // Every route's need, from one table (people/permissions.ts), before any route runs.
  const auth = deps.study
    ? new Authenticator(deps.study.store.people, deps.study.adminTokenHash, { now: deps.study.now })
    : null;
  if (deps.study && auth) api.use('*', permissionGuard({ store: deps.study.store, auth, now: deps.study.now }));

  api.get('/health', (c) =>
    c.json({
      ok: true,
      version: deps.version,
      ...(deps.load ? { load: deps.load() } : {}),
      ...(deps.storage ? { storage: deps.storage.report() } : {}),
    }),
  );

  // A person who may design previews sealed tasks and starts playtests.
  const mayDesign = auth
    ? async (c: Context) => {
        const who = await auth.identify(c);
        return who.kind === 'principal' && can(who.principal.role, 'design');
      }
    : undefined;
  api.route('/', collectionsRoutes({ library: deps.library, adminTokenHash: deps.study?.adminTokenHash, mayDesign }));
  api.route('/', questionImageRoutes(deps.library));

  // The ARC-AGI-3 protocol for agents, and the researcher's agent keys.
  if (deps.agents && deps.study) api.route('/', agentRoutes(deps.agents));
  // A model's answers file scored beside a study's humans: before the study routes, whose body
  // limit (1 MiB) is smaller than an answers file may be.
  // Signing in, a person's own account and tokens, the lab's people and study members.
  if (deps.study && auth)
    api.route('/', peopleRoutes({ store: deps.study.store, auth, now: deps.study.now, oidc: deps.oidc }));
  if (deps.study) api.route('/admin', questionScoreRoutes({ ...deps.study, library: deps.library }));
  // Reference recordings' imports are larger than the study routes' body limit too.
  if (deps.study) api.route('/admin', referenceRoutes(deps.study));
  // The study's services, wired once: every router that serves studies shares their caches.
  const studyDeps = deps.study ? { ...deps.study, library: deps.library, mayDesign } : null;
  const study = studyDeps ? { ...studyDeps, ...studyServices(studyDeps) } : null;
  if (study) api.route('/', studyRoutes(study));
  // The question collections, for the study editor's question picker.
  if (deps.study) api.route('/admin', questionCollectionRoutes(deps.library));
  // The researcher's study results (core/analysis), under the same admin guard.
  if (deps.study) api.route('/admin', resultsRoutes({ ...deps.study, library: deps.library }));
  // The campaign view of a study's pools, its payments and bonus file (server/campaign).
  if (study) api.route('/admin', campaignRoutes(study));
  // Prolific: its API token, bonuses paid through it, returns and time-outs (server/prolific).
  if (study) api.route('/', prolificRoutes(study, deps.prolific ?? prolificSettings(randomBytes(32), {})));
  // Grading free-response answers: the researcher's graders and adjudications, and the graders' own links.
  if (deps.study) api.route('/', gradingRoutes({ ...deps.study, library: deps.library }));
  // A testing centre: stations, the proctor's console, check-in and check-out (server/centre).
  if (study) api.route('/', centreRoutes(study));
  // Exports: one-time download links for a study's data (the admin routes carry the same guard).
  if (deps.study) api.route('/', exportRoutes({ ...deps.study, library: deps.library }));

  api.notFound(apiNotFound);
  let lastUnavailableReport = 0;
  api.onError((err, c) => {
    // The database is away (PostgreSQL restarting): the client sends the request again later.
    const unavailable = databaseUnavailable(err);
    if (unavailable) {
      const now = Date.now();
      if (now - lastUnavailableReport > 5_000)
        console.error(`${unavailable.message} (requests are answered 503 until it is back)`);
      lastUnavailableReport = now;
      return c.json(
        {
          error: 'database_unavailable',
          retryAfter: DATABASE_RETRY_AFTER_S,
          message: `The database is not reachable right now (it may be restarting). Send the request again in ${DATABASE_RETRY_AFTER_S} s; what was acknowledged before is kept, and an event batch sent again is stored once.`,
        } satisfies ApiErrorBody,
        503,
        { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
      );
    }
    // The disk is full: logged once by the store's StorageWatch; the client sends the request again later.
    if (storageFull(err)) return c.json(storageFullBody, 503, { 'Retry-After': String(STORAGE_RETRY_AFTER_S) });
    // A client that went away mid-request (its body cut short) is not a failure of the server.
    const incoming = (c.env as { incoming?: { destroyed?: boolean } } | undefined)?.incoming;
    if (!incoming?.destroyed) console.error(err);
    return c.json(
      {
        error: 'internal',
        message: 'The server failed on this request; nothing was changed. Try again, and report it if it repeats.',
      } satisfies ApiErrorBody,
      500,
    );
  });
  return api;
}
