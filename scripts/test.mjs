#!/usr/bin/env node
// `npm test`: lint, type-check, build, unit and integration tests, then browser tests against
// the built app and the real server. Stops at the first failing step.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const steps = [
  ['lint', 'npx', ['eslint', '.']],
  ['typecheck', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']],
  ['build', 'npx', ['vite', 'build', '--logLevel', 'warn']],
  ['unit and integration tests', 'npx', ['vitest', 'run']],
  ['browser tests', 'npx', ['playwright', 'test']],
];

rmSync(`.tmp/e2e-data-${process.env.E2E_PORT ?? 4399}`, { recursive: true, force: true });
for (const [name, cmd, args] of steps) {
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  if (r.status !== 0) {
    console.error(`\n${name} failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status || 1);
  }
}
console.log('\nAll test steps passed.');
