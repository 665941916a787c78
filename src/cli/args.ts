/**
 * Argument parsing for every `arc-studio` command, in one style. A command declares its
 * options once (name, type, value name, help line); the parser then
 *
 * - refuses an unknown option, a repeated one, a missing value and a bad number with a message
 *   that names the option and ends with the command's usage line ({@link UsageError}, exit 2);
 * - answers `--help` / `-h` with the command's help, generated from the same declaration
 *   ({@link HelpRequest}, printed to standard output, exit 0);
 * - accepts `--name value` and `--name=value`, and takes everything after `--` as positionals.
 *
 * @example
 * const spec = { command: 'games verify', usage: 'games verify [id...] [--steps N]', summary: '...',
 *   positionals: { name: 'id', help: 'games to check (default: all)' },
 *   options: { steps: { type: 'integer', value: 'N', min: 1, default: 50_000, help: 'random-play steps' } } } as const;
 * const { values, positionals } = parseCommandArgs(spec, ['push', '--steps', '100']);
 * values.steps; // 100 (a number)
 */

/** One option of a command, declared once for parsing and for its help line. */
export type OptionSpec =
  | { readonly type: 'boolean'; readonly help: string }
  | {
      readonly type: 'string';
      readonly value: string;
      readonly help: string;
      readonly default?: string;
      readonly multiple?: boolean;
    }
  | {
      readonly type: 'integer';
      readonly value: string;
      readonly help: string;
      readonly default?: number;
      readonly min?: number;
      readonly max?: number;
    };

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** A command (or subcommand) as the parser and its help see it. */
export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  /** The program the command is typed after; `arc-studio` when absent. */
  readonly program?: string;
  /** The command as typed after the program, e.g. `games verify`. */
  readonly command: string;
  /** The synopsis without `arc-studio`, e.g. `games verify [id...] [--steps N] [--minimal]`. */
  readonly usage: string;
  /** What the command does, for its help. */
  readonly summary: string;
  readonly options: O;
  /** The positional arguments' name and help; when absent the command takes none. */
  readonly positionals?: { readonly name: string; readonly help: string };
}

type ValueOf<S extends OptionSpec> = S extends { type: 'boolean' }
  ? boolean
  : S extends { type: 'integer' }
    ? S extends { default: number }
      ? number
      : number | undefined
    : S extends { multiple: true }
      ? string[]
      : S extends { default: string }
        ? string
        : string | undefined;

export interface ParsedArgs<O extends OptionSpecs> {
  readonly values: { -readonly [K in keyof O]: ValueOf<O[K]> };
  readonly positionals: string[];
}

/** A mistake in the command line: the message names it and ends with the usage. Exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `--help` was asked for: `text` is the help, for standard output. Exit code 0. */
export class HelpRequest extends Error {
  override readonly name = 'HelpRequest';
  constructor(readonly text: string) {
    super(text);
  }
}

const HELP_FLAGS = new Set(['--help', '-h']);

/** A {@link UsageError} whose message ends with the usage line of `spec` and where help is. */
export function usageError(spec: Pick<CommandSpec, 'program' | 'command' | 'usage'>, message: string): UsageError {
  const program = spec.program ?? 'arc-studio';
  return new UsageError(
    `${message}\nUsage: ${program} ${spec.usage}\n"${program} ${spec.command} --help" describes every option.`,
  );
}

/**
 * Reads `text` as a whole number from `min` to `max` (safe-integer bounds by default); `what`
 * names it in the message, e.g. `--port` or `PORT`.
 */
export function parseInteger(what: string, text: string, range: { min?: number; max?: number } = {}): number | string {
  const min = range.min ?? Number.MIN_SAFE_INTEGER;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const n = Number(text);
  if (/^[-+]?\d+$/.test(text) && Number.isSafeInteger(n) && n >= min && n <= max) return n;
  const bounds = range.max !== undefined ? ` from ${min} to ${max}` : range.min !== undefined ? ` from ${min}` : '';
  return `${what} must be a whole number${bounds}, not "${text}".`;
}

