import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock, startTestGateway, type TestClock, type TestGateway } from '../testing/harness.ts';
import { VACUUM_JOB } from './maintenance.ts';
import { findJobsOfKind } from './repository.ts';

/**
 * The embedded store has no autovacuum: without the gateway's own, every deleted or updated row (counted requests
 * pruned each hour, finished attempts, done jobs) would stay in its files for good, and the files would only grow.
 */
describe('the embedded store vacuumed by the gateway', () => {
  let t: TestGateway;
  let clock: TestClock;
  beforeAll(async () => {
    clock = createTestClock();
    t = await startTestGateway('PGlite', {}, { now: clock.now });
    await t.gateway.store.exec('CREATE TABLE churn (id serial PRIMARY KEY, filler text NOT NULL)');
  });
  afterAll(async () => {
    await t?.close();
  });

  const churn = async (): Promise<number> => {
    await t.gateway.store.exec(`INSERT INTO churn (filler) SELECT repeat('x', 200) FROM generate_series(1, 5000); DELETE FROM churn;`);
    const size = await t.gateway.store.query<{ bytes: number }>("SELECT pg_relation_size('churn')::int AS bytes");
    return size.rows[0]?.bytes ?? 0;
  };

  it('is scheduled at start-up, and lets the space of deleted rows be used again', async () => {
    expect((await findJobsOfKind(t.gateway.store, VACUUM_JOB)).filter((job) => job.doneAt === null)).toHaveLength(1);
    const once = await churn();
    // Without a vacuum, a second round of the same rows takes new space.
    expect(await churn()).toBeGreaterThan(once * 1.8);
    const grown = await churn();

    clock.advance(10 * 60_000);
    expect(await t.gateway.jobs.runDueJobs()).toBeGreaterThanOrEqual(1);
    expect(await churn()).toBeLessThanOrEqual(grown);
    expect((await findJobsOfKind(t.gateway.store, VACUUM_JOB)).filter((job) => job.doneAt === null)).toHaveLength(1);
  });
});
