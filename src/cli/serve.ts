import { parseArgs } from 'node:util';
import path from 'node:path';
import { readdirSync, existsSync } from 'node:fs';
import type { Command } from './main';
import { ROOT, startServer } from '../server/serve';

/** The bundled sample collections: every folder in data/tasks. */
export function bundledTaskDirs(): string[] {
  const dir = path.join(ROOT, 'data', 'tasks');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name));
}

export const serveCommand: Command = {
  summary: 'Serve the studio and its API on one port. --tasks mounts a folder of ARC task files (NAME=DIR names it); repeat it for more.',
  usage: 'serve [--port N] [--host H] [--data-dir DIR] [--tasks [NAME=]DIR]... [--no-samples]',
  async run(args) {
    const { values } = parseArgs({
      args,
      options: {
        port: { type: 'string', default: process.env.PORT ?? '4173' },
        host: { type: 'string', default: process.env.HOST ?? '0.0.0.0' },
        'data-dir': { type: 'string', default: '.arc-studio' },
        tasks: { type: 'string', multiple: true, default: [] },
        'no-samples': { type: 'boolean', default: false },
      },
    });
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${values.port} is not a port number (0-65535).`);
    const tasks = [...(values['no-samples'] ? [] : bundledTaskDirs()), ...(values.tasks ?? [])];
    const server = await startServer({ port, host: values.host!, dataDir: path.resolve(values['data-dir']!), tasks });
    console.log(`ARC Studio is running at ${server.url}`);
    const stop = () => { void server.close().then(() => process.exit(0)); };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await new Promise(() => {});
    return 0;
  },
};
