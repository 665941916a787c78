import path from 'node:path';
import { readdirSync, existsSync } from 'node:fs';
import type { Command } from './command';
import { parseCommandArgs, parseInteger } from './args';
import { ROOT, startServer } from '../server/serve';
import { arc3GameDirs } from './games';
import cluster from 'node:cluster';
import { adminLoginMessage, loadAdminToken } from '../server/people/auth';
import { isClusterWorker, reportWorkerReady, runPrimary, workersProblem } from '../server/host/workers';

/**
 * The bundled collections: every folder in data/tasks (sealed: `dataFolder` 'tasks') or in
 * data/practice (practice: `dataFolder` 'practice').
 */
export function bundledTaskDirs(dataFolder: 'tasks' | 'practice' = 'tasks'): string[] {
  const dir = path.join(ROOT, 'data', dataFolder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.join(dir, e.name));
}

/** The bundled question collections: every `.jsonl` / `.json` file in data/questions. */
export function bundledQuestionFiles(): string[] {
  const dir = path.join(ROOT, 'data', 'questions');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.(jsonl|json)$/i.test(e.name))
    .map((e) => path.join(dir, e.name))
    .sort();
}

const SERVE = {
  command: 'serve',
  usage:
    'serve [--port N] [--host H] [--data-dir DIR] [--tasks [NAME=]DIR]... [--practice-tasks [NAME=]DIR]... [--questions [NAME=]FILE]... [--no-samples] [--arc3-games DIR]... [--arc3-workers N] [--arc3-server URL]... [--agent-baselines FILE] [--agent-preset NAME] [--workers N]',
  summary:
    'Serve the studio and its API on one port. --tasks mounts a folder of ARC task files as a sealed collection (answers for the researcher only; studies use these); --practice-tasks mounts one for practice (tasks for anyone, answers checked on the server). NAME=DIR names it; repeat either for more.',
  options: {
    port: {
      type: 'integer',
      value: 'N',
      min: 0,
      max: 65535,
      help: 'port to listen on; 0 picks a free one (default: $PORT, else 4173)',
    },
    host: { type: 'string', value: 'H', help: 'address to listen on (default: $HOST, else 0.0.0.0, every interface)' },
    'data-dir': {
      type: 'string',
      value: 'DIR',
      default: '.arc-studio',
      help: 'folder for the embedded database and the researcher token; one server per folder',
    },
    tasks: {
      type: 'string',
      value: '[NAME=]DIR',
      multiple: true,
      help: 'mount a folder of ARC task .json files as a sealed collection: tasks and answers for the researcher only; studies use these',
    },
    'practice-tasks': {
      type: 'string',
      value: '[NAME=]DIR',
      multiple: true,
      help: 'mount a folder of ARC task .json files as a practice collection: anyone plays them, the server checks answers; studies may use them for practice items only',
    },
    questions: {
      type: 'string',
      value: '[NAME=]FILE',
      multiple: true,
      help: 'mount a question file (AI2 ARC or ARB-style, see "questions check") as a sealed question collection: study items show its questions, the server keeps the answers and judges them',
    },
    'no-samples': {
      type: 'boolean',
      help: 'do not mount the bundled collections (data/tasks, sealed; data/practice, practice; data/questions, questions)',
    },
    'arc3-games': {
      type: 'string',
      value: 'DIR',
      multiple: true,
      help: "mount a folder of arcengine games in the toolkit's layout (<game>/<version>/<game>.py + metadata.json), run by the official engine (pip install arc-agi); default: ARC_STUDIO_ARC3_GAMES",
    },
    'arc3-workers': {
      type: 'integer',
      value: 'N',
      min: 1,
      max: 64,
      help: 'Python processes running the arcengine games of this server process (default: $ARC_STUDIO_ARC3_WORKERS, else one per core)',
    },
    'arc3-server': {
      type: 'string',
      value: 'URL',
      multiple: true,
      help: 'play the games of an ARC-AGI-3 server (the official API, or a toolkit server); its key is ARC_API_KEY, kept on this server; default: ARC_STUDIO_ARC3_SERVERS',
    },
    'agent-baselines': {
      type: 'string',
      value: 'FILE',
      help: "score agents' scorecards that name no study (tag study:<id>) against this baselines file (a study's exported baselines.json, or official metadata.json)",
    },
    workers: {
      type: 'integer',
      value: 'N',
      min: 1,
      max: 256,
      help: 'server processes sharing the port (Node cluster); more than one needs PostgreSQL (DATABASE_URL); a worker that dies is started again (default: $ARC_STUDIO_WORKERS, else 1)',
    },
    'agent-preset': {
      type: 'string',
      value: 'NAME',
      help: "scoring preset of agents' scorecards whose tags name none (tag preset:<name>): toolkit-2026-04 (default) or paper",
    },
  },
} as const;

