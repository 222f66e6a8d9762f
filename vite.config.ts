import { defineConfig } from 'vitest/config';

// One config for the widget build (later) and the Vitest suite.
export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'widget/**/*.test.ts', 'dashboard/**/*.test.ts', 'locales/**/*.test.ts', 'e2e/**/*.test.ts', 'docs/**/*.test.ts', 'ci/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['server/testing/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Three files at a time on the 2-core machine: much of a file's time is waiting (Chromium, child processes, sockets,
    // scrypt on the thread pool), and a third file fills it (the suite took 20 min with two, with the dashboard's
    // browser tests). PGlite instances are heavy (WASM): no more than that.
    maxWorkers: 3,
  },
});
