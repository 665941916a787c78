#!/usr/bin/env node
// Entry point of the `arc-studio` command. It runs the compiled server and command line
// (`dist-server/`, made by `npm run build`) when they are at least as new as every source they
// were made from, and always when NODE_ENV=production. Otherwise (a checkout whose sources
// changed since the last build, tests, development) it loads the TypeScript sources through tsx,
// a development dependency: an install without them (`npm ci --omit=dev`) runs the build only.
// ARC_STUDIO_NO_TSX=1 forbids the sources: the command refuses to start without a current build.
// Its first line names Node alone: `env -S`, which would carry Node options, is not in BusyBox
// (Alpine) or the BSDs; `npm start` and `npm run serve` give the options of src/server/host/nodeFlags.ts.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledDir, staleness } from '../src/server/host/compiled.mjs';

const why = staleness();
let main;
if (why === null) {
  ({ main } = await import(pathToFileURL(path.join(compiledDir, 'main.mjs')).href));
} else if (process.env.ARC_STUDIO_NO_TSX === '1' || process.env.NODE_ENV === 'production') {
  console.error(
    `arc-studio: ${why}, and ${process.env.NODE_ENV === 'production' ? 'NODE_ENV=production' : 'ARC_STUDIO_NO_TSX=1'} forbids running the TypeScript sources. Run \`npm run build\` first.`,
  );
  process.exit(1);
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    console.error(
      `arc-studio: ${why}, and running the TypeScript sources needs tsx, a development dependency that is not installed. Run \`npm run build\` where the development dependencies are installed (\`npm install\`), or \`npm install\` here.`,
    );
    process.exit(1);
  }
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
