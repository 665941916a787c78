/**
 * `arc-studio users` and `arc-studio tokens`: the lab's people and their personal tokens, from the
 * server's own machine, against the database `serve` uses (`--data-dir`, or `DATABASE_URL`). What
 * a person needs (a sign-in link, a token) is printed once, as the last line of standard output.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from './command';
import { parseCommandArgs, selectSubcommand, UsageError } from './args';
import { openStore } from '../server/store/open';
import type { Store } from '../server/store/types';
import {
  COMMAND_LINE,
  PeopleError,
  addPerson,
  createToken,
  normalEmail,
  revokeToken,
  setDisabled,
  signinPath,
} from '../server/people/service';
import { ROLES } from '../server/people/roles';

const DATA_DIR = {
  type: 'string',
  value: 'DIR',
  default: '.arc-studio',
  help: 'the data folder "arc-studio serve" uses; ignored when DATABASE_URL is set',
} as const;
const URL_OPTION = {
  type: 'string',
  value: 'URL',
  help: 'where the studio is reached, for the sign-in link (default: http://localhost:$PORT, else 4173)',
} as const;

const USERS_USAGE = 'users add|list|disable|enable ...';
const USERS = {
  add: {
    command: 'users add',
    usage: `users add EMAIL --role ${ROLES.join('|')} [--name NAME] [--url URL] [--data-dir DIR]`,
    summary: 'Add a person to the lab and print their one-time sign-in link (the last line; valid 7 days).',
    positionals: { name: 'EMAIL', help: "the person's email" },
    options: {
      role: { type: 'string', value: 'ROLE', help: `one of ${ROLES.join(', ')}` },
      name: {
        type: 'string',
        value: 'NAME',
        help: 'their name as the studio shows it (default: the part of the email before @)',
      },
      url: URL_OPTION,
      'data-dir': DATA_DIR,
    },
  },
  list: {
    command: 'users list',
    usage: 'users list [--data-dir DIR]',
    summary: 'One line per person: email, role, name, and whether they are disabled.',
    options: { 'data-dir': DATA_DIR },
  },
  disable: {
    command: 'users disable',
    usage: 'users disable EMAIL [--data-dir DIR]',
    summary: 'Disable a person: their sessions, tokens and links stop working on every server at once.',
    positionals: { name: 'EMAIL', help: "the person's email" },
    options: { 'data-dir': DATA_DIR },
  },
  enable: {
    command: 'users enable',
    usage: 'users enable EMAIL [--data-dir DIR]',
    summary: 'Enable a disabled person again (they sign in anew).',
    positionals: { name: 'EMAIL', help: "the person's email" },
    options: { 'data-dir': DATA_DIR },
  },
} as const;

const TOKENS_USAGE = 'tokens create|list|revoke ...';
const TOKENS = {
  create: {
    command: 'tokens create',
    usage: `tokens create --user EMAIL [--role ROLE] [--days N] [--name NAME] [--data-dir DIR]`,
    summary: 'Make a personal API token for a person and print it once (the last line); only its hash is kept.',
    options: {
      user: { type: 'string', value: 'EMAIL', help: "the token's person" },
      role: {
        type: 'string',
        value: 'ROLE',
        help: "the token's scope, no wider than the person's role (default: theirs)",
      },
      days: { type: 'integer', value: 'N', min: 1, max: 3650, help: 'days until it expires (default: never)' },
      name: { type: 'string', value: 'NAME', default: 'command line', help: 'to tell it from their other tokens' },
      'data-dir': DATA_DIR,
    },
  },
  list: {
    command: 'tokens list',
    usage: 'tokens list --user EMAIL [--data-dir DIR]',
    summary: 'One line per token of a person: id, name, role, expiry, and whether it is revoked.',
    options: { user: { type: 'string', value: 'EMAIL', help: 'whose tokens' }, 'data-dir': DATA_DIR },
  },
  revoke: {
    command: 'tokens revoke',
    usage: 'tokens revoke TOKEN_ID --user EMAIL [--data-dir DIR]',
    summary: 'Revoke a token (its id, from "tokens list"): it stops working on every server.',
    positionals: { name: 'TOKEN_ID', help: 'the id "tokens list" shows' },
    options: { user: { type: 'string', value: 'EMAIL', help: "the token's person" }, 'data-dir': DATA_DIR },
  },
} as const;

/** Opens the database `serve` uses, as `export` does. */
async function openServeStore(dataDirOption: string): Promise<Store> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const dataDir = path.resolve(dataDirOption);
  if (!databaseUrl && !existsSync(path.join(dataDir, 'db')))
    throw new Error(
      `no database in ${path.join(dataDir, 'db')}: give the --data-dir that "arc-studio serve" uses (default .arc-studio), or set DATABASE_URL for PostgreSQL.`,
    );
  return openStore(databaseUrl ? { databaseUrl } : { dataDir });
}

