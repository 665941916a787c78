/**
 * The `arc-studio` command. Each subcommand lives in its own module and returns an exit code.
 */
import { serveCommand } from './serve';
import { tasksCommand } from './tasks';
import { benchCommand } from './bench';
import { gamesCommand } from './games';
import { scoreCommand } from './score';
import { exportCommand } from './export';

export interface Command {
  readonly summary: string;
  readonly usage: string;
  run(args: string[]): Promise<number>;
}

export const commands: Record<string, Command> = {
  serve: serveCommand,
  tasks: tasksCommand,
  bench: benchCommand,
  games: gamesCommand,
  score: scoreCommand,
  export: exportCommand,
};

function help(): string {
  const lines = ['arc-studio: human studies and playtests for ARC benchmarks', '', 'Usage:'];
  for (const c of Object.values(commands)) lines.push(`  ${c.usage}`, `      ${c.summary}`);
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(help());
    return name ? 0 : 1;
  }
  const cmd = commands[name];
  if (!cmd) {
    console.error(`arc-studio: unknown command "${name}".\n\n${help()}`);
    return 2;
  }
  try {
    return await cmd.run(rest);
  } catch (e) {
    console.error(`arc-studio ${name}: ${(e as Error).message}`);
    return 1;
  }
}
