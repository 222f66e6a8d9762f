import { describe, expect, it } from 'vitest';
import { startGateway } from '../gateway.ts';
import { startGatewayProcess } from '../testing/gatewayProcess.ts';
import { BROWSER_DATA, cardPayment, startTestGateway, TEST_DATABASE_URL, warnIfPostgresSkipped } from '../testing/harness.ts';

/**
 * Several gateway instances on one PostgreSQL must seal card data with one key: without CARD_DATA_KEY an
 * instance refuses to start, and with a shared key a 3-D Secure challenge started on one is finished on another.
 */

warnIfPostgresSkipped('instances sharing a card-data key');

describe.runIf(TEST_DATABASE_URL)('gateway instances sharing PostgreSQL', () => {
  it('refuse to start without CARD_DATA_KEY, naming the variable and how to get one', async () => {
    const instance = startGatewayProcess({
      DATABASE_URL: TEST_DATABASE_URL as string,
      CARD_DATA_KEY: '',
      CARD_DATA_KEY_FILE: '',
      PORT: '0',
      HOST: '127.0.0.1',
    });
    expect(await instance.exited).toBe(1);
    expect(instance.stderr()).toMatch(/Configuration error: CARD_DATA_KEY \(or CARD_DATA_KEY_FILE\) is required with DATABASE_URL/);
    expect(instance.stderr()).toContain('npm run gateway -- key generate');
  }, 60_000);

  it('with a shared key, finish on one instance a challenge started on another', async () => {
    const first = await startTestGateway('PostgreSQL');
    const second = await startGateway({ ...first.gateway.config, port: 0 }, { jobPollMs: 0, logSink: () => undefined });
    try {
      const pending = await first.post(
        '/v1/payments',
        cardPayment(first.entityId, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/return', ...BROWSER_DATA }),
      );
      expect(pending.body.result.code).toBe('000.200.000');
      const redirectPath = new URL(pending.body.redirect.url as string).pathname;
      const answered = await fetch(`${second.url}${redirectPath}/answer`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ paymentId: pending.body.id, action: 'submit', otp: '1234' }),
      });
      expect(answered.status).toBe(200);
      const final = await first.get(`/v1/payments/${pending.body.id}`, { entityId: first.entityId });
      expect(final.body.result.code).toBe('000.100.110');
      expect(final.body.threeDSecure.authenticationStatus).toBe('Y');
    } finally {
      await second.close();
      await first.close();
    }
  }, 60_000);
});
