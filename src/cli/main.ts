/**
 * The `arc-studio` command. Each subcommand lives in its own module and returns an exit code;
 * all of them parse their arguments with `./args` (one style, `--help` on each).
 */
import { HelpRequest, UsageError } from './args';
import { serveCommand } from './serve';
import { tasksCommand } from './tasks';
import { gamesCommand } from './games';
import { scoreCommand } from './score';
import { exportCommand } from './export';
import { questionsCommand, scoreAnswersCommand } from './questions';
import { loginLinkCommand } from './loginLink';
import { tokensCommand, usersCommand } from './people';
import { checkCommand } from './check';
import { recordingsCommand } from './recordings';
import type { Command } from './command';

export type { Command } from './command';

export const commands: Record<string, Command> = {
  serve: serveCommand,
  tasks: tasksCommand,
  games: gamesCommand,
  score: scoreCommand,
  export: exportCommand,
  questions: questionsCommand,
  'score-answers': scoreAnswersCommand,
  'login-link': loginLinkCommand,
  users: usersCommand,
  tokens: tokensCommand,
  check: checkCommand,
  recordings: recordingsCommand,
};

function help(): string {
  const lines = ['arc-studio: human studies and playtests for ARC benchmarks', '', 'Usage:'];
  for (const c of Object.values(commands)) lines.push(`  arc-studio ${c.usage}`, `      ${c.summary}`);
  lines.push('', '"arc-studio <command> --help" (or "arc-studio help <command>") describes a command\'s options.');
  return lines.join('\n');
}

/**
 * Runs `arc-studio` with `argv` (the arguments after the program) and returns the exit code:
 * 0 done, 1 the command failed, 2 the command line is wrong.
 */
export async function main(argv: string[]): Promise<number> {
  let [name, ...rest] = argv;
  if (name === 'help' && rest.length) [name, rest] = [rest[0], ['--help']];
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    (name ? console.log : console.error)(help());
    return name ? 0 : 2;
  }
  const cmd = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!cmd) {
    console.error(`arc-studio: unknown command "${name}".\n\n${help()}`);
    return 2;
  }
  try {
    return await cmd.run(rest);
  } catch (e) {
    if (e instanceof HelpRequest) {
      console.log(e.text);
      return 0;
    }
    console.error(`arc-studio ${name}: ${(e as Error).message}`);
    return e instanceof UsageError ? 2 : 1;
  }
}
