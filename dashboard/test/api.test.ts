import { describe, expect, it, vi } from 'vitest';
import { ApiError, createApiClient, queryString, type ApiClientOptions } from '../app/api.ts';

/** The api client: what it sends (credentials, JSON, the CSRF token) and how answers become data or ApiErrors. */

interface Sent {
  readonly url: string;
  readonly init: RequestInit;
}

function clientAnswering(answer: () => Response | Promise<Response>, options: Partial<ApiClientOptions> = {}) {
  const sent: Sent[] = [];
  const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    sent.push({ url: String(url), init: init ?? {} });
    return answer();
  }) as unknown as typeof globalThis.fetch;
  const client = createApiClient({ base: '/dashboard/api', fetch, csrfToken: () => 'csrf-123', ...options });
  return { client, sent };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const envelope = (code: string, description: string, extra: Record<string, unknown> = {}) => ({
  result: { code, description, ...extra },
  buildNumber: 'b',
  timestamp: '2025-01-01 00:00:00+0000',
  ndc: 'n',
});
const header = (sent: Sent, name: string) => new Headers(sent.init.headers).get(name);

describe('the api client', () => {
  it('sends GETs with same-origin credentials, the query of the set values, and no CSRF token', async () => {
    const { client, sent } = clientAnswering(() => json(200, { ...envelope('000.000.000', 'ok'), payments: [] }));
    const answer = await client.get<{ payments: unknown[] }>('/payments', { status: 'approved', q: '', cursor: undefined, limit: 50 });
    expect(answer.payments).toEqual([]);
    expect(sent[0]?.url).toBe('/dashboard/api/payments?status=approved&limit=50');
    expect(sent[0]?.init.method).toBe('GET');
    expect(sent[0]?.init.credentials).toBe('same-origin');
    expect(header(sent[0]!, 'x-csrf-token')).toBeNull();
    expect(header(sent[0]!, 'accept')).toBe('application/json');
  });

  it('adds the session’s CSRF token and a JSON body to every other method', async () => {
    const { client, sent } = clientAnswering(() => json(200, envelope('000.000.000', 'ok')));
    await client.post('/payments/abc/refund', { amount: '5.00' });
    await client.put('/entities/e/brands', { brands: ['VISA'] });
    await client.delete('/session');
    expect(sent.map((request) => [request.init.method, header(request, 'x-csrf-token')])).toEqual([
      ['POST', 'csrf-123'],
      ['PUT', 'csrf-123'],
      ['DELETE', 'csrf-123'],
    ]);
    expect(sent[0]?.init.body).toBe('{"amount":"5.00"}');
    expect(header(sent[0]!, 'content-type')).toBe('application/json');
    expect(sent[2]?.init.body).toBeUndefined();
  });

  it('sends no CSRF header before there is a session (sign-in)', async () => {
    const { client, sent } = clientAnswering(() => json(200, envelope('000.000.000', 'ok')), { csrfToken: () => undefined });
    await client.post('/session', { token: 't' });
    expect(header(sent[0]!, 'x-csrf-token')).toBeNull();
  });

  it('turns an error envelope into an ApiError with the result, its parameter errors and the whole answer', async () => {
    const refused = { ...envelope('200.300.404', 'invalid or missing parameter', { parameterErrors: [{ name: 'amount', value: '9999.00', message: 'exceeds the captured amount' }] }), id: 'f'.repeat(32) };
    const { client } = clientAnswering(() => json(400, refused));
    const error = await client.post('/payments/abc/refund', { amount: '9999.00' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.kind).toBe('answer');
    expect(apiError.status).toBe(400);
    expect(apiError.message).toBe('invalid or missing parameter');
    expect(apiError.result).toEqual({ code: '200.300.404', description: 'invalid or missing parameter', parameterErrors: [{ name: 'amount', value: '9999.00', message: 'exceeds the captured amount' }] });
    expect((apiError.body as { id: string }).id).toBe('f'.repeat(32));
  });

  it('tells onUnauthorized about a 401, and still throws its result', async () => {
    const onUnauthorized = vi.fn();
    const { client } = clientAnswering(() => json(401, envelope('800.900.300', 'invalid authentication information')), { onUnauthorized });
    const error = (await client.get('/payments').catch((thrown: unknown) => thrown)) as ApiError;
    expect(onUnauthorized).toHaveBeenCalledWith('/payments');
    expect(error.result?.code).toBe('800.900.300');
  });

  it('calls an answer that is not the gateway’s envelope malformed, with its status', async () => {
    const { client } = clientAnswering(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    const error = (await client.get('/payments').catch((thrown: unknown) => thrown)) as ApiError;
    expect([error.kind, error.status, error.result]).toEqual(['malformed', 502, undefined]);
    const { client: okButText } = clientAnswering(() => new Response('not json', { status: 200 }));
    expect(((await okButText.get('/payments').catch((thrown: unknown) => thrown)) as ApiError).kind).toBe('malformed');
    const { client: noResult } = clientAnswering(() => json(500, { message: 'oops' }));
    expect(((await noResult.get('/payments').catch((thrown: unknown) => thrown)) as ApiError).kind).toBe('malformed');
  });

  it('calls a request that got no answer a network error (status 0), but passes an abort on as it is', async () => {
    const { client } = clientAnswering(() => Promise.reject(new TypeError('Failed to fetch')));
    const error = (await client.get('/payments').catch((thrown: unknown) => thrown)) as ApiError;
    expect([error.kind, error.status, error.message]).toEqual(['network', 0, 'Failed to fetch']);
    const controller = new AbortController();
    controller.abort();
    const aborted = new DOMException('aborted', 'AbortError');
    const { client: aborting } = clientAnswering(() => Promise.reject(aborted));
    expect(await aborting.get('/payments', undefined, controller.signal).catch((thrown: unknown) => thrown)).toBe(aborted);
  });

  it('keeps only well-formed parameter errors’ fields, as text', async () => {
    const { client } = clientAnswering(() => json(400, envelope('200.300.404', 'invalid', { parameterErrors: [{ name: 'amount', message: 'bad', value: 5 }, 'junk', null] })));
    const error = (await client.get('/payments').catch((thrown: unknown) => thrown)) as ApiError;
    expect(error.result?.parameterErrors).toEqual([{ name: 'amount', message: 'bad', value: '5' }]);
  });
});

describe('queryString', () => {
  it('leaves out unset values and encodes the rest', () => {
    expect(queryString({ a: '', b: undefined, c: null, q: 'order #1 & 2', n: 0 })).toBe('?q=order+%231+%26+2&n=0');
    expect(queryString({})).toBe('');
    expect(queryString(undefined)).toBe('');
  });
});