function optionLabel(name: string, spec: OptionSpec): string {
  return spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.value}`;
}

/** The help of a command: usage, summary, positionals and one line per option with its default. */
export function commandHelp(spec: CommandSpec): string {
  const rows: [string, string][] = [];
  if (spec.positionals) rows.push([spec.positionals.name, spec.positionals.help]);
  for (const [name, o] of Object.entries(spec.options)) {
    const extra =
      o.type !== 'boolean' && o.default !== undefined
        ? ` (default: ${o.default})`
        : o.type === 'string' && o.multiple
          ? ' (repeatable)'
          : '';
    rows.push([optionLabel(name, o), o.help + extra]);
  }
  rows.push(['--help, -h', 'show this help']);
  const width = Math.max(...rows.map(([l]) => l.length));
  return [
    `Usage: ${spec.program ?? 'arc-studio'} ${spec.usage}`,
    '',
    spec.summary,
    '',
    ...rows.map(([l, h]) => `  ${l.padEnd(width)}  ${h}`),
  ].join('\n');
}

/**
 * Parses `args` against `spec`. Throws {@link UsageError} for any mistake and
 * {@link HelpRequest} for `--help` / `-h`.
 */
export function parseCommandArgs<const O extends OptionSpecs>(
  spec: CommandSpec<O>,
  args: readonly string[],
): ParsedArgs<O> {
  const fail = (message: string) => usageError(spec, message);
  const values: Record<string, unknown> = {};
  const seen = new Set<string>();
  const positionals: string[] = [];
  for (const [name, o] of Object.entries(spec.options)) {
    if (o.type === 'boolean') values[name] = false;
    else if (o.type === 'string' && o.multiple) values[name] = [];
    else values[name] = o.default;
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (HELP_FLAGS.has(arg)) throw new HelpRequest(commandHelp(spec));
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 && arg.startsWith('--') ? arg.slice(0, eq) : arg;
    const name = flag.startsWith('--') ? flag.slice(2) : '';
    const o = Object.hasOwn(spec.options, name) ? spec.options[name] : undefined;
    if (!o) throw fail(`unknown option "${flag}".`);
    const multiple = o.type === 'string' && o.multiple === true;
    if (seen.has(name) && !multiple) throw fail(`${flag} is given twice; give it once.`);
    seen.add(name);
    if (o.type === 'boolean') {
      if (eq > 0) throw fail(`${flag} takes no value; write ${flag} alone.`);
      values[name] = true;
      continue;
    }
    let text: string;
    if (eq > 0) text = arg.slice(eq + 1);
    else {
      const next = args[i + 1];
      // A following option is never taken as a value ("--out --json" is a forgotten value),
      // but a negative number is ("--seed -3").
      if (next === undefined || next.startsWith('--') || HELP_FLAGS.has(next))
        throw fail(`${flag} needs a value: ${optionLabel(name, o)}.`);
      text = next;
      i++;
    }
    if (o.type === 'integer') {
      const n = parseInteger(flag, text, o);
      if (typeof n === 'string') throw fail(n);
      values[name] = n;
    } else if (multiple) (values[name] as string[]).push(text);
    else values[name] = text;
  }
  if (!spec.positionals && positionals.length) throw fail(`unexpected argument "${positionals[0]}".`);
  return { values: values as ParsedArgs<O>['values'], positionals };
}

/**
 * Splits `args` into a subcommand of `parent` and its arguments. `--help` before a subcommand
 * (or none at all with `--help`) answers with every subcommand's help.
 */
export function selectSubcommand<S extends string>(
  parent: { readonly command: string; readonly usage: string },
  subcommands: Readonly<Record<S, CommandSpec>>,
  args: readonly string[],
): { sub: S; rest: string[] } {
  const [sub, ...rest] = args;
  const names = Object.keys(subcommands) as S[];
  if (sub !== undefined && HELP_FLAGS.has(sub))
    throw new HelpRequest(names.map((n) => commandHelp(subcommands[n])).join('\n\n'));
  if (sub === undefined) throw usageError(parent, `name a subcommand: ${names.join(', ')}.`);
  if (!(names as string[]).includes(sub))
    throw usageError(parent, `unknown subcommand "${sub}"; subcommands: ${names.join(', ')}.`);
  return { sub: sub as S, rest };
}
