#!/usr/bin/env node
// Entry point of the `arc-studio` command. It runs the compiled server and command line
// (`dist-server/`, made by `npm run build`), and refuses to start, naming that command, when they
// are missing or were made from sources that changed since. `arc-studio --sources ...` (or
// ARC_STUDIO_SOURCES=1) runs the TypeScript sources through tsx instead, a development
// dependency, for development: the threads and commands it starts run the sources too
// (src/server/host/compiled.mjs).
// Its first line names Node alone: `env -S`, which would carry Node options, is not in BusyBox
// (Alpine) or the BSDs; `npm start` and `npm run serve` give the options of src/server/host/nodeFlags.ts.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledDir, registerTsx, runsSources, staleness, whatToDo } from '../src/server/host/compiled.mjs';

const args = process.argv.slice(2);
if (args[0] === '--sources') {
  args.shift();
  // Inherited by this process's threads and by the commands and servers it starts.
  process.env.ARC_STUDIO_SOURCES = '1';
}
let main;
if (runsSources()) {
  try {
    await registerTsx();
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
  ({ main } = await import('../src/cli/main.ts'));
} else {
  const why = staleness();
  if (why !== null) {
    console.error(whatToDo(why));
    process.exit(1);
  }
  ({ main } = await import(pathToFileURL(path.join(compiledDir, 'main.mjs')).href));
}
process.exitCode = await main(args);
