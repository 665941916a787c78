import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { precompress } from './scripts/precompress';

// The tests' settings are in vitest.config.ts.
// The dev server proxies the API to a running `arc-studio serve` (default port 5174 in dev).
export default defineConfig({
  // Brotli and gzip copies of the built files, which the server sends to browsers that accept them.
  plugins: [react(), tailwindcss(), precompress()],
  build: {
    outDir: 'dist',
    // No source maps in the served app: its sources are public in the repository, not from the server.
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
    // Fonts (KaTeX's) are files of their own: the security policy allows fonts from this origin only, never data: URLs.
    assetsInlineLimit: (file) => (/\.(woff2?|ttf|otf)$/.test(file) ? false : undefined),
    // No report of how long each build plugin took (here and in the workers' bundles below): on a
    // slow machine the bundler prints one at `npm start`, which tells the person starting the
    // studio nothing they can act on.
    rolldownOptions: {
      checks: { bundlerTimings: false },
      // zod and the module that turns its compiled parsers off (`src/client/zodJitless.ts`) in a
      // chunk of their own: whichever of the app's chunks builds a schema first, that chunk runs
      // before it, so no schema is built while zod may still compile code (which the security
      // policy forbids).
      output: {
        codeSplitting: {
          groups: [{ name: 'zod', test: /node_modules[\\/]zod[\\/]|src[\\/]client[\\/]zodJitless\.ts$/ }],
        },
      },
    },
  },
  worker: { rolldownOptions: { checks: { bundlerTimings: false } } },
  server: { proxy: { '/api': 'http://localhost:' + (process.env.ARC_STUDIO_API_PORT ?? '4173') } },
});