function one(positionals: string[], what: string, usage: string): string {
  if (positionals.length !== 1) throw new UsageError(`give exactly one ${what}.\nUsage: arc-studio ${usage}`);
  return positionals[0];
}

async function withStore<T>(dataDir: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openServeStore(dataDir);
  try {
    return await fn(store);
  } catch (e) {
    if (e instanceof PeopleError) throw new Error(e.message);
    throw e;
  } finally {
    await store.close();
  }
}

async function personOf(store: Store, email: string) {
  const person = await store.people.personByEmail(normalEmail(email));
  if (!person) throw new Error(`no person has the email ${email}; "arc-studio users list" lists them.`);
  return person;
}

export const usersCommand: Command = {
  summary: "The lab's people: add one (printing their sign-in link), list them, disable or enable one.",
  usage: USERS_USAGE,
  async run(args) {
    const { sub, rest } = selectSubcommand({ command: 'users', usage: USERS_USAGE }, USERS, args);
    if (sub === 'add') {
      const { values, positionals } = parseCommandArgs(USERS.add, rest);
      const email = one(positionals, 'EMAIL', USERS.add.usage);
      if (!values.role)
        throw new UsageError(`give the person's --role (${ROLES.join(', ')}).\nUsage: arc-studio ${USERS.add.usage}`);
      const url = (values.url ?? `http://localhost:${process.env.PORT || 4173}`).replace(/\/+$/, '');
      const made = await withStore(values['data-dir'], (store) =>
        addPerson(store.people, { email, role: values.role!, name: values.name }, COMMAND_LINE, Date.now()),
      );
      console.log(`Added ${made.person.email} (${made.person.role}). Their one-time sign-in link, valid 7 days:`);
      console.log(`${url}${signinPath(made.link)}`);
      return 0;
    }
    if (sub === 'list') {
      const { values } = parseCommandArgs(USERS.list, rest);
      const people = await withStore(values['data-dir'], (store) => store.people.listPeople());
      for (const p of people)
        console.log([p.email, p.role, p.name, p.disabledAt === null ? 'active' : 'disabled'].join('\t'));
      return 0;
    }
    const spec = sub === 'disable' ? USERS.disable : USERS.enable;
    const { values, positionals } = parseCommandArgs(spec, rest);
    const email = one(positionals, 'EMAIL', spec.usage);
    const p = await withStore(values['data-dir'], (store) =>
      setDisabled(store.people, email, sub === 'disable', COMMAND_LINE, Date.now()),
    );
    console.log(
      `${p.email} is ${sub === 'disable' ? 'disabled: their sessions and tokens no longer work' : 'enabled again'}.`,
    );
    return 0;
  },
};

export const tokensCommand: Command = {
  summary: "Personal API tokens: make one for a person (printed once), list a person's, revoke one.",
  usage: TOKENS_USAGE,
  async run(args) {
    const { sub, rest } = selectSubcommand({ command: 'tokens', usage: TOKENS_USAGE }, TOKENS, args);
    if (sub === 'create') {
      const { values } = parseCommandArgs(TOKENS.create, rest);
      if (!values.user)
        throw new UsageError(`give the token's person with --user EMAIL.\nUsage: arc-studio ${TOKENS.create.usage}`);
      const made = await withStore(values['data-dir'], async (store) =>
        createToken(
          store.people,
          await personOf(store, values.user!),
          { name: values.name, role: values.role, days: values.days ?? null },
          COMMAND_LINE,
          Date.now(),
        ),
      );
      const expires =
        made.record.expiresAt === null ? 'never expires' : `expires ${new Date(made.record.expiresAt).toISOString()}`;
      console.log(`Token ${made.record.id} (${made.record.role}, ${expires}); it is shown only now:`);
      console.log(made.token);
      return 0;
    }
    if (sub === 'list') {
      const { values } = parseCommandArgs(TOKENS.list, rest);
      if (!values.user)
        throw new UsageError(`give the person with --user EMAIL.\nUsage: arc-studio ${TOKENS.list.usage}`);
      const tokens = await withStore(values['data-dir'], async (store) =>
        store.people.listTokens((await personOf(store, values.user!)).id),
      );
      for (const t of tokens)
        console.log(
          [
            t.id,
            t.name,
            t.role,
            t.expiresAt === null ? 'no expiry' : new Date(t.expiresAt).toISOString(),
            t.revokedAt === null ? 'open' : 'revoked',
          ].join('\t'),
        );
      return 0;
    }
    const { values, positionals } = parseCommandArgs(TOKENS.revoke, rest);
    const id = one(positionals, 'TOKEN_ID', TOKENS.revoke.usage);
    if (!values.user)
      throw new UsageError(`give the token's person with --user EMAIL.\nUsage: arc-studio ${TOKENS.revoke.usage}`);
    await withStore(values['data-dir'], async (store) =>
      revokeToken(store.people, await personOf(store, values.user!), id, COMMAND_LINE, Date.now()),
    );
    console.log(`Token ${id} is revoked.`);
    return 0;
  },
};