/**
 * The backstop for a bug that lets a request's promise reject unhandled: Node would end the
 * process, and with it every participant's batches in flight. Log it and keep serving.
 */
export function keepServingOnUnhandledRejection(log: (line: string) => void = (l) => console.error(l)): () => void {
  const handler = (reason: unknown) => {
    const what = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    log(`Unhandled promise rejection (the server keeps running; please report it): ${what}`);
  };
  process.on('unhandledRejection', handler);
  return () => {
    process.off('unhandledRejection', handler);
  };
}

export const serveCommand: Command = {
  summary: SERVE.summary,
  usage: SERVE.usage,
  async run(args) {
    const { values } = parseCommandArgs(SERVE, args);
    let port = values.port;
    if (port === undefined) {
      const fromEnv = parseInteger('PORT', process.env.PORT ?? '4173', { min: 0, max: 65535 });
      if (typeof fromEnv === 'string')
        throw new Error(`the environment variable ${fromEnv} Set PORT to a port number or give --port N.`);
      port = fromEnv;
    }
    const host = values.host ?? (process.env.HOST || '0.0.0.0');
    let workers = values.workers;
    if (workers === undefined) {
      const fromEnv = parseInteger('ARC_STUDIO_WORKERS', process.env.ARC_STUDIO_WORKERS || '1', { min: 1, max: 256 });
      if (typeof fromEnv === 'string')
        throw new Error(
          `the environment variable ${fromEnv} Set ARC_STUDIO_WORKERS to a number of processes or give --workers N.`,
        );
      workers = fromEnv;
    }
    const problem = workersProblem(workers, process.env.DATABASE_URL || undefined);
    if (problem) throw new Error(problem);
    if (workers > 1 && cluster.isPrimary) {
      // The token file is written here once, so that every worker reads the same one.
      const admin = loadAdminToken(path.resolve(values['data-dir']));
      return runPrimary({
        workers,
        log: (line) => console.error(line),
        onReady: (url) => {
          console.log(`ARC Studio is running at ${url} (${workers} worker processes, pid ${process.pid})`);
          console.log(adminLoginMessage(admin, url));
        },
      });
    }
    // Workers after the first say nothing of the start (the first one says it for all, and the
    // primary tells the researcher login).
    const workerLog = !isClusterWorker()
      ? null
      : cluster.worker!.id > 1
        ? () => {}
        : (line: string) => console.log(line);
    const tasks = [...(values['no-samples'] ? [] : bundledTaskDirs('tasks')), ...values.tasks];
    const practiceTasks = [...(values['no-samples'] ? [] : bundledTaskDirs('practice')), ...values['practice-tasks']];
    keepServingOnUnhandledRejection();
    const arc3Games = arc3GameDirs(values['arc3-games']).map((d) => path.resolve(d));
    const arc3Servers = values['arc3-server'].length
      ? values['arc3-server']
      : (process.env.ARC_STUDIO_ARC3_SERVERS ?? '').split(/\s+/).filter((u) => u !== '');
    const server = await startServer({
      port,
      host,
      dataDir: path.resolve(values['data-dir']),
      tasks,
      practiceTasks,
      questions: [...(values['no-samples'] ? [] : bundledQuestionFiles()), ...values.questions],
      arc3Games,
      arc3Servers,
      ...(values['arc3-workers'] ? { arc3Workers: values['arc3-workers'] } : {}),
      ...(values['agent-baselines'] ? { agentBaselines: path.resolve(values['agent-baselines']) } : {}),
      ...(values['agent-preset'] ? { agentPreset: values['agent-preset'] } : {}),
      ...(workerLog ? { log: workerLog } : {}),
    });
    let stopping = false;
    const stop = () => {
      if (!stopping) {
        stopping = true;
        void server.close().then(() => process.exit(0));
      }
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (isClusterWorker()) reportWorkerReady(server.url, stop);
    else {
      // The login link last, whole, so that it is the line a person sees after any build output.
      console.log(`ARC Studio is running at ${server.url}`);
      console.log(server.login);
    }
    await new Promise(() => {});
    return 0;
  },
};
