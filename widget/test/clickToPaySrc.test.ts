import { describe, expect, it } from 'vitest';
import { networkSrc, SrcUnavailable, type NetworkSrcSdk } from '../app/clickToPay/src.ts';

/**
 * Click to Pay in live (issue 35 point 6): the networks' SRC systems through their SDKs in the page (EMVCo's SRC
 * JavaScript API). They cannot run here, so a stand-in SDK plays one — the only mock, for the network — and the test
 * holds the widget's side to the API: the e-mail looked up network by network, the code validated, the masked cards
 * listed, the chosen card's encrypted payload handed to the gateway, the SDKs' error reasons told apart.
 */

interface Calls {
  readonly made: string[];
}

/** A network's SDK that knows `email`, validates `code`, and holds two masked cards. */
function standIn(network: string, email: string, code = '654321', calls: Calls = { made: [] }): NetworkSrcSdk {
  let failures = 0;
  return {
    init: async () => {
      calls.made.push(`${network}.init`);
      return {};
    },
    identityLookup: async ({ consumerIdentity }) => {
      calls.made.push(`${network}.identityLookup ${consumerIdentity.identityType}`);
      return { consumerPresent: consumerIdentity.identityValue === email };
    },
    initiateIdentityValidation: async () => {
      calls.made.push(`${network}.initiateIdentityValidation`);
      return { maskedValidationChannel: 'j***@example.com' };
    },
    completeIdentityValidation: async ({ validationData }) => {
      calls.made.push(`${network}.completeIdentityValidation`);
      if (validationData === code) return { idToken: 'id-token' };
      failures += 1;
      throw { reason: failures >= 3 ? 'RETRIES_EXCEEDED' : 'CODE_INVALID' };
    },
    getSrcProfile: async ({ idTokens }) => {
      calls.made.push(`${network}.getSrcProfile ${idTokens.join()}`);
      return {
        profiles: [
          {
            maskedCards: [
              { srcDigitalCardId: 'card-1', panLastFour: '1111', panExpirationMonth: '12', panExpirationYear: '2034', paymentCardDescriptor: network, digitalCardData: { descriptorName: 'Everyday card' } },
            ],
          },
        ],
      };
    },
    checkout: async ({ srcDigitalCardId, idToken }) => {
      calls.made.push(`${network}.checkout ${srcDigitalCardId} ${idToken}`);
      return { checkoutResponse: 'eyJhbGciOi.encrypted.payload', dcfActionCode: 'COMPLETE' };
    },
  };
}

describe("Click to Pay's live SRC client over the networks' SDKs", () => {
  it('looks the e-mail up network by network, validates the code with the network that knows it, lists its masked cards and hands its payload to the gateway', async () => {
    const calls: Calls = { made: [] };
    const delivered: string[] = [];
    const src = networkSrc(
      [
        { network: 'mastercard', sdk: standIn('mastercard', 'other@example.com', '654321', calls) },
        { network: 'visa', sdk: standIn('visa', 'jane@example.com', '654321', calls) },
      ],
      async (network, payload) => {
        delivered.push(`${network} ${payload}`);
        return '0123456789abcdef0123456789abcdef';
      },
    );
    expect(await src.lookUp('jane@example.com')).toEqual({ status: 'OTP_SENT', channel: { type: 'EMAIL', masked: 'j***@example.com' } });
    expect(await src.validate('654321')).toEqual({
      status: 'VALIDATED',
      cards: [{ id: 'card-1', brand: 'VISA', descriptor: 'Everyday card', last4: '1111', expiryMonth: '12', expiryYear: '2034' }],
    });
    expect(await src.checkout('card-1')).toBe('0123456789abcdef0123456789abcdef');
    expect(delivered).toEqual(['visa eyJhbGciOi.encrypted.payload']);
    expect(calls.made).toEqual([
      'mastercard.identityLookup EMAIL_ADDRESS',
      'visa.identityLookup EMAIL_ADDRESS',
      'visa.initiateIdentityValidation',
      'visa.completeIdentityValidation',
      'visa.getSrcProfile id-token',
      'visa.checkout card-1 id-token',
    ]);
  });

  it('answers NOT_ENROLLED when no network knows the e-mail, and tells a wrong code from the lock', async () => {
    const src = networkSrc([{ network: 'mastercard', sdk: standIn('mastercard', 'jane@example.com') }], async () => 'x');
    expect(await src.lookUp('nobody@example.com')).toEqual({ status: 'NOT_ENROLLED' });
    await src.lookUp('jane@example.com');
    expect(await src.validate('000000')).toEqual({ status: 'OTP_INVALID' });
    expect(await src.validate('000001')).toEqual({ status: 'OTP_INVALID' });
    expect(await src.validate('000002')).toEqual({ status: 'LOCKED' });
  });

  it('reports a profile without a channel as OTP_CHANNEL_INVALID, and an SDK that fails otherwise as unavailable', async () => {
    const noChannel: NetworkSrcSdk = { ...standIn('visa', 'jane@example.com'), initiateIdentityValidation: async () => Promise.reject({ reason: 'OTP_SEND_FAILED' }) };
    expect(await networkSrc([{ network: 'visa', sdk: noChannel }], async () => 'x').lookUp('jane@example.com')).toEqual({ status: 'OTP_CHANNEL_INVALID' });
    const broken: NetworkSrcSdk = { ...standIn('visa', 'jane@example.com'), identityLookup: async () => Promise.reject({ reason: 'SERVICE_ERROR' }) };
    await expect(networkSrc([{ network: 'visa', sdk: broken }], async () => 'x').lookUp('jane@example.com')).rejects.toBeInstanceOf(SrcUnavailable);
    const cancelled: NetworkSrcSdk = { ...standIn('visa', 'jane@example.com', '654321'), checkout: async () => ({ dcfActionCode: 'CANCEL' }) };
    const src = networkSrc([{ network: 'visa', sdk: cancelled }], async () => 'x');
    await src.lookUp('jane@example.com');
    await src.validate('654321');
    await expect(src.checkout('card-1')).rejects.toThrow(/CANCEL/);
  });
});
