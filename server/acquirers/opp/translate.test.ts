import { describe, expect, it } from 'vitest';
import { forwardedParameters, requestEcho } from '../../params/echo.ts';
import { notificationRequest } from '../../webhooks/crypto.ts';
import type { AuthorizationRequest } from '../types.ts';
import { readNotification } from './notifications.ts';
import { readAggregations, readRecordPage } from './settlements.ts';
import { authorizationForm, backOfficeForm, readPaymentAnswer, readQueryAnswer } from './translate.ts';

/** The `opp` connector's translators, without a network: what the provider is sent, and how its answers are read. */

const CREDENTIALS = { entityId: '8a8294174b7ecb28014b9699220015ca', accessToken: 'OGE4Mjk0MTc0YjdlY2IyODAxNGI5Njk5MjIwMDE1Y2N8c3k2S0pzVDg=' };
const ATTEMPT = '0123456789abcdef0123456789abcdef';

const cardRequest = (overrides: Partial<AuthorizationRequest> = {}): AuthorizationRequest => ({
  attemptId: ATTEMPT,
  entityId: 'ffffffffffffffffffffffffffffffff',
  paymentId: 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
  paymentType: 'DB',
  amountMinor: 9200,
  currency: 'EUR',
  card: { number: '4200000000000000', expiryMonth: 5, expiryYear: 2034, cvv: '123', holder: 'Jane Jones', brand: 'VISA' },
  testMode: undefined,
  threeDSecure: undefined,
  cardOnFile: undefined,
  referencedReference: null,
  ...overrides,
});

const form = (fields: [string, string][]) => Object.fromEntries(fields);

describe('what the provider is sent', () => {
  it('a card payment: the card from the vault, our attempt as its merchantTransactionId, the merchant’s data as sent', () => {
    const forwarded = forwardedParameters(requestEcho(new Map([
      ['customer.email', 'jane@example.com'],
      ['customParameters[SHOP_ref]', 'r-1'],
      ['cart.items[0].name', 'Book'],
      ['merchantTransactionId', 'order-1'],
      ['shopperResultUrl', 'https://shop.example/back'],
      ['descriptor', 'Shop 1'],
    ])));
    const sent = form(authorizationForm(cardRequest({ forwarded, shopper: { returnUrl: 'https://pay.example/v1/acquirers/hyperpay/returns/x', browser: { 'customer.browser.language': 'de' } } }), CREDENTIALS));
    expect(sent).toEqual({
      entityId: CREDENTIALS.entityId,
      amount: '92.00',
      currency: 'EUR',
      paymentType: 'DB',
      merchantTransactionId: ATTEMPT,
      paymentBrand: 'VISA',
      'card.number': '4200000000000000',
      'card.expiryMonth': '05',
      'card.expiryYear': '2034',
      'card.holder': 'Jane Jones',
      'card.cvv': '123',
      'customer.email': 'jane@example.com',
      'customParameters[SHOP_ref]': 'r-1',
      'cart.items[0].name': 'Book',
      descriptor: 'Shop 1',
      shopperResultUrl: 'https://pay.example/v1/acquirers/hyperpay/returns/x',
      'customer.browser.language': 'de',
    });
  });

  it('the standing instruction as the merchant sent it, with what the gateway resolved in place of its source, mode and scheme reference', () => {
    const forwarded = forwardedParameters(requestEcho(new Map([
      ['standingInstruction.type', 'RECURRING'],
      ['standingInstruction.mode', 'REPEATED'],
      ['standingInstruction.source', 'MIT'],
      ['standingInstruction.recurringType', 'SUBSCRIPTION'],
    ])));
    const mit = form(authorizationForm(cardRequest({ forwarded, cardOnFile: { source: 'MIT', mode: 'REPEATED', initialTransactionId: '123456789012345' } }), CREDENTIALS));
    expect(mit).toMatchObject({
      'standingInstruction.type': 'RECURRING',
      'standingInstruction.recurringType': 'SUBSCRIPTION',
      'standingInstruction.source': 'MIT',
      'standingInstruction.mode': 'REPEATED',
      'standingInstruction.initialTransactionId': '123456789012345',
    });
    // A card stored without an agreement starts an unscheduled one, so the provider gives its scheme reference.
    expect(form(authorizationForm(cardRequest({ storesCard: true }), CREDENTIALS))).toMatchObject({
      'standingInstruction.type': 'UNSCHEDULED',
      'standingInstruction.source': 'CIT',
      'standingInstruction.mode': 'INITIAL',
    });
    expect(Object.keys(form(authorizationForm(cardRequest(), CREDENTIALS))).some((name) => name.startsWith('standingInstruction.'))).toBe(false);
  });

  it('other instruments by their own fields, and a back-office operation on the provider’s payment', () => {
    const wallet = form(authorizationForm(cardRequest({ card: undefined, walletToken: { brand: 'APPLEPAY', parameter: 'applePay.paymentToken', token: '{"data":"x"}' } }), CREDENTIALS));
    expect(wallet).toMatchObject({ paymentBrand: 'APPLEPAY', 'applePay.paymentToken': '{"data":"x"}' });
    expect(wallet['card.number']).toBeUndefined();
    const transfer = form(authorizationForm(cardRequest({ card: undefined, asynchronous: { brand: 'SOFORTUEBERWEISUNG', account: { 'bankAccount.country': 'DE' } } }), CREDENTIALS));
    expect(transfer).toMatchObject({ paymentBrand: 'SOFORTUEBERWEISUNG', 'bankAccount.country': 'DE' });
    const capture = form(backOfficeForm({ attemptId: ATTEMPT, entityId: 'f'.repeat(32), paymentId: 'e'.repeat(32), paymentType: 'CP', amountMinor: 1050, currency: 'EUR', referencedReference: 'p1', testMode: 'INTERNAL' }, CREDENTIALS));
    expect(capture).toEqual({ entityId: CREDENTIALS.entityId, paymentType: 'CP', amount: '10.50', currency: 'EUR', merchantTransactionId: ATTEMPT, testMode: 'INTERNAL' });
  });
});

