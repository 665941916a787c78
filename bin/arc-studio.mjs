#!/usr/bin/env node
// Entry point of the `arc-studio` command. The CLI is written in TypeScript and loaded through tsx,
// so the same sources serve the browser build, the server and the command line.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
