import { session, sessionEnded } from './state.ts';
import type { ActionAnswer, BackOfficeAction, ChargebackPage, Overview, PaymentCount, PaymentDetailAnswer, PaymentPage, ResultInfo, Role, Session, SignInAnswer } from './types.ts';

/**
 * The one client of the dashboard's API (/dashboard/api/...). Every call: same-origin credentials (the session is an
 * HttpOnly cookie), JSON both ways, and on every method but GET and HEAD the `X-CSRF-Token` of the live session.
 * An answer that is not 2xx becomes an ApiError carrying the gateway's `result` (code, description, parameterErrors)
 * and the whole answer; a request that never got an answer becomes one too (kind `network`), as does an answer
 * that is not the gateway's JSON envelope (kind `malformed`). Pages never call fetch themselves.
 */

export type ApiErrorKind = 'answer' | 'network' | 'malformed';

export class ApiError extends Error {
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly kind: ApiErrorKind;
  /** The gateway's result, when it answered with its envelope. */
  readonly result: ResultInfo | undefined;
  /** The whole answer as parsed (e.g. a refused refund's payment), or undefined. */
  readonly body: unknown;

  constructor(kind: ApiErrorKind, status: number, result: ResultInfo | undefined, body: unknown, message?: string) {
    super(message ?? result?.description ?? `${kind} error (HTTP ${status})`);
    this.name = 'ApiError';
    this.kind = kind;
    this.status = status;
    this.result = result;
    this.body = body;
  }
}

export type Query = Readonly<Record<string, string | number | undefined | null>>;

export interface ApiClientOptions {
  /** Where the API is: `/dashboard/api` in the browser. */
  readonly base: string;
  readonly fetch: typeof fetch;
  /** The live session's CSRF token, read at each call (none before sign-in). */
  readonly csrfToken: () => string | undefined;
  /** Told when an answer is 401: the session is gone (expired, signed out elsewhere). */
  readonly onUnauthorized?: (path: string) => void;
}

export interface ApiClient {
  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  put<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete<T>(path: string): Promise<T>;
}

/** `?a=1&b=x` of the values that are set (empty strings, undefined and null are left out), or ''. */
export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A path segment from data (an id), encoded so it stays one segment. */
export const segment = (value: string): string => encodeURIComponent(value);

function resultOf(body: unknown): ResultInfo | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const result = (body as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null) return undefined;
  const { code, description, parameterErrors } = result as Record<string, unknown>;
  if (typeof code !== 'string' || typeof description !== 'string') return undefined;
  const errors = Array.isArray(parameterErrors)
    ? parameterErrors
        .filter((error): error is Record<string, unknown> => typeof error === 'object' && error !== null)
        .map((error) => ({
          name: String(error.name ?? ''),
          message: String(error.message ?? ''),
          ...(error.value !== undefined ? { value: String(error.value) } : {}),
        }))
    : undefined;
  return { code, description, ...(errors && errors.length > 0 ? { parameterErrors: errors } : {}) };
}

/** Whether a result code is a success (the gateway's success codes start with 000.). */
export const isSuccessCode = (code: string): boolean => code.startsWith('000.');

export function createApiClient(options: ApiClientOptions): ApiClient {
  async function request<T>(method: string, path: string, init: { query?: Query; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && method !== 'HEAD') {
      const token = options.csrfToken();
      if (token) headers['x-csrf-token'] = token;
    }
    let response: Response;
    try {
      response = await options.fetch(`${options.base}${path}${queryString(init.query)}`, {
        method,
        headers,
        credentials: 'same-origin',
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      });
    } catch (error) {
      // An abort is the caller's own doing: passed on as it is, for the caller to ignore.
      if (init.signal?.aborted) throw error;
      throw new ApiError('network', 0, undefined, undefined, error instanceof Error ? error.message : String(error));
    }
    let body: unknown;
    const text = await response.text().catch(() => '');
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const result = resultOf(body);
    if (response.status === 401) options.onUnauthorized?.(path);
    if (!response.ok) throw new ApiError(result ? 'answer' : 'malformed', response.status, result, body);
    if (typeof body !== 'object' || body === null) throw new ApiError('malformed', response.status, undefined, body);
    return body as T;
  }
  return {
    get: (path, query, signal) => request('GET', path, { ...(query ? { query } : {}), ...(signal ? { signal } : {}) }),
    post: (path, body) => request('POST', path, { body: body ?? {} }),
    put: (path, body) => request('PUT', path, { body }),
    patch: (path, body) => request('PATCH', path, { body }),
    delete: (path) => request('DELETE', path),
  };
}

