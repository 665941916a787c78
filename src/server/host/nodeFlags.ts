/**
 * The Node options `arc-studio serve` is meant to run with: `npm start` and `npm run serve` give
 * them, as do the servers the tests and benchmarks start; `src/cli/args.test.ts` checks that the
 * scripts agree with this list. `bin/arc-studio.mjs` cannot carry them on its first line
 * (`#!/usr/bin/env -S node ...` fails where `env` has no `-S`: BusyBox, so Alpine and its Docker
 * images, and the BSDs), so `npx arc-studio serve` runs without them unless `NODE_OPTIONS` gives
 * them (docs/deploy.md says so).
 *
 * `--max-semi-space-size=64`: a young generation of up to 64 MB per semi-space (Node 20's default is
 * 16). A server playing arcengine games for many participants makes each step's frames and
 * answer, most of which are dropped within a few hundred milliseconds; with the default nursery
 * the garbage collector copied them between spaces and promoted them, and at 150 ls20 players it
 * took a quarter of the server's CPU. With 64 the server spent 0.67-0.76 ms of CPU per action at
 * 150-200 players instead of 0.81-1.05 (`npm run bench -- arc3`, docs/deploy.md). The space grows
 * only while the server allocates that fast; an idle server keeps the small one it starts with.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
