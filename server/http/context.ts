import type { Logger } from '../logger.ts';

export interface AppEnv {
  Variables: {
    requestId: string;
    /** The logger of this request: its lines carry the request id. */
    log: Logger;
    /** Request parameters as sent: query string, plus the form body on POST. */
    params: Map<string, string>;
    /** The authenticated entity, once the auth middleware has run. */
    entityId: string;
    /** What a merchant's request authenticated with (requireMerchant): a bearer token, or the legacy pair (COMPAT §1). */
    credentials: 'token' | 'legacy';
    /** The ndc every answer of this request carries, when the route fixes one (a checkout's id). */
    ndc: string;
    /** Whether a handler read the request body (an unread body means the connection must close). */
    bodyConsumed: boolean;
    /** Headers every answer carries (respond.ts baseHeadersFor). */
    baseHeaders: Readonly<Record<string, string>>;
    /** What the answer names, for the request's log line (jsonResponse sets them): its result code and resource id. */
    resultCode: string;
    resourceId: string;
    /** A gateway's own clock (the control API's, a test's), which the answers' timestamp follows (respond.ts). */
    clock: (() => Date) | undefined;
  };
}
