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
}

export type LogSink = (line: string) => void;

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

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

/** Logs written by one process: the threshold and the sink, shared by every request logger. */
class JsonLogger implements Logger {
  constructor(
    private readonly threshold: number,
    private readonly sink: LogSink,
    private readonly requestId: string | undefined,
  ) {}

  private write(level: Exclude<LogLevel, 'silent'>, message: string, fields?: Record<string, unknown>): void {
    if (LEVELS[level] < this.threshold) return;
    // The fixed keys come first and a field can never overwrite them; requestId is present even when
    // undefined (JSON.stringify then leaves it out), so a field cannot supply one either.
    const line: Record<string, unknown> = {
      time: new Date().toISOString(),
      level,
      requestId: this.requestId,
      msg: redactText(message),
    };
    if (fields) {
      for (const [key, value] of Object.entries(redact(fields) as Record<string, unknown>)) {
        if (!(key in line)) line[key] = value;
      }
    }
    this.sink(JSON.stringify(line));
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
    return new JsonLogger(this.threshold, this.sink, requestId);
  }
}

export function createLogger(options: { level: LogLevel; sink?: LogSink }): Logger {
  const sink: LogSink = options.sink ?? ((line) => process.stdout.write(`${line}\n`));
  return new JsonLogger(LEVELS[options.level], sink, undefined);
}
