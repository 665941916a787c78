/** One `arc-studio` subcommand: what `help` lists, and what runs it (returning the exit code). */
export interface Command {
  readonly summary: string;
  readonly usage: string;
  run(args: string[]): Promise<number>;
}