describe('how the provider’s answers are read', () => {
  const answer = (result: Record<string, unknown>, more: Record<string, unknown> = {}) => JSON.stringify({ id: '8ac7a4a27b4c7867017b510d33dd7188', result, ...more });

  it('a decision: approved, declined, or pending with its redirect and method', () => {
    expect(readPaymentAnswer(200, answer({ code: '000.000.000', description: 'ok' }, { resultDetails: { ConnectorTxID1: 'X', n: 1 } }))).toEqual({
      kind: 'answer',
      answer: { code: '000.000.000', description: 'ok', details: { ConnectorTxID1: 'X' }, reference: '8ac7a4a27b4c7867017b510d33dd7188' },
    });
    expect(readPaymentAnswer(400, answer({ code: '800.100.203', description: 'insufficient funds' }))).toMatchObject({ kind: 'answer', answer: { code: '800.100.203' } });
    const pending = readPaymentAnswer(200, answer({ code: '000.200.000' }, { redirect: { url: 'https://acs.example/c', method: 'get', parameters: [{ name: 'a', value: 'b' }, { name: 1 }] } }));
    expect(pending).toMatchObject({ kind: 'answer', answer: { redirect: { url: 'https://acs.example/c', method: 'GET', parameters: [{ name: 'a', value: 'b' }] } } });
    // A redirect to anything but http(s) is not followed.
    const script = readPaymentAnswer(200, answer({ code: '000.200.000' }, { redirect: { url: 'javascript:alert(1)', parameters: [] } }));
    expect(script.kind === 'answer' && 'redirect' in script.answer).toBe(false);
  });

  it('a refusal of the request as it stood, with its parameter errors; the provider refusing the credentials', () => {
    const refused = readPaymentAnswer(400, JSON.stringify({ result: { code: '200.300.404', description: 'invalid', parameterErrors: [{ name: 'customer.browser.userAgent', value: '', message: 'is required' }] } }));
    expect(refused).toEqual({
      kind: 'refused',
      result: { code: '200.300.404', description: 'invalid' },
      parameterErrors: [{ name: 'customer.browser.userAgent', value: '', message: 'is required' }],
      credentials: false,
    });
    expect(readPaymentAnswer(403, JSON.stringify({ result: { code: '800.900.300', description: 'invalid authentication information' } }))).toMatchObject({ kind: 'refused', credentials: true });
    expect(readPaymentAnswer(400, JSON.stringify({ result: { code: '800.120.100', description: 'Rejected by Throttling.' } }))).toMatchObject({ kind: 'refused', credentials: false });
    // An operation on a payment the provider does not have: nothing made.
    expect(readPaymentAnswer(400, JSON.stringify({ result: { code: '700.400.510', description: 'capture needs a PA' } }))).toMatchObject({ kind: 'refused' });
  });

  it('what cannot be read: a 5xx, not JSON, no result code, a success without the payment’s id', () => {
    expect(readPaymentAnswer(502, 'Bad Gateway')).toMatchObject({ kind: 'unreadable' });
    expect(readPaymentAnswer(500, answer({ code: '000.000.000' }))).toMatchObject({ kind: 'unreadable' });
    expect(readPaymentAnswer(200, '<html>')).toMatchObject({ kind: 'unreadable' });
    expect(readPaymentAnswer(200, JSON.stringify({ id: 'x' }))).toMatchObject({ kind: 'unreadable' });
    expect(readPaymentAnswer(200, JSON.stringify({ result: { code: '000.000.000' } }))).toMatchObject({ kind: 'unreadable' });
  });

  it('an inquiry: the attempt’s transaction of its type, the last listed; "cannot find" as not found; a throttled one as unreadable', () => {
    const listed = JSON.stringify({
      result: { code: '000.000.100' },
      payments: [
        { id: 'a', paymentType: 'DB', result: { code: '800.100.152' } },
        { id: 'b', paymentType: 'DB', result: { code: '000.100.110' } },
        { id: 'c', paymentType: 'RF', result: { code: '000.100.110' } },
      ],
    });
    expect(readQueryAnswer(200, listed, 'DB')).toMatchObject({ kind: 'answer', answer: { reference: 'b', code: '000.100.110' } });
    expect(readQueryAnswer(400, JSON.stringify({ result: { code: '700.400.580', description: 'cannot find transaction' } }), 'DB')).toEqual({ kind: 'notFound' });
    expect(readQueryAnswer(400, JSON.stringify({ result: { code: '800.120.100', description: 'Rejected by Throttling.' } }), 'DB')).toMatchObject({ kind: 'unreadable' });
    expect(readPaymentAnswer(404, JSON.stringify({ result: { code: '700.400.580' } }), true)).toEqual({ kind: 'notFound' });
  });
});

