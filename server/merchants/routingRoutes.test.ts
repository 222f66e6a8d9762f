import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSettings } from '../acquirerConfig.ts';
import { cardPayment, readResponse, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type ApiResponse, type TestGateway } from '../testing/harness.ts';

/**
 * The admin API of an entity's routing rules (routingRoutes.ts) on each store: rules set, shown and removed, the
 * entity's next payments going where they say at once (this instance's cache forgets); refusals naming each rule's
 * field, nothing written; unknown entities.
 */

warnIfPostgresSkipped('the routing rules admin API test');

const ADMIN_TOKEN = 'admin-token-of-the-routing-rules-test-0123456789';
const HYPERPAY: ConnectorSettings = { kind: 'opp', url: 'http://127.0.0.1:9', timeoutMs: 1000, neverReceivedAfterMs: 2000, notificationKey: undefined, maxConnections: 1 };
const MASTER = { paymentBrand: 'MASTER', 'card.number': '5454545454545454' };

describe.each(STORE_KINDS)('the admin API of routing rules on %s', (kind) => {
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, acquirers: ['simulator', 'fallback', 'hyperpay'], defaultAcquirer: 'simulator', connectors: { hyperpay: HYPERPAY } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const admin = async (method: string, path: string, body?: unknown): Promise<ApiResponse> =>
    readResponse(
      await t.gateway.app.request(`/admin/v1/entities${path}`, {
        method,
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  /** The acquirer that took a new payment of the entity. */
  async function acquirerOf(merchant: { entityId: string; token: string }, overrides: Record<string, string> = {}): Promise<string> {
    const paid = await t.post('/v1/payments', cardPayment(merchant.entityId, overrides), { token: merchant.token });
    expect(paid.body.result.code, JSON.stringify(paid.body.result)).toMatch(/^000\.100\.1/);
    const found = await t.gateway.store.query<{ acquirer: string }>('SELECT acquirer FROM payments WHERE id = $1', [paid.body.id]);
    return found.rows[0]?.acquirer as string;
  }

  it('sets the rules, which the next payments follow, shows them, and removes them', async () => {
    const merchant = await t.newMerchant();
    const { entityId } = merchant;
    const none = await admin('GET', `/${entityId}/routing`);
    expect(none.status).toBe(200);
    expect(none.body.routing).toEqual({ entityId, rules: [], defaultAcquirer: 'simulator', acquirers: ['simulator', 'fallback', 'hyperpay'], connectors: ['hyperpay'], updatedAt: null });
    // Read (and remembered) by a payment before the rules come: they must apply at once all the same.
    expect(await acquirerOf(merchant, MASTER)).toBe('simulator');

    const rules = [
      { acquirer: 'fallback', brands: ['MASTER'], minAmount: '1.00', maxAmount: '100.00' },
      { acquirer: 'fallback', currencies: ['USD'] },
    ];
    const saved = await admin('PUT', `/${entityId}/routing`, { rules });
    expect(saved.status).toBe(200);
    expect(saved.body.routing).toMatchObject({ entityId, rules, defaultAcquirer: 'simulator', updatedAt: expect.any(String) });
    expect((await admin('GET', `/${entityId}/routing`)).body.routing).toEqual(saved.body.routing);
    expect(await acquirerOf(merchant, MASTER)).toBe('fallback');
    expect(await acquirerOf(merchant, { ...MASTER, amount: '100.01' })).toBe('simulator');
    expect(await acquirerOf(merchant)).toBe('simulator');
    expect(await acquirerOf(merchant, { currency: 'USD' })).toBe('fallback');

    const removed = await admin('DELETE', `/${entityId}/routing`);
    expect(removed.status).toBe(200);
    expect(removed.body.routing).toMatchObject({ rules: [], updatedAt: null });
    expect(await acquirerOf(merchant, MASTER)).toBe('simulator');
    expect((await admin('DELETE', `/${entityId}/routing`)).status).toBe(200);
  });

  it('refuses rules naming the place of each problem, and writes nothing', async () => {
    const { entityId } = await t.newMerchant();
    const kept = [{ acquirer: 'fallback', brands: ['VISA'] }];
    expect((await admin('PUT', `/${entityId}/routing`, { rules: kept })).status).toBe(200);
    const namesOf = (answer: ApiResponse) => (answer.body.result.parameterErrors as { name: string }[]).map((error) => error.name);

    const refused = await admin('PUT', `/${entityId}/routing`, {
      rules: [{ acquirer: 'nope' }, { acquirer: 'fallback', minAmount: '5.00', maxAmount: '1.00' }, { acquirer: 'fallback', colour: 'red', currencies: ['euro'] }, 'every payment'],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.result.code).toBe('200.300.404');
    expect(namesOf(refused)).toEqual(['rules[0].acquirer', 'rules[1].maxAmount', 'rules[2].colour', 'rules[2].currencies', 'rules[3]']);
    expect(refused.body.result.parameterErrors[0]).toMatchObject({ value: 'nope', message: 'must be one of ACQUIRERS (simulator, fallback, hyperpay)' });
    expect(namesOf(await admin('PUT', `/${entityId}/routing`, { rules: { acquirer: 'fallback' } }))).toEqual(['rules']);
    expect(namesOf(await admin('PUT', `/${entityId}/routing`, {}))).toEqual(['rules']);
    expect(namesOf(await admin('PUT', `/${entityId}/routing`, { rules: kept, default: 'fallback' }))).toEqual(['default']);
    expect(namesOf(await admin('PUT', `/${entityId}/routing`, { rules: [{ acquirer: 'fallback', maxAmount: 100 }] }))).toEqual(['rules[0].maxAmount']);
    expect((await admin('GET', `/${entityId}/routing`)).body.routing.rules).toEqual(kept);
  });

  it('answers 404 for an entity that does not exist, and 405 for other methods', async () => {
    for (const entity of ['0123456789abcdef0123456789abcdef', 'not-an-entity']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const answer = await admin(method, `/${entity}/routing`, method === 'PUT' ? { rules: [] } : undefined);
        expect([answer.status, answer.body.result.description], `${method} ${entity}`).toEqual([404, `invalid or missing parameter: no entity ${entity}`]);
      }
    }
    expect((await admin('POST', `/${t.entityId}/routing`, { rules: [] })).status).toBe(405);
  });
});
