import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';

warnIfPostgresSkipped('registrations/bankAccounts.test.ts');

/**
 * Registrations of SEPA bank accounts (COMPAT §16): stored on their own or by an approved direct debit with
 * createRegistration=true, paid with by id under the mandate they were registered with, shown masked, sealed at rest
 * and erased on delete — like stored cards, but never offered where a card is expected.
 */

const IBAN = 'DE23100000001234567890';
const IBAN_MASKED = 'DE2310************7890';

describe.each(STORE_KINDS)('bank account registrations on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const account = { paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': IBAN };
  const register = (params: Record<string, string> = {}) => t.post('/v1/registrations', { entityId: t.entityId, ...account, ...params });
  const debit = (params: Record<string, string>) => t.post('/v1/payments', { entityId: t.entityId, amount: '12.50', currency: 'EUR', paymentType: 'DB', ...params });
  const nothingInClear = async () => {
    const rows = await t.gateway.store.query('SELECT to_jsonb(r) AS row FROM registrations r');
    const vault = await t.gateway.store.query('SELECT to_jsonb(v) AS row FROM vault_items v');
    expect(JSON.stringify([rows.rows, vault.rows])).not.toContain(IBAN.slice(4));
    expect(t.logLines.join('\n')).not.toContain(IBAN.slice(4));
  };

  it('registers an account with a mandate, shows it masked, and debits it by id under that mandate', async () => {
    const registered = await register({ 'bankAccount.mandate.id': 'MANDATE-JONES', 'bankAccount.mandate.dateOfSignature': '2025-06-01' });
    expect(registered.status).toBe(200);
    expect(registered.body).toMatchObject({
      result: { code: '000.100.110' },
      paymentBrand: 'DIRECTDEBIT_SEPA',
      bankAccount: { holder: 'Jane Jones', iban: IBAN_MASKED, country: 'DE', mandate: { id: 'MANDATE-JONES', dateOfSignature: '2025-06-01' } },
    });
    expect(registered.body.card).toBeUndefined();
    const read = await t.get(`/v1/registrations/${registered.body.id}`, { entityId: t.entityId });
    expect(read.body.bankAccount).toEqual(registered.body.bankAccount);

    const paid = await debit({ registrationId: registered.body.id });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ paymentBrand: 'DIRECTDEBIT_SEPA', registrationId: registered.body.id, bankAccount: { iban: IBAN_MASKED, mandate: { id: 'MANDATE-JONES', dateOfSignature: '2025-06-01' } } });
    const byPath = await t.post(`/v1/registrations/${registered.body.id}/payments`, { entityId: t.entityId, amount: '3.00', currency: 'EUR', paymentType: 'DB' });
    expect(byPath.body).toMatchObject({ result: { code: '000.100.110' }, registrationId: registered.body.id, bankAccount: { mandate: { id: 'MANDATE-JONES' } } });
    expect((await t.post(`/v1/payments/${paid.body.id}`, { entityId: t.entityId, paymentType: 'RF', amount: '12.50', currency: 'EUR' })).status).toBe(200);
    await nothingInClear();
  });

  it('registers the account of an approved direct debit with createRegistration=true, with the mandate the debit made', async () => {
    const first = await debit({ ...account, createRegistration: 'true' });
    expect(first.status).toBe(200);
    expect(first.body.registrationId).toMatch(/^[0-9a-f]{32}$/);
    const registration = await t.get(`/v1/registrations/${first.body.registrationId}`, { entityId: t.entityId });
    expect(registration.body).toMatchObject({ paymentBrand: 'DIRECTDEBIT_SEPA', bankAccount: { iban: IBAN_MASKED, mandate: first.body.bankAccount.mandate } });
    const again = await debit({ registrationId: first.body.registrationId });
    expect(again.body.bankAccount.mandate).toEqual(first.body.bankAccount.mandate);
    // A declined debit registers nothing.
    const declined = await debit({ ...account, 'bankAccount.holder': '800.100.203', createRegistration: 'true' });
    expect(declined.status).toBe(400);
    expect(declined.body.registrationId).toBeUndefined();
  });

  it('refuses a bad account, card fields beside it, a card update, and offering it as a stored card; erases it on delete', async () => {
    const before = (await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM registrations')).rows[0]?.n;
    const checksum = await register({ 'bankAccount.iban': 'DE23100000001234567891' });
    expect(checksum).toMatchObject({ status: 400, body: { result: { code: '100.100.101', parameterErrors: [{ name: 'bankAccount.iban' }] } } });
    const mixed = await register({ 'card.number': '4200000000000000', 'card.expiryMonth': '05', 'card.expiryYear': '2034' });
    expect(mixed.body.result.code).toBe('200.300.404');
    expect(mixed.body.result.parameterErrors.map((error: { name: string }) => error.name)).toContain('card.number');
    const future = await register({ 'bankAccount.mandate.dateOfSignature': '2999-01-01' });
    expect(future.body.result.parameterErrors[0].name).toBe('bankAccount.mandate.dateOfSignature');
    expect((await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM registrations')).rows[0]?.n).toBe(before);

    const registered = await register();
    const update = await t.post(`/v1/registrations/${registered.body.id}`, { entityId: t.entityId, 'card.holder': 'Jane Doe' });
    expect(update.body.result.code).toBe('200.300.404');
    const checkout = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '10.00', currency: 'EUR', paymentType: 'DB', 'registrations[0].id': registered.body.id });
    expect(checkout.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'registrations[0].id' })]);

    const deleted = await t.delete(`/v1/registrations/${registered.body.id}`, { entityId: t.entityId });
    expect(deleted.status).toBe(200);
    const sealed = await t.gateway.store.query('SELECT sealed_card_id FROM registrations WHERE id = $1', [registered.body.id]);
    expect(sealed.rows).toEqual([{ sealed_card_id: null }]);
    expect((await debit({ registrationId: registered.body.id })).body.result.code).toBe('100.150.202');
  });
});