/** The app's client: the API beside the page, the session's CSRF token, and a 401 ends the session in the app. */
export const api: ApiClient = createApiClient({
  base: '/dashboard/api',
  fetch: (input, init) => fetch(input, init),
  csrfToken: () => session.value?.csrfToken,
  onUnauthorized: () => {
    if (!session.value) return;
    sessionEnded.value = true;
    session.value = null;
  },
});

/*
 * The endpoints, one small function each, by page. A page imports what it calls from here; add a page's endpoints
 * below in the same way (path relative to /dashboard/api, ids through `segment`).
 */

export type SignInCredentials = { readonly operator: string; readonly password: string } | { readonly email: string; readonly password: string };

export const sessionApi = {
  read: () => api.get<{ session: Session }>('/session'),
  signIn: (credentials: SignInCredentials) => api.post<SignInAnswer>('/session', credentials),
  /** The second factor's code (at enrolment, the first code of the new secret). */
  secondFactor: (challenge: string, code: string) => api.post<SignInAnswer>('/session/second-factor', { challenge, code }),
  signOut: () => api.delete<Record<string, unknown>>('/session'),
};

/** An invitation's one-time code: whom it invites, and setting the password with it. */
export const invitationApi = {
  show: (code: string) => api.post<{ invitation: { email: string; merchant: string; role: Role; expiresAt: string } }>('/invitation', { code }),
  accept: (code: string, password: string) => api.post<SignInAnswer>('/invitation/accept', { code, password }),
};

/** The list's filters as the API names them (and as the page's address carries them). */
export const PAYMENT_FILTERS = [
  'state',
  'status',
  'currency',
  'paymentBrand',
  'paymentType',
  'amountFrom',
  'amountTo',
  'dateFrom',
  'dateTo',
  'merchantTransactionId',
  'shortId',
  'q',
] as const;
export type PaymentFilter = (typeof PAYMENT_FILTERS)[number];
export type PaymentQuery = Partial<Record<PaymentFilter | 'entityId' | 'cursor', string>>;

/**
 * The first page a signed-in session shows (every payment it sees, no filter), asked for as soon as the sign-in is
 * answered, while the app draws its shell: the payments page takes it once instead of asking again.
 */
let firstPage: Promise<PaymentPage> | undefined;
export function prefetchFirstPaymentPage(): void {
  firstPage = api.get<PaymentPage>('/payments', {});
  // Not taken (another page opened first, or it failed): no unhandled rejection.
  firstPage.catch(() => undefined);
}

export const paymentsApi = {
  /** A page of 50 (the API's page size: the contract's `limit` is refused by the API as it is). */
  list: (query: PaymentQuery, signal?: AbortSignal) => {
    const prefetched = Object.keys(query).length === 0 ? firstPage : undefined;
    firstPage = undefined;
    return prefetched ?? api.get<PaymentPage>('/payments', query, signal);
  },
  /** How many the filters select: asked once the first page is drawn (a million rows take longer to count than to page). */
  count: (query: PaymentQuery, signal?: AbortSignal) => api.get<PaymentCount>('/payments/count', query, signal),
  detail: (id: string, signal?: AbortSignal) => api.get<PaymentDetailAnswer>(`/payments/${segment(id)}`, undefined, signal),
  /** The address of the list's CSV export with these filters (a download the browser makes with the session's cookie). */
  exportHref: (query: PaymentQuery) => {
    const params = new URLSearchParams(Object.entries(query).filter(([name, value]) => name !== 'cursor' && value !== undefined) as [string, string][]);
    const search = params.toString();
    return `/dashboard/api/payments/export${search ? `?${search}` : ''}`;
  },
  overview: (entityId: string | undefined, signal?: AbortSignal) => api.get<{ overview: Overview }>('/overview', entityId ? { entityId } : {}, signal),
  chargebacks: (query: { readonly entityId?: string; readonly cursor?: string }, signal?: AbortSignal) => api.get<ChargebackPage>('/chargebacks', query, signal),
  /** Capture and refund take an amount ("5.00", or none for the whole amount); a reversal takes none. */
  act: (id: string, action: BackOfficeAction, amount?: string) =>
    api.post<ActionAnswer>(`/payments/${segment(id)}/${action}`, action === 'reverse' || amount === undefined ? {} : { amount }),
};
