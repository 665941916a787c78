import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HelpRequest, UsageError, commandHelp, parseCommandArgs, parseInteger, selectSubcommand } from './args';
import { commands, main } from './main';
import { NODE_FLAGS } from '../server/host/nodeFlags';

const ROOT = path.resolve(__dirname, '../..');

const SPEC = {
  command: 'demo',
  usage: 'demo [file...] [--port N] [--name S] [--tag T]... [--fast]',
  summary: 'A command for the tests.',
  positionals: { name: 'file...', help: 'files' },
  options: {
    port: { type: 'integer', value: 'N', min: 0, max: 65535, help: 'a port' },
    seed: { type: 'integer', value: 'N', default: 7, help: 'a seed' },
    name: { type: 'string', value: 'S', default: 'x', help: 'a name' },
    tag: { type: 'string', value: 'T', multiple: true, help: 'a tag' },
    fast: { type: 'boolean', help: 'go fast' },
  },
} as const;

function usageMessage(args: string[]): string {
  try {
    parseCommandArgs(SPEC, args);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`${JSON.stringify(args)} was accepted`);
}

describe('parseCommandArgs', () => {
  it('gives typed values, defaults and positionals', () => {
    const r = parseCommandArgs(SPEC, [
      'a.json',
      '--port',
      '80',
      '--tag',
      'one',
      '--tag=two',
      '--fast',
      'b.json',
      '--name=--odd',
    ]);
    expect(r.values).toEqual({ port: 80, seed: 7, name: '--odd', tag: ['one', 'two'], fast: true });
    expect(r.positionals).toEqual(['a.json', 'b.json']);
    const d = parseCommandArgs(SPEC, []);
    expect(d.values).toEqual({ port: undefined, seed: 7, name: 'x', tag: [], fast: false });
  });

  it('takes a negative number as a value and everything after -- as positionals', () => {
    expect(parseCommandArgs(SPEC, ['--seed', '-3']).values.seed).toBe(-3);
    expect(parseCommandArgs(SPEC, ['--', '--fast', '-h']).positionals).toEqual(['--fast', '-h']);
    expect(parseCommandArgs(SPEC, ['-']).positionals).toEqual(['-']);
  });

  it.each([
    [['--bogus'], 'unknown option "--bogus".'],
    [['--bogus=1'], 'unknown option "--bogus".'],
    [['-v'], 'unknown option "-v".'],
    [['--__proto__'], 'unknown option "--__proto__".'],
    [['--port'], '--port needs a value: --port N.'],
    [['--port', '--fast'], '--port needs a value: --port N.'],
    [['--port', 'abc'], '--port must be a whole number from 0 to 65535, not "abc".'],
    [['--port=70000'], '--port must be a whole number from 0 to 65535, not "70000".'],
    [['--port', '1.5'], '--port must be a whole number from 0 to 65535, not "1.5".'],
    [['--port', ''], '--port must be a whole number from 0 to 65535, not "".'],
    [['--seed', '1e3'], '--seed must be a whole number, not "1e3".'],
    [['--seed', '99999999999999999999'], '--seed must be a whole number, not "99999999999999999999".'],
    [['--port', '1', '--port', '2'], '--port is given twice; give it once.'],
    [['--fast=yes'], '--fast takes no value; write --fast alone.'],
  ])('refuses %j, naming the option, with the usage', (args, message) => {
    expect(usageMessage(args)).toBe(
      `${message}\nUsage: arc-studio ${SPEC.usage}\n"arc-studio demo --help" describes every option.`,
    );
  });

  it('refuses positionals when the command takes none', () => {
    const spec = { ...SPEC, positionals: undefined };
    expect(() => parseCommandArgs(spec, ['--fast', 'extra'])).toThrow(
      /^unexpected argument "extra"\.\nUsage: arc-studio demo/,
    );
  });

  it('answers --help and -h with help made from the declaration', () => {
    for (const flag of ['--help', '-h']) {
      let help: unknown;
      try {
        parseCommandArgs(SPEC, ['--port', '1', flag, '--bogus']);
      } catch (e) {
        help = e;
      }
      expect(help).toBeInstanceOf(HelpRequest);
      expect((help as HelpRequest).text).toBe(commandHelp(SPEC));
    }
    expect(commandHelp(SPEC).split('\n')).toEqual([
      `Usage: arc-studio ${SPEC.usage}`,
      '',
      'A command for the tests.',
      '',
      '  file...     files',
      '  --port N    a port',
      '  --seed N    a seed (default: 7)',
      '  --name S    a name (default: x)',
      '  --tag T     a tag (repeatable)',
      '  --fast      go fast',
      '  --help, -h  show this help',
    ]);
  });

  it('reads whole numbers within bounds', () => {
    expect(parseInteger('PORT', '0', { min: 0, max: 65535 })).toBe(0);
    expect(parseInteger('PORT', '+12', { min: 0 })).toBe(12);
    expect(parseInteger('PORT', ' 12', { min: 0 })).toBe('PORT must be a whole number from 0, not " 12".');
  });
});

