import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_MERCHANT } from './config.ts';
import { startGatewayProcess } from './testing/gatewayProcess.ts';
import { cardPayment } from './testing/harness.ts';

/**
 * Issue 24: SIGTERM drains. A gateway process whose acquirer answers after 1.5 s is told to stop while a payment
 * waits for that answer: the payment is answered and recorded, no new connection is taken meanwhile, and the process
 * exits 0; a drain that cannot finish within SHUTDOWN_TIMEOUT_SECONDS ends the process anyway.
 */

const demo = DEFAULT_DEMO_MERCHANT;
const pay = (url: string) =>
  fetch(`${url}/v1/payments`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${demo.accessToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(cardPayment(demo.entityId)),
  });

describe('stopping the gateway', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'gateway-shutdown-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('finishes the payment being made, takes no new connection meanwhile, and exits 0', async () => {
    const dataDir = join(work, 'drain');
    const env = { DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', SIMULATED_ACQUIRER_LATENCY_MS: '1500' };
    const gateway = startGatewayProcess(env);
    try {
      const url = /Gateway listening on (\S+)/.exec(await gateway.listening)?.[1] as string;
      const paying = pay(url);
      // The payment is at the acquirer (its attempt is open) when the stop comes.
      await new Promise((resolve) => setTimeout(resolve, 500));
      gateway.child.kill('SIGTERM');
      await gateway.printed(/SIGTERM: draining/);
      await expect(fetch(`${url}/health`)).rejects.toThrow();
      const paid = await paying;
      expect(paid.status).toBe(200);
      const body = (await paid.json()) as { id: string; result: { code: string } };
      expect(body.result.code).toBe('000.100.110');
      expect(await gateway.exited).toBe(0);

      // Recorded: the next gateway on the same store reads it.
      const next = startGatewayProcess({ ...env, SIMULATED_ACQUIRER_LATENCY_MS: '0' });
      try {
        const nextUrl = /Gateway listening on (\S+)/.exec(await next.listening)?.[1] as string;
        const read = await fetch(`${nextUrl}/v1/payments/${body.id}?entityId=${demo.entityId}`, { headers: { Authorization: `Bearer ${demo.accessToken}` } });
        expect(((await read.json()) as { result: { code: string } }).result.code).toBe('000.100.110');
      } finally {
        await next.kill();
      }
    } finally {
      await gateway.kill();
    }
  }, 60_000);

  it('exits 1 when the drain does not finish within SHUTDOWN_TIMEOUT_SECONDS', async () => {
    const gateway = startGatewayProcess({
      DATA_DIR: join(work, 'bound'),
      DATABASE_URL: '',
      PORT: '0',
      HOST: '127.0.0.1',
      SIMULATED_ACQUIRER_LATENCY_MS: '30000',
      SHUTDOWN_TIMEOUT_SECONDS: '1',
    });
    try {
      const url = /Gateway listening on (\S+)/.exec(await gateway.listening)?.[1] as string;
      const paying = pay(url).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(1);
      expect(gateway.stderr()).toContain('the drain did not finish within 1 s (SHUTDOWN_TIMEOUT_SECONDS): exiting');
      await paying;
    } finally {
      await gateway.kill();
    }
  }, 60_000);
});