describe('the provider’s notifications', () => {
  const KEY = 'A1B2'.repeat(16);
  const headerOf = (headers: Record<string, string>) => (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];

  it('are read only when they decrypt with the acquirer’s key, in either wrapper', () => {
    const payload = { id: 'p1', paymentType: 'CB', amount: '30.00', currency: 'EUR', referencedId: 'p0', merchantTransactionId: ATTEMPT, result: { code: '000.100.210', description: 'Fraudulent Transaction' } };
    for (const wrapper of ['NONE', 'JSON'] as const) {
      const sent = notificationRequest(JSON.stringify({ type: 'PAYMENT', action: 'CREATED', payload }), KEY, wrapper);
      expect(readNotification(sent.body, headerOf(sent.headers), KEY)).toEqual({
        kind: 'payment',
        merchantTransactionId: ATTEMPT,
        paymentType: 'CB',
        referencedReference: 'p0',
        amountMinor: 3000,
        currency: 'EUR',
        answer: { code: '000.100.210', description: 'Fraudulent Transaction', details: {}, reference: 'p1' },
      });
      expect(readNotification(sent.body, headerOf(sent.headers), 'FFFF'.repeat(16))).toBeUndefined();
    }
    const test = notificationRequest(JSON.stringify({ type: 'test', action: 'webhook activation', payload: {} }), KEY, 'NONE');
    expect(readNotification(test.body, headerOf(test.headers), KEY)).toEqual({ kind: 'test' });
    expect(readNotification('not hex', headerOf(test.headers), KEY)).toBeUndefined();
    expect(readNotification(test.body, () => undefined, KEY)).toBeUndefined();
  });
});

describe('the provider’s settlement reports', () => {
  it('reads the summary and a page of records by their API fields, and refuses what is not the API’s whole', () => {
    expect(readAggregations(JSON.stringify({ aggregations: [{ id: 'b1', currency: 'EUR', clearingInstituteName: 'Bank X' }] }))).toEqual([{ id: 'b1', clearingInstitute: 'Bank X', currency: 'EUR' }]);
    expect(readAggregations(JSON.stringify({ aggregations: [{ id: 1 }] }))).toBeUndefined();
    const record = {
      recordType: 'SETTLED',
      transactionType: 'DEBIT',
      settlement: { cashflow: 'POS', amount: '50.00', currency: 'EUR', fee: '0.95', fxRate: '1', date: '2026-12-07', status: 'SUCCESS', format: 'SIMULATOR' },
      clearingInstitute: { merchantId: 'SIM-1', txId1: 'T1' },
      payment: { id: 'p1' },
      merchantTransactionId: ATTEMPT,
      amount: '50.00',
      currency: 'EUR',
      paymentBrand: 'VISA',
      presentmentDate: '2026-12-07 10:00:00.000+0000',
      card: { last4Digits: '0000' },
    };
    const page = readRecordPage(JSON.stringify({ records: [record], pages: 2 }));
    expect(page?.pages).toBe(2);
    expect(page?.records[0]).toMatchObject({
      providerPaymentId: 'p1',
      merchantTransactionId: ATTEMPT,
      amountMinor: 5000,
      settlementFeeMinor: 95,
      connectorTxIds: ['T1', null, null],
      presentmentAt: new Date('2026-12-07T10:00:00.000Z'),
      accountLast4: '0000',
    });
    expect(readRecordPage(JSON.stringify({ records: [{ ...record, settlement: { ...record.settlement, cashflow: 'UP' } }] }))).toBeUndefined();
  });
});
