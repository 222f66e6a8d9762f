import { defineConfig } from 'vitest/config';
import { localeGroups } from './widget/localeGroups.ts';

// One config for the widget build (later) and the Vitest suite.
export default defineConfig({
  // The English of a widget feature's locale group, as its chunk imports it (widget/localeGroups.ts).
  plugins: [localeGroups()],
  test: {
    include: ['server/**/*.test.ts', 'widget/**/*.test.ts', 'dashboard/**/*.test.ts', 'locales/**/*.test.ts', 'e2e/**/*.test.ts', 'docs/**/*.test.ts', 'ci/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['server/testing/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // PGlite instances are heavy (WASM); keep parallelism within the 2-core machine. Three files at a time took a
    // minute less but starved server/instances.test.ts (three gateways killed under load) past its drain timeout.
    maxWorkers: 2,
  },
});
