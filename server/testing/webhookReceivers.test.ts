import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encryptNotification, newWebhookSecret, notificationRequest, type NotificationWrapper } from '../webhooks/crypto.ts';
import { phpBinary, startNodeReceiver, startPhpReceiver, warnIfPhpMissing, type NodeReceiver, type PhpReceiver } from './webhookReceivers.ts';

const SECRET = newWebhookSecret();
const PAYMENT = JSON.stringify({
  type: 'PAYMENT',
  payload: { id: '8ac7a4a18f9d2c4d018f9d3e5b2e1234', amount: '92.00', currency: 'EUR', customer: { surname: 'Müller €' } },
});

function send(url: string, plaintext: string, wrapper: NotificationWrapper, init: { signal?: AbortSignal; redirect?: RequestRedirect } = {}) {
  const { headers, body } = notificationRequest(plaintext, SECRET, wrapper);
  return fetch(url, { method: 'POST', headers, body, signal: init.signal ?? AbortSignal.timeout(10_000), redirect: init.redirect ?? 'follow' });
}

/** Reads a body until it ends or the read fails; the bytes read and the failure, if any. */
async function readUntilFailure(response: Response): Promise<{ bytes: number; failure: unknown }> {
  const reader = response.body!.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes, failure: undefined };
      bytes += value.byteLength;
    }
  } catch (failure) {
    return { bytes, failure };
  }
}