describe('selectSubcommand', () => {
  const subs = {
    list: { ...SPEC, command: 'demo list', usage: 'demo list' },
    show: { ...SPEC, command: 'demo show', usage: 'demo show' },
  };
  const parent = { command: 'demo', usage: 'demo list | demo show' };
  it('splits off the subcommand', () => {
    expect(selectSubcommand(parent, subs, ['show', '--fast'])).toEqual({ sub: 'show', rest: ['--fast'] });
  });
  it('names a missing or unknown subcommand and lists them', () => {
    expect(() => selectSubcommand(parent, subs, [])).toThrow(
      'name a subcommand: list, show.\nUsage: arc-studio demo list | demo show\n',
    );
    expect(() => selectSubcommand(parent, subs, ['shwo'])).toThrow(
      'unknown subcommand "shwo"; subcommands: list, show.',
    );
  });
  it('answers --help with every subcommand', () => {
    expect(() => selectSubcommand(parent, subs, ['--help'])).toThrow(HelpRequest);
  });
});

describe('every command', () => {
  let out: string[];
  let err: string[];
  beforeEach(() => {
    out = [];
    err = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
      out.push(a.join(' '));
    });
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => {
      err.push(a.join(' '));
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  // The arguments that reach each command's option parsing.
  const invocations: Record<string, string[]> = {
    serve: ['serve'],
    tasks: ['tasks', 'check'],
    games: ['games', 'verify'],
    score: ['score'],
    export: ['export'],
    questions: ['questions', 'check'],
    'score-answers': ['score-answers'],
    'login-link': ['login-link'],
    users: ['users', 'list'],
    tokens: ['tokens', 'list'],
    check: ['check'],
    recordings: ['recordings', 'import'],
  };

  it('is covered here', () => {
    expect(Object.keys(invocations).sort()).toEqual(Object.keys(commands).sort());
  });

  it.each(Object.entries(invocations))(
    '%s refuses an unknown option with exit 2, naming it and the usage',
    async (_name, argv) => {
      expect(await main([...argv, '--no-such-flag'])).toBe(2);
      expect(out).toEqual([]);
      expect(err.join('\n')).toMatch(
        new RegExp(`^arc-studio ${argv[0]}: unknown option "--no-such-flag"\\.\\nUsage: arc-studio ${argv.join(' ')}`),
      );
    },
  );

  it.each(Object.entries(invocations))('%s answers --help on standard output with exit 0', async (_name, argv) => {
    expect(await main([...argv, '--help'])).toBe(0);
    expect(err).toEqual([]);
    expect(out.join('\n')).toMatch(new RegExp(`^Usage: arc-studio ${argv.join(' ')}`));
    expect(out.join('\n')).toMatch(/--help, -h +show this help/);
  });

  it('games no longer ignores unknown flags in play and list', async () => {
    expect(await main(['games', 'play', 'push', '--actions', 'RESET', '--sed', '3'])).toBe(2);
    expect(err.join('\n')).toMatch(/^arc-studio games: unknown option "--sed"\.\nUsage: arc-studio games play <id>/);
    expect(await main(['games', 'list', '--all'])).toBe(2);
    expect(out).toEqual([]);
  });

  it('names bad numbers and missing values', async () => {
    expect(await main(['games', 'verify', '--steps', 'many'])).toBe(2);
    expect(await main(['serve', '--port', '80000'])).toBe(2);
    expect(await main(['export', '--study', 'x', '--format', 'csv', '--out', 'x.csv', '--version', '0'])).toBe(2);
    expect(await main(['score', 'a.jsonl', '--baselines'])).toBe(2);
    expect(err).toEqual([
      expect.stringMatching(/^arc-studio games: --steps must be a whole number from 1, not "many"\./),
      expect.stringMatching(/^arc-studio serve: --port must be a whole number from 0 to 65535, not "80000"\./),
      expect.stringMatching(/^arc-studio export: --version must be a whole number from 1, not "0"\./),
      expect.stringMatching(
        /^arc-studio score: --baselines needs a value: --baselines <file\|study:ID\|reference:GROUP>\./,
      ),
    ]);
  });

  it("help <command> is the command's --help; no command is a usage error", async () => {
    expect(await main(['help', 'score'])).toBe(0);
    expect(out[0]).toMatch(/^Usage: arc-studio score /);
    expect(await main([])).toBe(2);
    expect(err[0]).toMatch(/^arc-studio: human studies/);
  });
});

describe('the installed command', () => {
  it('is started by npm start, npm run serve and npm run serve:sources with the Node options of host/nodeFlags.ts, and runs as a program', () => {
    const flags = NODE_FLAGS.join(' ');
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.start).toBe(`npm run build && node ${flags} bin/arc-studio.mjs serve`);
    expect(scripts.serve).toBe(`node ${flags} bin/arc-studio.mjs serve`);
    expect(scripts['serve:sources']).toBe(`node ${flags} bin/arc-studio.mjs --sources serve`);
    // Started as a program (as `npx arc-studio` does): its first line must work with any `env`.
    expect(readFileSync(path.join(ROOT, 'bin/arc-studio.mjs'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    const help = spawnSync(path.join(ROOT, 'bin/arc-studio.mjs'), ['serve', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(help.stderr).toBe('');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: arc-studio serve /);
  });

  it('exits 2 on a usage error and 0 on --help, from the real binary', () => {
    const bad = spawnSync('node', ['bin/arc-studio.mjs', 'games', 'verify', 'push', '--stpes', '5'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe(
      'arc-studio games: unknown option "--stpes".\nUsage: arc-studio games verify [id...] [--steps N] [--minimal]\n"arc-studio games verify --help" describes every option.\n',
    );
    const help = spawnSync('node', ['bin/arc-studio.mjs', 'serve', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: arc-studio serve /);
    expect(help.stdout).toContain('--data-dir DIR');
  });
});
