/**
 * Vitest setup file of the `shared` project, whose test files share processes: Vitest runs
 * it before each file (modules such as `testing.ts` are evaluated once per process), so that each
 * file's PGlite is closed and its folder removed after that file's own `afterAll` hooks, as in a
 * process of its own.
 */
import { afterAll } from 'vitest';
import { closeFilePglite } from './testing';

afterAll(closeFilePglite);
