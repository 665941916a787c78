/**
 * `arc-studio login-link`: prints the researcher login link again, as `serve` prints it last on
 * every start (the token kept in the data folder), for a person who lost the start output.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from './command';
import { parseCommandArgs } from './args';
import { adminLoginMessage, loadAdminToken } from '../server/people/auth';

const LOGIN_LINK = {
  command: 'login-link',
  usage: 'login-link [--data-dir DIR] [--url URL]',
  summary: 'Print the researcher login link of the studio that serves from a data folder (its token is kept there).',
  options: {
    'data-dir': {
      type: 'string',
      value: 'DIR',
      default: '.arc-studio',
      help: 'the data folder "arc-studio serve" uses',
    },
    url: {
      type: 'string',
      value: 'URL',
      help: 'where the studio is reached (default: http://localhost:$PORT, else 4173)',
    },
  },
} as const;

export const loginLinkCommand: Command = {
  summary: LOGIN_LINK.summary,
  usage: LOGIN_LINK.usage,
  async run(args) {
    const { values } = parseCommandArgs(LOGIN_LINK, args);
    const dataDir = path.resolve(values['data-dir']);
    if (!process.env.ARC_STUDIO_ADMIN_TOKEN?.trim() && !existsSync(path.join(dataDir, 'admin-token'))) {
      throw new Error(
        `no researcher token in ${dataDir}: start the studio once ("npm start" or "arc-studio serve --data-dir ${values['data-dir']}") to have one made, or give the --data-dir it serves from.`,
      );
    }
    const url = (values.url ?? `http://localhost:${process.env.PORT || 4173}`).replace(/\/+$/, '');
    console.log(adminLoginMessage(loadAdminToken(dataDir), url));
    return 0;
  },
};
