import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './index.ts';
import { startGateway } from '../gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../merchants/repository.ts';
import { cardPayment, configAt, createTestClock, freshStoreLocation } from '../testing/harness.ts';

/** `npm run gateway -- settlement ...`: the operator sets an entity's settlement, runs a day and lists it. */

const location = await freshStoreLocation('PGlite');
afterAll(() => location.dispose());

const clock = createTestClock(new Date('2026-11-26T10:00:00.000Z'));
const env = { DATA_DIR: location.dataDir, DATABASE_URL: '', SETTLEMENT_FX_RATES: 'USD:EUR=0.5', SETTLEMENT_FEE_PERCENT: '0', SETTLEMENT_FEE_FIXED: '0.00' };
const gateway = (...args: string[]) => runCli(args, { env, progress: () => {}, now: clock.now });

describe('the settlement commands', () => {
  it('set an entity’s currency, run a day, list it, and reset', async () => {
    const running = await startGateway(configAt(location, { logLevel: 'silent' }), { jobPollMs: 0, now: clock.now });
    const token = newAccessToken();
    let entityId: string;
    try {
      entityId = (await running.store.transaction(async (tx) => {
        const entity = await createEntity(tx, 'Settled shop');
        await grantToken(tx, token, 'test', [entity.id]);
        return entity;
      })).id;
      const paid = await fetch(`${running.url}/v1/payments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(cardPayment(entityId, { amount: '10.01', currency: 'USD' })),
      });
      expect(paid.status).toBe(200);
    } finally {
      await running.close();
    }

    const set = await gateway('settlement', 'set', entityId, 'currency=EUR', 'unmatched=1');
    expect(set).toMatchObject({ exitCode: 0, stdout: `${entityId}  settles in EUR  unmatched records 1  duplicate records 0\n` });

    clock.advance(13 * 3_600_000);
    const run = await gateway('settlement', 'run', '2026-11-26');
    expect(run.exitCode, run.stderr).toBe(0);
    // 10.01 USD at 0.5 = 5.005 → 5.00 EUR (half to even), and the simulator's unmatched record of 10.00.
    expect(run.stdout).toMatch(new RegExp(`^settlement of 2026-11-26 \\(operations up to 2026-11-26T22:00:00.000Z\\): 1 new batch\\(es\\)\\n[0-9a-f]{32}  entity ${entityId}  simulator  EUR 15.00  2 records  \\(test\\)\\n$`));
    const again = await gateway('settlement', 'run', '2026-11-26');
    expect(again.stdout).toContain(': 0 new batch(es)');
    const listed = await gateway('settlement', 'list', '2026-11-26', '--entity', entityId);
    expect(listed.stdout).toBe(run.stdout.split('\n').slice(1).join('\n'));

    const reset = await gateway('settlement', 'reset', entityId);
    expect(reset.stdout).toBe(`${entityId}  settles in each transaction's own currency  unmatched records 0  duplicate records 0\n`);
    expect((await gateway('settlement', 'show', entityId)).stdout).toBe(reset.stdout);
  }, 60_000);

  it('explain what they need', async () => {
    // Each command opens the store: a few, not every refusal.
    for (const [args, message] of [
      [['settlement', 'run', '2099-01-01'], 'settlement run: DATE must not be after today'],
      [['settlement', 'set', '0'.repeat(32), 'currency=euro', 'fees=1'], '"fees=1" is not currency=CODE, unmatched=N or duplicates=N'],
      [['settlement', 'set', '0'.repeat(32), 'unmatched=101'], 'unmatchedRecords must be an integer from 0 to 100'],
    ] as const) {
      const answer = await gateway(...args);
      expect(answer.exitCode, args.join(' ')).toBe(1);
      expect(answer.stderr, args.join(' ')).toContain(message);
    }
  });
});
