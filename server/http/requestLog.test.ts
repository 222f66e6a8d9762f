import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment, startTestGateway, type TestGateway } from '../testing/harness.ts';

/** Issue 24: a payment can be followed through the logs, one request line per request, with what it made and answered. */

interface RequestLine {
  readonly level: string;
  readonly msg: string;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly entityId?: string;
  readonly id?: string;
  readonly resultCode?: string;
}

describe('the request log line', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  const linesOf = (from: number): RequestLine[] =>
    t.logLines
      .slice(from)
      .map((line) => JSON.parse(line) as RequestLine)
      .filter((line) => line.msg === 'request');

  it('names the entity, the payment and the result code of a payment, of its capture and of reading it', async () => {
    const from = t.logLines.length;
    const paid = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA' }));
    const captured = await t.post(`/v1/payments/${paid.body.id as string}`, { entityId: t.entityId, paymentType: 'CP', amount: '92.00', currency: 'EUR' });
    const read = await t.get(`/v1/payments/${paid.body.id as string}`, { entityId: t.entityId });
    expect([paid.status, captured.status, read.status]).toEqual([200, 200, 200]);
    const lines = linesOf(from);
    expect(lines.map((line) => [line.method, line.status, line.entityId, line.id, line.resultCode])).toEqual([
      ['POST', 200, t.entityId, paid.body.id, '000.100.110'],
      ['POST', 200, t.entityId, captured.body.id, '000.100.110'],
      ['GET', 200, t.entityId, paid.body.id, '000.100.110'],
    ]);
    for (const line of lines) expect(line.requestId).toMatch(/^[0-9a-f]{32}$/);
    // The card is in no line, nor its CVV.
    expect(t.logLines.slice(from).join('\n')).not.toContain('4200000000000000');
  });

  it('names the result code of a refusal, and no id where the answer names none', async () => {
    const from = t.logLines.length;
    const refused = await t.post('/v1/payments', cardPayment(t.entityId, { amount: 'lots' }));
    expect(refused.status).toBe(400);
    const [line] = linesOf(from);
    expect(line).toMatchObject({ status: 400, entityId: t.entityId, resultCode: refused.body.result.code });
    expect(line?.id).toBeUndefined();
  });
});
