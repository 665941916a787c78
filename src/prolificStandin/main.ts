/**
 * `npm run prolific-standin -- --port P`: the Prolific stand-in (`standin.ts`) as a program of its
 * own, for a person trying the studio's Prolific features without the real service. `npm run
 * prolific-standin` compiles it first (`dist-server/prolificStandin.mjs`), as `npm run bench` does.
 */
import { HelpRequest, UsageError, parseCommandArgs } from '../cli/args';
import { startStandin } from './standin';

const SPEC = {
  program: 'npm run prolific-standin',
  command: '--',
  usage: '-- [--port P] [--host H] [--token T] [--rate-limit N] [--quiet]',
  summary:
    'Serve the Prolific API endpoints the studio uses (bonuses, submissions, webhooks), with GET /__standin/paid. Point the studio at it with ARC_STUDIO_PROLIFIC_API_URL and the same token in ARC_STUDIO_PROLIFIC_TOKEN.',
  options: {
    port: { type: 'integer', value: 'P', min: 0, max: 65535, default: 4480, help: 'port to listen on' },
    host: { type: 'string', value: 'H', default: '127.0.0.1', help: 'address to listen on' },
    token: { type: 'string', value: 'T', default: 'standin-token', help: 'the API token requests must carry' },
    'rate-limit': { type: 'integer', value: 'N', min: 1, default: 50, help: 'API requests per second before 429' },
    quiet: { type: 'boolean', help: 'print no line per request' },
  },
} as const;

async function main(args: string[]): Promise<number> {
  try {
    const { values } = parseCommandArgs(SPEC, args);
    const s = await startStandin({
      port: values.port,
      host: values.host,
      token: values.token,
      rateLimit: values['rate-limit'],
      log: values.quiet ? undefined : (line) => console.log(line),
    });
    console.log(`Prolific stand-in listening on ${s.url} (token "${values.token}")`);
    const stop = () => void s.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return 0;
  } catch (e) {
    if (e instanceof HelpRequest) {
      console.log(e.text);
      return 0;
    }
    console.error(`npm run prolific-standin: ${(e as Error).message}`);
    return e instanceof UsageError ? 2 : 1;
  }
}

const code = await main(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
