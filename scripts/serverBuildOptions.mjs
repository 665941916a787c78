// How the server's code is compiled, for `build-server.mjs` and for tests that run the server's
// modules in processes of their own: ES modules for this Node, shared code in chunks beside the
// entries (`chunk-<hash>.mjs`), every npm package left as an import (resolved from the project's
// node_modules, so the output goes inside the project).
export const SERVER_BUILD = {
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  logLevel: 'warning',
};
