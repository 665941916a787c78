import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

// The dev server proxies the API to a running `arc-studio serve` (default port 5174 in dev).
export default defineConfig({
  plugins: [react(), tailwindcss()],
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://localhost:' + (process.env.ARC_STUDIO_API_PORT ?? '4173') } },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts'],
    environment: 'node',
    // Starts a throwaway PostgreSQL for the store and API suites that run on both databases.
    globalSetup: ['src/server/store/testGlobalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
