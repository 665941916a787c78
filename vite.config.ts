import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

// The dev server proxies the API to a running `arc-studio serve` (default port 5174 in dev).
export default defineConfig({
  plugins: [react(), tailwindcss()],
  build: {
    outDir: 'dist',
    // No source maps in the served app: its sources are public in the repository, not from the server.
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
    // Fonts (KaTeX's) are files of their own: the security policy allows fonts from this origin only, never data: URLs.
    assetsInlineLimit: (file) => (/\.(woff2?|ttf|otf)$/.test(file) ? false : undefined),
  },
  server: { proxy: { '/api': 'http://localhost:' + (process.env.ARC_STUDIO_API_PORT ?? '4173') } },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts'],
    environment: 'node',
    // Starts a throwaway PostgreSQL for the store and API suites that run on both databases.
    globalSetup: ['src/server/store/testGlobalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A poll waits for what it polls; on a busy machine that takes longer than vitest's 1 s default.
    expect: { poll: { timeout: 30_000 } },
    // Files in parallel: on two cores Vitest would run one at a time, yet most server and CLI
    // files spend their time waiting on a database, a child process or a worker thread. Each file
    // in a process of its own (forks): tests set process.env and start servers and threads.
    // ARC_STUDIO_TEST_WORKERS sets another number (1 runs one file at a time).
    pool: 'forks',
    maxWorkers: Number(process.env.ARC_STUDIO_TEST_WORKERS) || 2,
    // A busy machine delays every event loop: servers under test (spawned ones too) refuse as
    // overloaded only past a minute of lag or of queue wait; load.test.ts tests the refusal with its own limits.
    env: { ARC_STUDIO_MAX_LAG_MS: '60000', ARC_STUDIO_MAX_WAIT_MS: '60000' },
  },
});
