/**
 * The server's Content-Security-Policy forbids eval. Zod compiles object parsers with
 * `new Function` unless told not to, and its probe for eval support, run as schemas are built,
 * would be reported as a policy violation on every page. Imported first by `main.tsx`, and put in
 * zod's own chunk of the built app (`vite.config.ts`), so that this runs before any schema exists
 * in whichever script builds one first; zod then validates without compiling code.
 */
import { z } from 'zod';

z.config({ jitless: true });
