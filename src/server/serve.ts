/**
 * `arc-studio serve`: the built app and the JSON API on one port.
 */
import { prolificSettings, startProlificPoll } from './prolific/routes';
import { loadSecretKey } from './prolific/secrets';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { createServer, type Server } from 'node:http';
import { serveStatic } from '@hono/node-server/serve-static';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './host/root';
import { createApi } from './app';
import {
  apiNoStore,
  apiNotFound,
  IMMUTABLE_ASSET,
  NO_STORE,
  REVALIDATE,
  SECURITY_HEADERS,
  securityHeaders,
} from './http';
import { limitsFromEnv } from './study/limits';
import { TaskLibrary } from './collections/collections';
import { adminLoginMessage, loadAdminToken } from './people/auth';
import { openStore, redact } from './store/open';
import { StorageWatch, reserveFromEnv } from './store/storageFull';
import { definitionOf, gameIds, loadStudyFiles, studyFileIn, syncStudyFiles } from './study/studies';
import type { StudyStore } from './store/types';
import { startArc3, studioGames } from './arc3/mount';
import type { Arc3Source } from './arc3/source';
import { AgentService } from './agents/service';
import { directCommands } from './agents/direct';
import { LoadGate, loadLimitsFromEnv } from './load';
import { acceptPerTurnFromEnv, acceptSeveralPerTurn } from './host/accept';
import { studyBaselines } from './agents/baselines';
import { referenceBaselines } from './reference/importer';
import { computeStudyResults, type ResultsDeps } from './digests/studyDigests';
import { DigestPool, digestThreadsFromEnv } from './digests/pool';
import { DigestMaintainer } from './digests/maintainer';
import { RetentionJob, pseudonymKey, pseudonymOf, retentionEveryFromEnv } from './study/retention';
import { OidcRelyingParty, oidcConfigFromEnv } from './people/oidc';
import { digestCacheBytesFromEnv } from './digests/cache';
import {
  BaselinesError,
  isScoringPreset,
  parseBaselines,
  type Baselines,
  type ScoringPresetName,
} from '../core/scoring';

/** The built-in games' titles, level counts and current versions, as the results need them. */

/** Builds remote ARC-AGI-3 sources (loaded only when a remote server is configured). */
async function remoteSourceFactory(): Promise<(baseUrl: string, log: (line: string) => void) => Arc3Source> {
  const { RemoteArc3Source } = await import('./arc3/remote');
  return (baseUrl, log) => new RemoteArc3Source({ baseUrl, log });
}

export { ROOT };

/** Pending connections the kernel may queue (capped by its own limit, net.core.somaxconn). */
const LISTEN_BACKLOG = 4096;

export interface ServeOptions {
  port: number;
  host: string;
  dataDir: string;
  /** Sealed collections (`[NAME=]DIR`): their tasks and answers go to the researcher only; studies count them. */
  tasks: string[];
  /** Practice collections (`[NAME=]DIR`): tasks go to anyone without answers, the server checks answers. */
  practiceTasks?: string[];
  /** Question collections (`[NAME=]FILE`), sealed: answers and rubrics stay on the server. */
  questions?: string[];
  /** PostgreSQL URL; PGlite in `<dataDir>/db` when absent. Defaults to DATABASE_URL. */
  databaseUrl?: string;
  /** Folder of study files; defaults to the bundled `data/studies`. */
  studiesDir?: string;
  /** Folders of arcengine games in the toolkit's layout (`--arc3-games`). */
  arc3Games?: string[];
  /** Python workers for the arcengine games (`--arc3-workers`); `ARC_STUDIO_ARC3_WORKERS`, else one per core, when absent. */
  arc3Workers?: number;
  /** Remote ARC-AGI-3 servers' base URLs (`--arc3-server`); the API key is `ARC_API_KEY`. */
  arc3Servers?: string[];
  /** A baselines file (`--agent-baselines`): agents' scorecards not tagged with a study are scored against it. */
  agentBaselines?: string;
  /** The scoring preset of agents' scorecards whose tags name none (`--agent-preset`); default toolkit-2026-04. */
  agentPreset?: string;
  /** Where start-up notes go (default: standard output). Benchmarks pass a no-op. */
  log?: (line: string) => void;
}

