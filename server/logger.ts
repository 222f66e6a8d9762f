import pino, { type Logger as PinoInstance } from 'pino';
import type { LogLevel } from './config.ts';
import { isSecretName } from './domain/sensitive.ts';

/**
 * Structured JSON logs, one object per line, carrying the id of the request being served.
 * Redaction is the logger's own job, not its callers': card numbers, security codes, tokens and
 * passwords are removed from every line whatever field or message they hide in.
 */

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /**
   * The logger for one request: every line it writes carries `requestId`. Passed explicitly (Hono's
   * context holds it) rather than through AsyncLocalStorage, whose promise hooks cost several percent of
   * a payment's CPU time on Node 20.
   */
  forRequest(requestId: string): Logger;
  /** Writes what is waiting to be written (before the process ends). */
  flush(): void;
}

export type LogSink = (line: string) => void;

/** 12 to 19 digits, optionally grouped by spaces or hyphens: what a card number looks like in text. */
const PAN_LIKE = /[0-9](?:[ -]?[0-9]){11,18}/g;
const WORD_CHARACTER = /[0-9A-Za-z]/;

/**
 * Payment ids, ndcs, token hashes and build numbers are hex words of 32 or more characters and may hold long
 * digit runs; those are kept. A digit run anywhere else, even glued to letters (`card4200...`), is redacted.
 */
function isInsideHexIdentifier(text: string, start: number, end: number): boolean {
  if (/[ -]/.test(text.slice(start, end))) return false;
  let wordStart = start;
  while (wordStart > 0 && WORD_CHARACTER.test(text.charAt(wordStart - 1))) wordStart--;
  let wordEnd = end;
  while (wordEnd < text.length && WORD_CHARACTER.test(text.charAt(wordEnd))) wordEnd++;
  return wordEnd - wordStart >= 32 && /^[0-9a-fA-F]+$/.test(text.slice(wordStart, wordEnd));
}

const BEARER = /\b(Bearer)\s+[^\s"',;]+/gi;
/** `card.cvv=123`, `"cvv":"123"`-style fragments inside free text. */
const SECRET_ASSIGNMENT = /\b(card\.number|card\.cvv|cvv|password|accessToken|userId)(["']?\s*[=:]\s*["']?)[^&\s"',;]*/gi;

export function redactText(text: string): string {
  return text
    .replace(PAN_LIKE, (digits: string, offset: number) =>
      isInsideHexIdentifier(text, offset, offset + digits.length) ? digits : '[REDACTED-PAN]',
    )
    .replace(BEARER, '$1 [REDACTED]')
    .replace(SECRET_ASSIGNMENT, '$1$2[REDACTED]');
}

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const text = String(value);
    // JSON.stringify throws on a bigint: it is written as its digits.
    return redactText(text) !== text ? '[REDACTED-PAN]' : typeof value === 'bigint' ? text : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value.toJSON();
  if (depth > 8) return '[too deep]';
  if (value instanceof Error) {
    return { name: value.name, message: redactText(value.message), stack: value.stack ? redactText(value.stack) : undefined };
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value instanceof Map) return redact(Object.fromEntries(value), depth);
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    result[redactText(key)] = isSecretName(key) ? '[REDACTED]' : redact(item, depth + 1);
  }
  return result;
}

/** Keys every line has, which no field may supply. */
const RESERVED = new Set(['time', 'level', 'msg', 'requestId']);

/**
 * Paths pino itself censors (fast-redact) before a line is written: the request parts that carry credentials and
 * card data. The content redaction above runs first, on every field whatever its name, so these are a second net for
 * the shapes a caller is most likely to log whole.
 */
const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'headers.cookie',
  'card.number',
  'card.cvv',
  'params["card.number"]',
  'params["card.cvv"]',
  'params["authentication.password"]',
  'password',
  'secret',
  'token',
  'accessToken',
];

/** The fields of a line: redacted, and without the keys that are the line's own. */
function fieldsOf(fields: Record<string, unknown>): Record<string, unknown> {
  const redacted = redact(fields) as Record<string, unknown>;
  for (const key of Object.keys(redacted)) if (RESERVED.has(key)) delete redacted[key];
  return redacted;
}

/** A Logger over one pino logger (the process's, or a request's child carrying its requestId). */
class PinoLogger implements Logger {
  constructor(
    private readonly pino: PinoInstance,
    private readonly flushDestination: () => void,
  ) {}

  private write(level: Exclude<LogLevel, 'silent'>, message: string, fields?: Record<string, unknown>): void {
    if (!this.pino.isLevelEnabled(level)) return;
    this.pino[level](fields ? fieldsOf(fields) : {}, redactText(message));
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.write('debug', message, fields);
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.write('info', message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.write('warn', message, fields);
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.write('error', message, fields);
  }
  forRequest(requestId: string): Logger {
    return new PinoLogger(this.pino.child({ requestId }), this.flushDestination);
  }
  flush(): void {
    this.flushDestination();
  }
}

/**
 * The process's logger: pino, writing one JSON object per line (time, level, requestId within a request, msg, then
 * the fields) to `sink`, or by default to standard output through pino's asynchronous destination (lines are
 * written in batches, not one system call each; `flush` writes what is pending, as the gateway does when it closes).
 */
export function createLogger(options: { level: LogLevel; sink?: LogSink }): Logger {
  const stdout = options.sink ? undefined : pino.destination({ dest: 1, sync: false });
  const sink = options.sink;
  const destination = sink ? { write: (chunk: string) => sink(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) } : stdout;
  const logger = pino(
    {
      level: options.level,
      base: undefined,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    },
    destination,
  );
  return new PinoLogger(logger, () => {
    try {
      stdout?.flushSync();
    } catch {
      // Not open yet, or standard output gone: nothing more can be written.
    }
  });
}
