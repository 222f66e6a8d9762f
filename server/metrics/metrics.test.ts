import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { scheduleJob } from '../jobs/repository.ts';
import { cardPayment, freePort, startTestGateway, type TestGateway } from '../testing/harness.ts';
import { createMetrics } from './metrics.ts';

/** Issue 24: Prometheus metrics at /metrics, behind a token on the main port or on a port of their own. */

const TOKEN = 'metrics-token-of-the-metrics-test-0123456789';

/** The value of one sample of the exposition text (the line `name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return undefined;
}

describe('metrics on the main port, behind METRICS_TOKEN', () => {
  let t: TestGateway;
  beforeAll(async () => {
    const limits = { ...loadConfig({}).limits, paymentReadsPerMinute: 1 };
    t = await startTestGateway('PGlite', { metrics: { port: undefined, host: '127.0.0.1', token: TOKEN }, limits });
  });
  afterAll(async () => {
    await t?.close();
  });
  const scrape = async () => {
    const answer = await fetch(`${t.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return answer.text();
  };

  it('refuses a scrape without the token or with another one', async () => {
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${t.url}/metrics`, { headers: { Authorization: 'Bearer not-the-metrics-token-at-all-0123456789' } })).status).toBe(403);
  });

  it('counts requests by route template and result class, payments by type, brand and class, and throttled requests', async () => {
    const paid = await t.post('/v1/payments', cardPayment(t.entityId));
    const declined = await t.post('/v1/payments', cardPayment(t.entityId, { 'card.holder': '800.100.151' }));
    expect([paid.status, declined.status]).toEqual([200, 400]);
    const id = paid.body.id as string;
    // One read a minute for this test: the second is refused (COMPAT §17: 400 800.120.100).
    expect((await t.get(`/v1/payments/${id}`, { entityId: t.entityId })).status).toBe(200);
    expect((await t.get(`/v1/payments/${id}`, { entityId: t.entityId })).body.result.code).toBe('800.120.100');
    const text = await scrape();
    expect(sample(text, 'gateway_http_requests_total', { route: '/v1/payments', method: 'POST', status: '2xx', result_class: 'success' })).toBe(1);
    expect(sample(text, 'gateway_http_requests_total', { route: '/v1/payments', method: 'POST', status: '4xx', result_class: 'rejectedByBank' })).toBe(1);
    expect(sample(text, 'gateway_http_requests_total', { route: '/v1/payments/:id', method: 'GET', status: '4xx' })).toBe(1);
    expect(sample(text, 'gateway_http_throttled_requests_total', { route: '/v1/payments/:id' })).toBe(1);
    expect(sample(text, 'gateway_http_request_duration_seconds_count', { route: '/v1/payments', method: 'POST' })).toBe(2);
    expect(sample(text, 'gateway_payments_total', { payment_type: 'DB', brand: 'VISA', result_class: 'success' })).toBe(1);
    expect(sample(text, 'gateway_payments_total', { payment_type: 'DB', brand: 'VISA', result_class: 'rejectedByBank' })).toBe(1);
    expect(text).toContain('gateway_process_cpu_seconds_total');
    // No id, entity, token or card in any label or value.
    for (const secret of [id, t.entityId, t.token, '4200000000000000', TOKEN]) expect(text).not.toContain(secret);
    // An unknown path is one label, not one per path.
    await fetch(`${t.url}/v1/nope/${'1'.repeat(16)}`);
    expect(sample(await scrape(), 'gateway_http_requests_total', { route: 'unmatched', method: 'GET', status: '4xx' })).toBeGreaterThanOrEqual(1);
  });

  it('reads the job queues at each scrape: how many are due per kind and how long the oldest waited', async () => {
    const now = new Date();
    await scheduleJob(t.gateway.store, { kind: 'metrics.test', uniqueKey: 'metrics-test-1', runAt: new Date(now.getTime() - 90_000), payload: {} }, now);
    await scheduleJob(t.gateway.store, { kind: 'metrics.test', uniqueKey: 'metrics-test-2', runAt: new Date(now.getTime() - 1_000), payload: {} }, now);
    const text = await scrape();
    expect(sample(text, 'gateway_job_queue_depth', { kind: 'metrics.test' })).toBe(2);
    expect(sample(text, 'gateway_job_queue_oldest_age_seconds', { kind: 'metrics.test' })).toBeGreaterThanOrEqual(90);
  });
});

describe('metrics on METRICS_PORT', () => {
  let t: TestGateway;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    t = await startTestGateway('PGlite', { metrics: { port, host: '127.0.0.1', token: undefined } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves /metrics there and only there, and nothing else on that port', async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('# TYPE gateway_http_requests_total counter');
    expect((await fetch(`http://127.0.0.1:${port}/v1/payments`)).status).toBe(404);
    // Without a token the main port has no /metrics at all.
    expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
  });
});

describe('job outcomes', () => {
  it('counts every outcome by kind, and failed webhook deliveries besides', async () => {
    const metrics = createMetrics();
    metrics.jobFinished('webhook.deliver', 'done');
    metrics.jobFinished('webhook.deliver', 'retry');
    metrics.jobFinished('webhook.deliver', 'failed');
    metrics.jobFinished('checkout.notification', 'retry');
    const { text } = await metrics.scrape();
    expect(sample(text, 'gateway_jobs_total', { kind: 'webhook.deliver', outcome: 'done' })).toBe(1);
    expect(sample(text, 'gateway_webhook_delivery_failures_total', { outcome: 'retry' })).toBe(1);
    expect(sample(text, 'gateway_webhook_delivery_failures_total', { outcome: 'failed' })).toBe(1);
    expect(sample(text, 'gateway_jobs_total', { kind: 'checkout.notification', outcome: 'retry' })).toBe(1);
  });
});
