import { createDecipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encryptNotification, encryptWithIv, isWebhookSecret, newWebhookSecret, notificationRequest } from './crypto.ts';

const KEY = '000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F';

/** What the published Node receiver does with a notification. */
function decryptAsReceiver(bodyHex: string, secretHex: string, ivHex: string, tagHex: string): string {
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(secretHex, 'hex'), Buffer.from(ivHex, 'hex'));
  decipher.setAuthTag(Buffer.from(tagHex, 'hex'));
  return Buffer.concat([decipher.update(Buffer.from(bodyHex, 'hex')), decipher.final()]).toString('utf8');
}

/** The hex with its first character changed to another hex digit. */
const flipFirst = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);

describe('webhook notification encryption', () => {
  it('gives the published test vector exactly, in upper case', () => {
    expect(encryptWithIv('{"type": "PAYMENT"}', KEY, '3D575574536D450F71AC76D8')).toEqual({
      body: 'F8E2F759E528CB69375E51DB2AF9B53734E393',
      iv: '3D575574536D450F71AC76D8',
      tag: '19FDD068C6F383C173D3A906F7BD1D83',
    });
    // The key and IV are hex whatever their case.
    expect(encryptWithIv('{"type": "PAYMENT"}', KEY.toLowerCase(), '3d575574536d450f71ac76d8').body).toBe('F8E2F759E528CB69375E51DB2AF9B53734E393');
  });

  it('uses a fresh 12-byte IV on every call, so the same notification never encrypts the same way twice', () => {
    const first = encryptNotification('{"type":"PAYMENT"}', KEY);
    const second = encryptNotification('{"type":"PAYMENT"}', KEY);
    expect(first.iv).toMatch(/^[0-9A-F]{24}$/);
    expect(first.tag).toMatch(/^[0-9A-F]{32}$/);
    expect(first.body).toMatch(/^[0-9A-F]+$/);
    expect(second.iv).not.toBe(first.iv);
    expect(second.body).not.toBe(first.body);
    expect(second.tag).not.toBe(first.tag);
    const ivs = new Set(Array.from({ length: 200 }, () => encryptNotification('x', KEY).iv));
    expect(ivs.size).toBe(200);
  });

  it('decrypts with createDecipheriv and setAuthTag as the published receiver code does (UTF-8 included)', () => {
    const secret = newWebhookSecret();
    const plaintext = JSON.stringify({ type: 'PAYMENT', payload: { customer: { surname: 'Müller-Lüdenscheidt €' }, amount: '92.00' } });
    const { body, iv, tag } = encryptNotification(plaintext, secret);
    expect(body.length).toBe(Buffer.byteLength(plaintext) * 2);
    expect(decryptAsReceiver(body, secret, iv, tag)).toBe(plaintext);
    expect(decryptAsReceiver(body.toLowerCase(), secret.toLowerCase(), iv.toLowerCase(), tag.toLowerCase())).toBe(plaintext);
  });

  it('fails to decrypt a tampered body, a tampered tag, another IV or another secret', () => {
    const { body, iv, tag } = encryptNotification('{"type":"PAYMENT","payload":{"amount":"92.00"}}', KEY);
    expect(() => decryptAsReceiver(flipFirst(body), KEY, iv, tag)).toThrow();
    expect(() => decryptAsReceiver(body, KEY, iv, flipFirst(tag))).toThrow();
    expect(() => decryptAsReceiver(body, KEY, flipFirst(iv), tag)).toThrow();
    expect(() => decryptAsReceiver(body, newWebhookSecret(), iv, tag)).toThrow();
  });

  it('wrapper NONE: text/plain, the hex as the body', () => {
    const { headers, body } = notificationRequest('{"type":"PAYMENT"}', KEY, 'NONE');
    expect(headers['Content-Type']).toBe('text/plain; charset=UTF-8');
    expect(body).toMatch(/^[0-9A-F]+$/);
    expect(decryptAsReceiver(body, KEY, headers['X-Initialization-Vector']!, headers['X-Authentication-Tag']!)).toBe('{"type":"PAYMENT"}');
  });

  it('wrapper JSON: application/json, {"encryptedBody": the hex} and nothing else', () => {
    const { headers, body } = notificationRequest('{"type":"PAYMENT"}', KEY, 'JSON');
    expect(headers['Content-Type']).toBe('application/json; charset=UTF-8');
    expect(body).toMatch(/^\{"encryptedBody":"[0-9A-F]+"\}$/);
    const { encryptedBody } = JSON.parse(body) as { encryptedBody: string };
    expect(decryptAsReceiver(encryptedBody, KEY, headers['X-Initialization-Vector']!, headers['X-Authentication-Tag']!)).toBe('{"type":"PAYMENT"}');
  });

  it('names the headers with exactly the casing receivers read', () => {
    for (const wrapper of ['NONE', 'JSON'] as const) {
      const { headers } = notificationRequest('{}', KEY, wrapper);
      expect(Object.keys(headers).sort()).toEqual(['Content-Type', 'X-Authentication-Tag', 'X-Initialization-Vector']);
      expect(headers['X-Initialization-Vector']).toMatch(/^[0-9A-F]{24}$/);
      expect(headers['X-Authentication-Tag']).toMatch(/^[0-9A-F]{32}$/);
    }
  });

  it('makes secrets of 64 upper-case hex characters, and accepts secrets in either case only', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^[0-9A-F]{64}$/);
    expect(newWebhookSecret()).not.toBe(secret);
    expect(isWebhookSecret(secret)).toBe(true);
    expect(isWebhookSecret(secret.toLowerCase())).toBe(true);
    for (const bad of [secret.slice(1), `${secret}0`, `${secret.slice(1)}G`, ` ${secret.slice(1)}`, '', undefined, 42]) {
      expect(isWebhookSecret(bad)).toBe(false);
    }
  });

  it('never shows the secret or the plaintext in what it throws', () => {
    const plaintext = '{"card":{"holder":"Jane Jones"}}';
    for (const secret of [KEY.slice(2), `${KEY.slice(2)}ZZ`]) {
      let message = '';
      try {
        encryptNotification(plaintext, secret);
      } catch (error) {
        message = `${String(error)} ${(error as Error).stack ?? ''}`;
      }
      expect(message).toContain('64 hex characters');
      expect(message).not.toContain(secret);
      expect(message).not.toContain('Jane Jones');
    }
    expect(() => encryptWithIv(plaintext, KEY, 'not-an-iv')).toThrow(/^The initialization vector must be 24 hex characters$/);
  });
});
