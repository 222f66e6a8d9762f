/**
 * The part of autocannon's programmatic API the bench uses (the package ships no type declarations).
 * See node_modules/autocannon/README.md, "API" and "Results".
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      /** Requests each connection sends in turn (method, headers and body default to the ones above). */
      requests?: Request[];
      /** Seconds before a request counts as a timeout. */
      timeout?: number;
      pipelining?: number;
      title?: string;
    }

    interface Request {
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      path?: string;
      /** Called before each sending of this request: what it returns is sent. */
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
      /** Called with each answer to this request (the body as text). */
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p99: number;
    }

    interface Result {
      /** Seconds the run took. */
      duration: number;
      requests: Histogram & { sent: number };
      /** Milliseconds, recorded as whole numbers; 2xx responses only. */
      latency: Histogram;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter {
      stop(): void;
      /** `responseTime` is in milliseconds, with sub-millisecond precision. */
      on(
        event: 'response',
        listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
      ): this;
      on(event: string, listener: (...args: unknown[]) => void): this;
    }
  }

  function autocannon(options: autocannon.Options, callback: (error: Error | null, result: autocannon.Result) => void): autocannon.Instance;

  export default autocannon;
}
