import { describe, expect, it } from 'vitest';
import { checkBackOffice, NO_CHILDREN, type ChildTotals, type ReferencedPayment } from './backOffice.ts';
import { cvvLengthOf, detectBrand, isExpired, passesLuhn } from './cards.ts';
import { formatAmount, parseAmount } from './money.ts';
import { statusOfResult } from './paymentState.ts';
import { describeResultCode, isPendingCode, isSuccessfulCode } from './resultCodes.ts';

describe('money', () => {
  it.each([
    ['92.00', 9200],
    ['92', 9200],
    ['0.01', 1],
    ['0.00', 0],
    ['9999999999.99', 999_999_999_999],
  ])('parses %s as %d minor units and formats it back', (wire, minor) => {
    expect(parseAmount(wire)).toBe(minor);
    expect(parseAmount(formatAmount(minor))).toBe(minor);
  });
  it.each(['1.5', '1.555', '-1.00', '+1.00', '1e3', '1,00', '', ' 1.00', '12345678901.00', '0x10'])('rejects %j', (wire) => {
    expect(parseAmount(wire)).toBeUndefined();
  });
  it('formats minor units with two decimals', () => {
    expect(formatAmount(5)).toBe('0.05');
    expect(formatAmount(1050)).toBe('10.50');
  });
});

describe('cards', () => {
  it.each([
    ['4200000000000000', 'VISA', 3],
    ['5454545454545454', 'MASTER', 3],
    ['377777777777770', 'AMEX', 4],
    ['2223000048400011', 'MASTER', 3],
    ['6011000990139424', 'DISCOVER', 3],
    ['3530111333300000', 'JCB', 3],
  ])('detects %s as %s with a %d-digit CVV', (number, brand, cvv) => {
    expect(passesLuhn(number)).toBe(true);
    expect(detectBrand(number)).toBe(brand);
    expect(cvvLengthOf(brand)).toBe(cvv);
  });
  it('rejects numbers failing Luhn and unknown ranges', () => {
    expect(passesLuhn('4200000000000001')).toBe(false);
    expect(passesLuhn('42000000000000a0')).toBe(false);
    expect(detectBrand('9999999999999995')).toBeUndefined();
    expect(detectBrand('42000000000000')).toBeUndefined();
  });
  it('treats a card as valid through the last day of its expiry month', () => {
    expect(isExpired(11, 2026, new Date('2026-11-30T23:59:59Z'))).toBe(false);
    expect(isExpired(11, 2026, new Date('2026-12-01T00:00:00Z'))).toBe(true);
    expect(isExpired(12, 2026, new Date('2026-12-31T12:00:00Z'))).toBe(false);
    expect(isExpired(12, 2026, new Date('2027-01-01T00:00:00Z'))).toBe(true);
  });
});

describe('result codes', () => {
  it('classifies codes with the published patterns', () => {
    for (const code of ['000.000.000', '000.100.110', '000.100.112', '000.400.110', '000.400.000']) expect(isSuccessfulCode(code)).toBe(true);
    for (const code of ['000.200.000', '100.100.101', '800.100.203', '700.400.200', '000.400.109']) {
      expect(isSuccessfulCode(code)).toBe(false);
    }
    expect(isPendingCode('000.200.000')).toBe(true);
    expect(isPendingCode('000.100.110')).toBe(false);
  });
  it('puts a payment in the state its result says: a long pending one (a provider waiting for the money) is pending', () => {
    expect(['000.100.110', '000.400.000', '000.100.210'].map(statusOfResult)).toEqual(['approved', 'approved', 'approved']);
    expect(['000.200.000', '800.400.500', '100.400.500'].map(statusOfResult)).toEqual(['pending', 'pending', 'pending']);
    expect(['800.100.203', '900.100.100', '800.400.100'].map(statusOfResult)).toEqual(['declined', 'declined', 'declined']);
  });
  it('describes known and unknown codes', () => {
    expect(describeResultCode('800.100.203')).toBe('insufficient funds');
    expect(describeResultCode('800.100.999')).toBe('transaction declined');
  });
});

describe('back-office rules', () => {
  const payment = (paymentType: string, amountMinor = 10_000, overrides: Partial<ReferencedPayment> = {}): ReferencedPayment => ({
    paymentType,
    amountMinor,
    status: 'approved',
    maxCaptures: null,
    parentId: null,
    requestEcho: {},
    ...overrides,
  });
  const totals = (overrides: Partial<ChildTotals>): ChildTotals => ({ ...NO_CHILDREN, ...overrides });

  it.each([
    ['CP', 'DB'],
    ['CP', 'CD'],
    ['CP', 'CP'],
    ['RF', 'PA'],
    ['RF', 'RF'],
    ['RV', 'CP'],
    ['RV', 'RF'],
  ] as const)('%s cannot reference a %s (700.300.100)', (type, parentType) => {
    expect(checkBackOffice(type, 100, payment(parentType), NO_CHILDREN)?.result.code).toBe('700.300.100');
  });

  it.each([
    ['CP', 'PA'],
    ['RF', 'DB'],
    ['RF', 'CD'],
    ['RF', 'CP'],
    ['RV', 'PA'],
    ['RV', 'DB'],
    ['RV', 'CD'],
  ] as const)('%s may reference a %s', (type, parentType) => {
    expect(checkBackOffice(type, 10_000, payment(parentType), NO_CHILDREN)).toBeUndefined();
  });

  it('caps captures at the authorized amount, the number of captures and a final capture', () => {
    const auth = payment('PA', 10_000, { maxCaptures: 2 });
    expect(checkBackOffice('CP', 4_000, auth, totals({ capturedMinor: 6_000, captureCount: 1 }))).toBeUndefined();
    expect(checkBackOffice('CP', 4_001, auth, totals({ capturedMinor: 6_000, captureCount: 1 }))?.result.code).toBe('700.400.100');
    expect(checkBackOffice('CP', 1, auth, totals({ capturedMinor: 2, captureCount: 2 }))?.result.code).toBe('700.400.100');
    expect(checkBackOffice('CP', 1, auth, totals({ capturedMinor: 2, captureCount: 1, finalCaptureDone: true }))?.result.code).toBe(
      '700.400.100',
    );
  });

  it('caps refunds at the paid amount and stops after a final refund', () => {
    const debit = payment('DB', 5_000);
    expect(checkBackOffice('RF', 5_000, debit, NO_CHILDREN)).toBeUndefined();
    expect(checkBackOffice('RF', 1, debit, totals({ refundedMinor: 5_000 }))?.result.code).toBe('700.400.200');
    expect(checkBackOffice('RF', 1, debit, totals({ refundedMinor: 1, finalRefundDone: true }))?.result.code).toBe('700.400.200');
  });

  it('allows nothing after a reversal, and nothing on a declined payment', () => {
    const reversed = totals({ reversed: true });
    expect(checkBackOffice('CP', 1, payment('PA'), reversed)?.result.code).toBe('700.400.100');
    expect(checkBackOffice('RF', 1, payment('DB'), reversed)?.result.code).toBe('700.400.200');
    expect(checkBackOffice('RV', 10_000, payment('DB'), reversed)?.result.code).toBe('700.400.300');
    expect(checkBackOffice('CP', 1, payment('PA', 100, { status: 'declined' }), NO_CHILDREN)?.result.code).toBe('700.400.100');
  });
});