export function version(): string {
  return (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Why the stored studies (their current versions, which new sessions get) would leak answers:
 * counted tasks whose answers a practice collection checks without limit. `serve` refuses to
 * start while there are any.
 */
export async function unsealedStudies(store: StudyStore, library: TaskLibrary): Promise<string[]> {
  const problems: string[] = [];
  for (const s of await store.listStudies()) {
    problems.push(...(await library.sealingProblems(definitionOf(s))).map((p) => `study "${s.id}": ${p}`));
  }
  return problems;
}

/** PostgreSQL connections each server process keeps open (`ARC_STUDIO_DB_POOL`, default 10). */
export function poolSizeFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.ARC_STUDIO_DB_POOL;
  if (raw === undefined || raw === '') return 10;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new Error(
      `ARC_STUDIO_DB_POOL=${raw} is not a number of connections from 1 to 1000; unset it (10) or give one, e.g. ARC_STUDIO_DB_POOL=20.`,
    );
  return n;
}

/** The agents' scoring preset checked, and the baselines file (`--agent-baselines`) read; a bad one stops the start. */
function agentBaselinesOf(opts: ServeOptions): Baselines | null {
  if (opts.agentPreset !== undefined && !isScoringPreset(opts.agentPreset)) {
    throw new Error(`--agent-preset "${opts.agentPreset}" is not a scoring preset; use toolkit-2026-04 or paper.`);
  }
  let agentBaselines: Baselines | null = null;
  if (opts.agentBaselines) {
    try {
      agentBaselines = parseBaselines(readFileSync(opts.agentBaselines, 'utf8'));
    } catch (e) {
      const why = e instanceof BaselinesError ? e.message : (e as Error).message;
      throw new Error(
        `--agent-baselines ${opts.agentBaselines}: ${why} A study's results export one: Exports tab, "Human baselines (JSON)".`,
      );
    }
  }
  return agentBaselines;
}

/**
 * The database opened with its disk watched, the study files synced into it and every study's
 * sealing checked; a study that would leak answers stops the start.
 */
async function openCheckedStore(
  opts: ServeOptions,
  databaseUrl: string | undefined,
  studyFiles: Awaited<ReturnType<typeof loadStudyFiles>>,
  library: TaskLibrary,
  log: (line: string) => void,
): Promise<{ storage: StorageWatch; store: Awaited<ReturnType<typeof openStore>> }> {
  // A full disk answers 503 storage_full, and on PGlite a reserve is kept free (store/storageFull.ts).
  const storage = new StorageWatch({
    dir: databaseUrl ? undefined : path.join(opts.dataDir, 'db'),
    reserveBytes: reserveFromEnv(process.env),
    log,
  });
  const store = await openStore(
    databaseUrl ? { databaseUrl, poolSize: poolSizeFromEnv(process.env), storage } : { dataDir: opts.dataDir, storage },
  );
  await storage.start();
  try {
    for (const note of await syncStudyFiles(store, studyFiles, Date.now())) log(note);
    const unsealed = await unsealedStudies(store, library);
    if (unsealed.length)
      throw new Error(
        `Studies would leak answers through practice collections, so the server does not start:\n  ${unsealed.join('\n  ')}`,
      );
  } catch (e) {
    storage.stop();
    await store.close();
    throw e;
  }
  return { storage, store };
}

/** The app's built files, a 404 for a missing one, and the app's page for its client-side routes. */
function appFiles(app: Hono, dist: string, indexHtml: string): void {
  // The build's files go out as the brotli or gzip copies the build made (scripts/precompress.ts)
  // when the browser accepts them; the content-hashed ones are cached for good, the page is
  // checked at every load so a new build is picked up at once.
  app.use(
    '/*',
    serveStatic({
      root: path.relative(process.cwd(), dist) || '.',
      precompressed: true,
      onFound: (_file, c) => {
        c.header('Cache-Control', c.req.path.startsWith('/assets/') ? IMMUTABLE_ASSET : REVALIDATE);
      },
    }),
  );
  // A missing build file (a page cached from an older build) is a 404, not the app's page as a script.
  app.all('/assets/*', (c) =>
    c.text(`No file ${c.req.path} in this build of the app. Reload the page.`, 404, { 'Cache-Control': NO_STORE }),
  );
  // Client-side routes (/tasks/..., /s/...) all load the app. A catch-all of every method (a GET
  // route on '*' would be the last route matched for every API path too, which the permission
  // table's guard reads as the route asked for).
  app.all('*', (c) =>
    c.req.method === 'GET' || c.req.method === 'HEAD'
      ? c.html(indexHtml, 200, { 'Cache-Control': REVALIDATE })
      : c.notFound(),
  );
}

/** Resolves once the server listens; a port in use rejects with what to do. */
function listening(server: Server, opts: ServeOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new Error(
              `Port ${opts.port} is already in use. Stop the other server or choose another port with --port N.`,
            )
          : e,
      ),
    );
  });
}