describe('the Node webhook receiver', () => {
  let receiver: NodeReceiver;
  beforeAll(async () => {
    receiver = await startNodeReceiver(SECRET);
  });
  afterAll(() => receiver.close());
  afterEach(() => {
    receiver.setBehaviour(200);
    receiver.received.length = 0;
  });

  it.each(['NONE', 'JSON'] as const)('decrypts what crypto.ts sends with wrapper %s, as the published Node code does', async (wrapper) => {
    const response = await send(receiver.url, PAYMENT, wrapper);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('OK');
    const [notification] = receiver.received;
    expect(notification).toMatchObject({ method: 'POST', wrapper, plaintext: PAYMENT, json: JSON.parse(PAYMENT), status: 200 });
    expect(notification?.error).toBeUndefined();
  });

  it('keeps the header names as sent, for checks of their casing', async () => {
    const { headers, body } = notificationRequest(PAYMENT, SECRET, 'NONE');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const outgoing = httpRequest(receiver.url, { method: 'POST', headers }, (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      outgoing.once('error', reject);
      outgoing.end(body);
    });
    expect(status).toBe(200);
    const names = receiver.received[0]!.rawHeaders.filter((_, index) => index % 2 === 0);
    expect(names).toEqual(expect.arrayContaining(['Content-Type', 'X-Initialization-Vector', 'X-Authentication-Tag']));
    expect(receiver.received[0]!.plaintext).toBe(PAYMENT);
  });

  it('answers 500 to what it cannot decrypt (tampered body, another secret, no IV) without advancing a script', async () => {
    receiver.setBehaviour([503, 200]);
    const { headers, body } = notificationRequest(PAYMENT, SECRET, 'NONE');
    const tampered = (body[0] === '0' ? '1' : '0') + body.slice(1);
    expect((await fetch(receiver.url, { method: 'POST', headers, body: tampered })).status).toBe(500);
    const foreign = notificationRequest(PAYMENT, newWebhookSecret(), 'JSON');
    expect((await fetch(receiver.url, { method: 'POST', headers: foreign.headers, body: foreign.body })).status).toBe(500);
    expect((await fetch(receiver.url, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body })).status).toBe(500);
    expect(receiver.received.map((notification) => [notification.plaintext, notification.status])).toEqual([
      [undefined, 500],
      [undefined, 500],
      [undefined, 500],
    ]);
    expect(receiver.received.every((notification) => notification.error !== undefined && !notification.error.includes(SECRET))).toBe(true);
    expect((await send(receiver.url, PAYMENT, 'NONE')).status).toBe(503);
  });

  it('answers a fixed status, or a script of statuses and then its last one', async () => {
    receiver.setBehaviour(503);
    expect((await send(receiver.url, PAYMENT, 'NONE')).status).toBe(503);
    receiver.setBehaviour([500, 500, 500, 200]);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await send(receiver.url, PAYMENT, 'NONE')).status);
    expect(statuses).toEqual([500, 500, 500, 200, 200, 200]);
    expect(receiver.received.map((notification) => notification.status)).toEqual([503, 500, 500, 500, 200, 200, 200]);
    expect(receiver.received.every((notification) => notification.plaintext === PAYMENT)).toBe(true);
  });

  it('hangs: a client with a timeout gives up, and the notification was still received', async () => {
    receiver.setBehaviour({ kind: 'hang' });
    const started = Date.now();
    await expect(send(receiver.url, PAYMENT, 'NONE', { signal: AbortSignal.timeout(300) })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(receiver.received).toMatchObject([{ plaintext: PAYMENT, status: null }]);
  });

  it('answers slowly byte by byte: the head at once, then a body a client with a timeout never finishes', async () => {
    receiver.setBehaviour({ kind: 'slow', bytes: 3_600, intervalMs: 50 });
    const response = await send(receiver.url, PAYMENT, 'NONE', { signal: AbortSignal.timeout(500) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('3600');
    const { bytes, failure } = await readUntilFailure(response);
    expect(failure).toMatchObject({ name: 'TimeoutError' });
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(100);
    expect(receiver.received).toMatchObject([{ plaintext: PAYMENT, status: 200 }]);
  });

  it('answers slowly to the end when the client waits', async () => {
    receiver.setBehaviour({ kind: 'slow', bytes: 10, intervalMs: 25 });
    const started = Date.now();
    const response = await send(receiver.url, PAYMENT, 'NONE');
    expect(await response.text()).toBe('x'.repeat(10));
    expect(Date.now() - started).toBeGreaterThanOrEqual(9 * 25);
  });

  it('answers slowly with the head too: a client with a timeout never even gets the status', async () => {
    receiver.setBehaviour({ kind: 'slow', intervalMs: 50, headFirst: false });
    await expect(send(receiver.url, PAYMENT, 'NONE', { signal: AbortSignal.timeout(300) })).rejects.toMatchObject({ name: 'TimeoutError' });
    receiver.setBehaviour({ kind: 'slow', status: 201, bytes: 3, intervalMs: 1, headFirst: false });
    const response = await send(receiver.url, PAYMENT, 'NONE');
    expect(response.status).toBe(201);
    expect(await response.text()).toBe('xxx');
  });

  it('answers a huge body (20 MiB, chunked), read whole or cut short by the client', async () => {
    receiver.setBehaviour({ kind: 'huge' });
    const whole = await send(receiver.url, PAYMENT, 'NONE');
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBeNull();
    expect((await whole.arrayBuffer()).byteLength).toBe(20 * 1024 * 1024);

    const capped = await send(receiver.url, PAYMENT, 'JSON');
    const reader = capped.body!.getReader();
    let bytes = 0;
    while (bytes <= 1024 * 1024) bytes += (await reader.read()).value?.byteLength ?? Infinity;
    await reader.cancel();
    expect(bytes).toBeLessThan(20 * 1024 * 1024);

    receiver.setBehaviour(200);
    expect((await send(receiver.url, PAYMENT, 'NONE')).status).toBe(200);
    expect(receiver.received.map((notification) => notification.plaintext)).toEqual([PAYMENT, PAYMENT, PAYMENT]);
  });

  it('redirects elsewhere (302 by default)', async () => {
    receiver.setBehaviour({ kind: 'redirect', location: 'http://127.0.0.1:9/elsewhere' });
    const response = await send(receiver.url, PAYMENT, 'NONE', { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('http://127.0.0.1:9/elsewhere');
    receiver.setBehaviour({ kind: 'redirect', location: '/other', status: 307 });
    expect((await send(receiver.url, PAYMENT, 'NONE', { redirect: 'manual' })).status).toBe(307);
    expect(receiver.received.map((notification) => notification.status)).toEqual([302, 307]);
  });

  it('closes the connection without answering', async () => {
    receiver.setBehaviour({ kind: 'close' });
    await expect(send(receiver.url, PAYMENT, 'NONE')).rejects.toThrow('fetch failed');
    expect(receiver.received).toMatchObject([{ plaintext: PAYMENT, status: null }]);
    receiver.setBehaviour(200);
    expect((await send(receiver.url, PAYMENT, 'NONE')).status).toBe(200);
  });

  it('waits for a number of requests, and says so when they do not come', async () => {
    const waiting = receiver.waitFor(2, 5_000);
    await send(receiver.url, PAYMENT, 'NONE');
    await send(receiver.url, PAYMENT, 'JSON');
    expect((await waiting).map((notification) => notification.wrapper)).toEqual(['NONE', 'JSON']);
    await expect(receiver.waitFor(3, 50)).rejects.toThrow('got 2 of 3 requests within 50 ms');
  });
});

describe('closing the Node webhook receiver', () => {
  it('does not wait for hanging or slow answers: it cuts them', async () => {
    const receiver = await startNodeReceiver(SECRET, { kind: 'hang' });
    const hanging = send(receiver.url, PAYMENT, 'NONE');
    hanging.catch(() => undefined);
    await receiver.waitFor(1);
    receiver.setBehaviour({ kind: 'slow', intervalMs: 1_000 });
    const slow = await send(receiver.url, PAYMENT, 'NONE');
    const slowBody = slow.text();
    slowBody.catch(() => undefined);
    const started = Date.now();
    await receiver.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(hanging).rejects.toThrow('fetch failed');
    await expect(slowBody).rejects.toThrow();
  });
});

const php = phpBinary() !== undefined;
if (!php) warnIfPhpMissing('webhookReceivers.test.ts');

describe.runIf(php)('the PHP webhook receiver (php -S with the published openssl_decrypt code)', () => {
  let receiver: PhpReceiver;
  beforeAll(async () => {
    receiver = (await startPhpReceiver(SECRET))!;
  });
  afterAll(() => receiver?.close());

  it('decrypts what crypto.ts sends with both wrappers, and answers 200', async () => {
    const before = receiver.received().length;
    for (const wrapper of ['NONE', 'JSON'] as const) {
      const response = await send(receiver.url, PAYMENT, wrapper);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('OK');
    }
    expect(receiver.received().slice(before)).toEqual([
      { method: 'POST', wrapper: 'NONE', ok: true, plaintext: PAYMENT, json: JSON.parse(PAYMENT) },
      { method: 'POST', wrapper: 'JSON', ok: true, plaintext: PAYMENT, json: JSON.parse(PAYMENT) },
    ]);
  });

  it('answers 500 to a tampered body or tag, or another secret', async () => {
    const before = receiver.received().length;
    const { body, iv, tag } = encryptNotification(PAYMENT, SECRET);
    const flip = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
    const post = (payload: string, tagHex: string) =>
      fetch(receiver.url, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain; charset=UTF-8', 'X-Initialization-Vector': iv, 'X-Authentication-Tag': tagHex },
        body: payload,
      });
    expect((await post(flip(body), tag)).status).toBe(500);
    expect((await post(body, flip(tag))).status).toBe(500);
    const foreign = notificationRequest(PAYMENT, newWebhookSecret(), 'JSON');
    expect((await fetch(receiver.url, { method: 'POST', headers: foreign.headers, body: foreign.body })).status).toBe(500);
    expect((await post(body, tag)).status).toBe(200);
    expect(receiver.received().slice(before).map((entry) => entry.ok)).toEqual([false, false, false, true]);
  });

  it('decrypts with a lower-case secret just the same (hex2bin reads either case)', async () => {
    const lower = await startPhpReceiver(SECRET.toLowerCase());
    try {
      expect((await send(lower!.url, PAYMENT, 'NONE')).status).toBe(200);
      expect(await lower!.waitFor(1)).toMatchObject([{ ok: true, plaintext: PAYMENT }]);
    } finally {
      await lower?.close();
    }
  });
});