/** How long `close` lets requests in progress finish before it ends their connections. */
const CLOSE_GRACE_MS = 5_000;

export async function startServer(
  opts: ServeOptions,
): Promise<{ url: string; login: string; close: () => Promise<void> }> {
  const log = opts.log ?? ((line: string) => console.log(line));
  // What one participant may send (docs/api.md, "Limits"); a bad variable stops the start with its name.
  const limits = limitsFromEnv(process.env);
  const oidcConfig = oidcConfigFromEnv(process.env);
  // When the server is past capacity (docs/api.md, "Overload").
  const loadLimits = loadLimitsFromEnv(process.env);
  const acceptPerTurn = acceptPerTurnFromEnv(process.env);
  // The digests kept in memory (digests/cache.ts): checked here so that a bad value stops the start.
  digestCacheBytesFromEnv(process.env);
  const library = new TaskLibrary({ log });
  for (const spec of opts.tasks) await library.mount(spec);
  for (const spec of opts.practiceTasks ?? []) await library.mount(spec, process.cwd(), 'practice');
  for (const spec of opts.questions ?? []) await library.questions.mount(spec);

  // ARC_STUDIO_DIST serves another build of the app (e.g. one per parallel test run).
  const dist = path.resolve(process.env.ARC_STUDIO_DIST ?? path.join(ROOT, 'dist'));
  if (!existsSync(path.join(dist, 'index.html'))) {
    throw new Error(
      `The app is not built (no ${path.join(dist, 'index.html')}). Run "npm run build" first, or use "npm start", which builds and serves.`,
    );
  }
  const indexHtml = readFileSync(path.join(dist, 'index.html'), 'utf8');

  const agentBaselines = agentBaselinesOf(opts);
  const studiesDir = opts.studiesDir ?? path.join(ROOT, 'data', 'studies');
  const studyFiles = await loadStudyFiles(studiesDir);
  const admin = loadAdminToken(opts.dataDir);
  const pseudonyms = pseudonymKey(opts.dataDir);
  const retentionEvery = retentionEveryFromEnv();
  const databaseUrl = opts.databaseUrl ?? (process.env.DATABASE_URL || undefined);
  const { storage, store } = await openCheckedStore(opts, databaseUrl, studyFiles, library, log);

  // Game sources named by study files join those given on the command line.
  const arc3Dirs = [
    ...new Set([
      ...(opts.arc3Games ?? []),
      ...studyFiles.flatMap((f) =>
        (f.study.gameSources?.arcengine ?? []).map((d) => path.resolve(path.dirname(f.file), d)),
      ),
    ]),
  ];
  const arc3Servers = [
    ...new Set([...(opts.arc3Servers ?? []), ...studyFiles.flatMap((f) => f.study.gameSources?.servers ?? [])]),
  ];
  // Always started (with no sources it lists no games and costs nothing), so that the studio's
  // ARC-AGI-3 routes answer on every server.
  const arc3 = await startArc3(
    {
      dirs: arc3Dirs,
      servers: arc3Servers,
      workers: opts.arc3Workers,
      remote: arc3Servers.length ? await remoteSourceFactory() : undefined,
      codeDir: path.join(opts.dataDir, 'arc3-code'),
    },
    store,
    log,
  );
  for (const note of arc3.notes ?? []) log(note);
  // Every game id a study may name, kept current as the ARC-AGI-3 game lists change.
  const games = new Set(gameIds);
  const syncGames = () => {
    games.clear();
    for (const id of [...gameIds, ...arc3.service.ids]) games.add(id);
  };
  syncGames();
  arc3.service.onRefresh(syncGames);
  const { replay, gameInfo } = studioGames(arc3);

  // Cold session digests are computed on worker threads, off the thread that acknowledges events.
  const digests = new DigestPool(digestThreadsFromEnv(process.env));
  // Ended sessions are digested in the background, so results only read digests back.
  const maintainer: DigestMaintainer = new DigestMaintainer(() => resultsDeps, log);
  const threadReplay = () => arc3.service.threadReplay();
  const resultsDeps: ResultsDeps = {
    store,
    library,
    adminTokenHash: admin.hash,
    replay,
    gameInfo,
    digests,
    threadReplay,
    maintainer,
  };
  const agents = new AgentService({
    store,
    adminTokenHash: admin.hash,
    arc3: arc3.service,
    log,
    shared: Boolean(databaseUrl),
    baselines: () => agentBaselines,
    studyBaselines: async (studyId) => {
      const results = await computeStudyResults(resultsDeps, studyId, null);
      return 'error' in results ? null : studyBaselines(results);
    },
    referenceBaselines: (gameId, group) => referenceBaselines(store.references, gameId, group),
    ...(opts.agentPreset ? { defaultPreset: opts.agentPreset as ScoringPresetName } : {}),
  });
  const app = new Hono();
  // Every response, the app's files and the API alike (docs/api.md, "HTTP").
  app.use('*', securityHeaders);
  app.use('/api/*', apiNoStore);
  const prolific = prolificSettings(loadSecretKey(opts.dataDir));
  const stopProlificPoll = startProlificPoll(
    { store, library, adminTokenHash: admin.hash, replay, games, gameInfo, maintainer },
    prolific,
    Number(process.env.ARC_STUDIO_PROLIFIC_POLL_SECONDS ?? 60),
    log,
  );
  const gate = new LoadGate(loadLimits, SECURITY_HEADERS, process.env.ARC_STUDIO_SERVER_TIMING === '1');
  app.route(
    '/api',
    createApi({
      library,
      version: version(),
      load: () => gate.report(),
      storage,
      study: {
        store,
        adminTokenHash: admin.hash,
        replay,
        games,
        limits,
        gameInfo,
        digests,
        threadReplay,
        maintainer,
        exportThreads: true,
        pseudonym: pseudonymOf(pseudonyms),
        studyFile: studyFileIn(studiesDir),
        arc3: { service: arc3.service, engine: arc3.engine, checkReplayer: arc3.checkReplayer },
      },
      agents,
      oidc: oidcConfig ? new OidcRelyingParty(oidcConfig) : null,
      prolific,
    }),
  );
  // An API path without a route is a JSON 404, never the app's page.
  // ('/api/*' matches '/api' itself too; one catch-all, which the permission guard passes over.)
  app.all('/api/*', apiNotFound);
  appFiles(app, dist, indexHtml);

  const framework = getRequestListener(app.fetch);
  const command = directCommands(agents, SECURITY_HEADERS, log);
  const server = createServer((req, res) => {
    if (gate.admit(req, res) && !command(req, res)) void framework(req, res);
  });
  server.on('connection', (socket) => gate.accepted(socket));
  // A deep accept queue: when many participants connect at once (a study launch), connections
  // wait their turn instead of being dropped and retried seconds later.
  // Participants' browsers send a batch every second or so: keep their connections open between
  // batches instead of closing them after Node's default 5 s and paying a new handshake each time.
  const http = server as unknown as { keepAliveTimeout: number; headersTimeout: number };
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  server.listen(opts.port, opts.host, LISTEN_BACKLOG);
  try {
    await listening(server, opts);
  } catch (e) {
    gate.stop();
    storage.stop();
    await store.close();
    throw e;
  }
  // A busy server would otherwise accept one new connection per turn of its event loop (host/accept.ts).
  const copies = acceptSeveralPerTurn(server, acceptPerTurn, LISTEN_BACKLOG);
  copies.ready.catch((e: Error) =>
    log(
      `New connections are accepted one per turn of the event loop (${e.message}): the server works, but lets connections in slowly while busy. ARC_STUDIO_ACCEPT_PER_TURN=1 skips the copies.`,
    ),
  );
  // With --port 0 the system picks a free port: report the one actually bound.
  const bound = (server.address() as { port: number } | null)?.port ?? opts.port;
  const url = `http://${opts.host === '0.0.0.0' ? 'localhost' : opts.host}:${bound}`;
  log(
    `Database: ${databaseUrl ? `PostgreSQL at ${redact(databaseUrl)}` : `PGlite in ${path.join(opts.dataDir, 'db')}`}`,
  );
  // Digests out of date (a new analysis version, sessions that ended while the server was down)
  // are computed now in the background, then checked every 10 minutes.
  maintainer.start();
  // Participants' identifiers past their study's retention period are replaced by pseudonyms.
  const retention = new RetentionJob(store, pseudonyms, { everyMs: retentionEvery, log });
  retention.start();
  return {
    url,
    /** The researcher login line, for the command to print last. */
    login: adminLoginMessage(admin, url),
    close: () =>
      new Promise<void>((resolve) => {
        copies.close();
        server.close(() => resolve());
        // Kept-alive connections with nothing in progress close now; a request still in progress
        // (a client that stopped sending mid-body, a download nobody reads) gets a grace period.
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      })
        .then(() => gate.stop())
        .then(() => stopProlificPoll())
        .then(() => retention.stop())
        .then(() => maintainer.stop())
        .then(() => digests.stop())
        .then(() => agents.stop())
        .then(() => arc3.service.stop())
        .then(() => storage.stop())
        .then(() => store.close()),
  };
}
