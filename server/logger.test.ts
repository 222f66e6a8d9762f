import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LogLevel } from './config.ts';
import { createLogger, redactText, type Logger } from './logger.ts';

interface Line {
  readonly time: string;
  readonly level: string;
  readonly msg: string;
  readonly requestId?: string;
  readonly [field: string]: unknown;
}

function capture(level: LogLevel = 'debug'): { logger: Logger; lines: string[]; parsed: () => Line[]; last: () => Line } {
  const lines: string[] = [];
  const logger = createLogger({ level, sink: (line) => lines.push(line) });
  const parsed = () => lines.map((line) => JSON.parse(line) as Line);
  return {
    logger,
    lines,
    parsed,
    last: () => {
      const all = parsed();
      expect(all.length).toBeGreaterThan(0);
      return all[all.length - 1] as Line;
    },
  };
}

/** One line, written by `write`, as text and parsed. */
function logOnce(write: (logger: Logger) => void): { text: string; line: Line } {
  const { logger, lines, parsed } = capture();
  write(logger);
  expect(lines).toHaveLength(1);
  return { text: lines[0] as string, line: parsed()[0] as Line };
}

const PAN = '4200000000000000';
/** Any run of 12 or more digits, possibly grouped: what must never reach a log line. */
const DIGIT_RUN = /[0-9](?:[ -]?[0-9]){11,}/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('line format', () => {
  it('writes one JSON object per line with time, level and msg', () => {
    const { logger, lines, parsed } = capture();
    logger.debug('one');
    logger.info('two', { a: 1 });
    logger.warn('three\nwith a line break', { text: 'x\ny' });
    logger.error('four');
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      expect(line).not.toContain('\n');
      const object: unknown = JSON.parse(line);
      expect(typeof object).toBe('object');
      expect(Array.isArray(object)).toBe(false);
    }
    const all = parsed();
    expect(all.map((line) => line.level)).toEqual(['debug', 'info', 'warn', 'error']);
    expect(all.map((line) => line.msg)).toEqual(['one', 'two', 'three\nwith a line break', 'four']);
    for (const line of all) {
      expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Math.abs(Date.parse(line.time) - Date.now())).toBeLessThan(60_000);
    }
    expect(all[1]?.a).toBe(1);
  });

  it('has no requestId outside a request', () => {
    const { line } = logOnce((logger) => logger.info('background'));
    expect(line).not.toHaveProperty('requestId');
  });

  it('adds the requestId to every line of a request logger, and only there', async () => {
    const { logger, parsed } = capture();
    const requestLog = logger.forRequest('req-1');
    requestLog.info('before');
    await sleep(5);
    requestLog.info('after a timer');
    logger.info('outside');
    expect(parsed().map((line) => [line.msg, line.requestId])).toEqual([
      ['before', 'req-1'],
      ['after a timer', 'req-1'],
      ['outside', undefined],
    ]);
  });

  it('keeps concurrent requests apart', async () => {
    const { logger, parsed } = capture();
    const request = async (id: string, delays: number[]) => {
      const log = logger.forRequest(id);
      for (const [step, delay] of delays.entries()) {
        await sleep(delay);
        log.info(`${id} step ${step}`);
      }
    };
    await Promise.all([request('a', [5, 1, 8]), request('b', [1, 9, 1]), request('c', [3, 3, 3])]);
    const lines = parsed();
    expect(lines).toHaveLength(9);
    for (const line of lines) expect(line.msg.startsWith(`${line.requestId} `), line.msg).toBe(true);
  });

  it('keeps level and sink in request loggers', () => {
    const { logger, parsed } = capture('warn');
    const log = logger.forRequest('req-2');
    log.info('dropped');
    log.warn('kept');
    expect(parsed().map((line) => [line.msg, line.level, line.requestId])).toEqual([['kept', 'warn', 'req-2']]);
  });

  it('never lets fields overwrite time, level, msg or requestId', () => {
    const { logger, lines, parsed } = capture();
    logger
      .forRequest('req-real')
      .warn('the real message', { time: 'forged', level: 'debug', msg: 'forged message', requestId: 'req-forged', other: 'kept' });
    const line = parsed()[0] as Line;
    expect(line.level).toBe('warn');
    expect(line.msg).toBe('the real message');
    expect(line.requestId).toBe('req-real');
    expect(line.time).not.toBe('forged');
    expect(line.time).toMatch(/^\d{4}-/);
    expect(line.other).toBe('kept');
    expect(lines[0]).not.toContain('forged');
  });

  it('never lets a field forge a requestId outside a request either', () => {
    const { line, text } = logOnce((logger) => logger.info('background', { requestId: 'req-forged', time: 'forged' }));
    expect(line.requestId).toBeUndefined();
    expect(text).not.toContain('forged');
  });

  it.each<[LogLevel, string[]]>([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
    ['silent', []],
  ])('respects the level threshold %s', (level, expected) => {
    const { logger, parsed } = capture(level);
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(parsed().map((line) => line.level)).toEqual(expected);
  });

  it('does not throw on values JSON cannot hold as they are', () => {
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    const { line } = logOnce((logger) =>
      logger.info('odd values', { circular, count: 10n, missing: undefined, nothing: null, fn: () => 1, at: new Date(0) }),
    );
    expect(line.msg).toBe('odd values');
    expect(line.count).toBe('10');
    expect(line.nothing).toBeNull();
    expect(line.at).toBe('1970-01-01T00:00:00.000Z');
    expect(JSON.stringify(line.circular)).toContain('loop');
  });
});

describe('redaction', () => {
  it.each([
    ['plain', `card ${PAN} was declined`],
    ['grouped with spaces', 'card 4200 0000 0000 0000 was declined'],
    ['grouped with hyphens', 'card 4200-0000-0000-0000 was declined'],
    ['Amex, 15 digits', 'card 378282246310005 was declined'],
    ['Diners, 14 digits', 'card 36227206271667 was declined'],
    ['19 digits', 'card 6759649826438453123 was declined'],
    ['Amex grouped 4-6-5', 'card 3782 822463 10005 was declined'],
    ['at the start and the end', `${PAN}`],
    ['in JSON text', `{"card":{"number":"${PAN}"}}`],
    ['next to punctuation', `(${PAN}),[${PAN}];"${PAN}"`],
  ])('removes a PAN from the message: %s', (_label, message) => {
    const { line, text } = logOnce((logger) => logger.info(message));
    expect(line.msg).not.toMatch(DIGIT_RUN);
    expect(text).not.toMatch(DIGIT_RUN);
    expect(line.msg).toContain('[REDACTED-PAN]');
  });

  it('removes a PAN sent as card.number in a query string', () => {
    const { line } = logOnce((logger) => logger.info(`amount=1.00&card.number=${PAN}&currency=EUR`));
    expect(line.msg).toMatch(/^amount=1\.00&card\.number=\[REDACTED[^\]]*\]&currency=EUR$/);
  });

  it('removes PANs from fields at any depth, in strings, numbers, arrays and maps', () => {
    const { line, text } = logOnce((logger) =>
      logger.info('request', {
        note: `pan ${PAN}`,
        asNumber: 4200000000000000,
        nested: { deeper: { deepest: { text: 'card 4111 1111 1111 1111 end', list: ['5555-5555-5555-4444', 4111111111111111] } } },
        map: new Map([['body', `card.holder=Jane&pan=${PAN}`]]),
        error: new Error(`card ${PAN} refused`),
      }),
    );
    expect(text).not.toMatch(DIGIT_RUN);
    expect(line.asNumber).toBe('[REDACTED-PAN]');
    expect(JSON.stringify(line.nested)).toContain('[REDACTED-PAN]');
    expect(JSON.stringify(line.map)).toContain('card.holder=Jane');
  });

  it('removes a PAN from a field name too', () => {
    const { text } = logOnce((logger) => logger.info('by card', { byCard: { [PAN]: 'seen twice' }, cards: new Map([[PAN, 1]]) }));
    expect(text).not.toMatch(DIGIT_RUN);
    expect(text).toContain('seen twice');
  });

  it('removes a PAN from an Error, in its message and its stack', () => {
    const { line, text } = logOnce((logger) =>
      logger.error('unexpected error', { error: new Error(`could not store card 4200 0000 0000 0000 for payment`) }),
    );
    expect(text).not.toMatch(DIGIT_RUN);
    const error = line.error as { name: string; message: string; stack?: string };
    expect(error.name).toBe('Error');
    expect(error.message).toBe('could not store card [REDACTED-PAN] for payment');
    expect(error.stack).toContain('[REDACTED-PAN]');
  });

  it('removes a PAN from an Error in a nested field and from an error message with a query string', () => {
    const { text } = logOnce((logger) =>
      logger.error('failed', { context: { cause: new TypeError(`bad body amount=1.00&card.number=${PAN}&card.cvv=987`) } }),
    );
    expect(text).not.toMatch(DIGIT_RUN);
    expect(text).not.toContain('987');
  });

  it.each([
    ['card.number', { 'card.number': PAN }],
    ['card.cvv', { 'card.cvv': '987' }],
    ['cvv', { cvv: '987' }],
    ['CVV in capitals', { CVV: '987' }],
    ['password', { password: 'hunter2-secret' }],
    ['authorization', { authorization: 'Bearer tok-secret-value' }],
    ['Authorization with Basic', { Authorization: 'Basic dXNlcjpzZWNyZXQ=' }],
    ['token', { token: 'tok-secret-value' }],
    ['accessToken', { accessToken: 'tok-secret-value' }],
    ['nested card object', { params: { card: { number: PAN, cvv: '987', holder: 'Jane Jones' } } }],
    ['headers', { request: { headers: { authorization: 'Bearer tok-secret-value', 'content-type': 'text/plain' } } }],
    ['deep', { a: { b: { c: { d: { e: { password: 'hunter2-secret' } } } } } }],
    ['in an array', { attempts: [{ token: 'tok-secret-value' }, { cvv: '987' }] }],
    ['in a Map', { params: new Map([['card.cvv', '987'], ['authentication.password', 'hunter2-secret']]) }],
  ])('redacts the value of a secret key: %s', (_label, fields) => {
    const { text } = logOnce((logger) => logger.info('request', fields));
    for (const secret of [PAN, '987', 'hunter2-secret', 'tok-secret-value', 'dXNlcjpzZWNyZXQ=']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[REDACTED]');
  });

  it('keeps the other values next to secret keys', () => {
    const { line } = logOnce((logger) =>
      logger.info('request', { card: { number: PAN, cvv: '987', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' } }),
    );
    expect(line.card).toEqual({ number: '[REDACTED]', cvv: '[REDACTED]', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' });
  });

  it.each([
    ['Bearer in text', 'calling with Authorization: Bearer abc.def-ghi_123', 'abc.def-ghi_123', 'Bearer [REDACTED]'],
    ['lowercase bearer', 'header bearer abc.def', 'abc.def', '[REDACTED]'],
    ['card.cvv in a query string', 'body card.cvv=987&x=1', 'card.cvv=987', 'card.cvv=[REDACTED]&x=1'],
    ['cvv in JSON text', 'body {"cvv":"987","x":1}', '987', '"cvv":"[REDACTED]"'],
    ['password in text', 'login password=hunter2-secret&user=a', 'hunter2-secret', 'password=[REDACTED]&user=a'],
    ['card.number in text', `card.number=${PAN.slice(0, 8)}&x=1`, PAN.slice(0, 8), 'card.number=[REDACTED]&x=1'],
  ])('redacts secrets inside text: %s', (_label, message, secret, expected) => {
    const { line, text } = logOnce((logger) => logger.info(message, { copy: message }));
    expect(text).not.toContain(secret);
    expect(line.msg).toContain(expected);
    expect(line.copy).toBe(line.msg);
  });

  it('keeps payment ids, ndcs, request ids and ordinary numbers', () => {
    const paymentId = '8ac7a4a27b4c7867017b510d33dd7188';
    const entityId = '8a8294174b7ecb28014b9699220015ca';
    const ndc = `${entityId}_d44bc3dbb35e4ed6bc6e4b2d8d3c1b9c`;
    const message = `payment ${paymentId} ndc ${ndc} amount 92.00 EUR took 12.5 ms`;
    const fields = {
      id: paymentId,
      ndc,
      path: `/v1/payments/${paymentId}`,
      amount: '92.00',
      amountMinor: 9200,
      bigAmount: '9999999999.99',
      durationMs: 12.3,
      status: 200,
      count: 1000,
      zero: 0,
      negative: -5,
      ratio: 0.25,
      bin: '420000',
      last4Digits: '0000',
      expiryYear: '2034',
      timestamp: '2026-11-21 10:04:05.123+0000',
      date: '2026-11-21',
      shortId: '1234.5678.9012',
      code: '000.100.110',
    };
    const { line } = logOnce((logger) => logger.info(message, fields));
    expect(line.msg).toBe(message);
    const { msg: _msg, time: _time, level: _level, ...kept } = line;
    expect(kept).toEqual(fields);
  });

  it('keeps any 32-hex id and any ndc (property)', () => {
    const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/);
    fc.assert(
      fc.property(hex32, hex32, (entityId, id) => {
        const ndc = `${entityId}_${id}`;
        expect(redactText(`payment ${id} ndc ${ndc}`)).toBe(`payment ${id} ndc ${ndc}`);
      }),
      { numRuns: 500 },
    );
  });

  it('redacts any 12 to 19 digit number, however grouped (property)', () => {
    const pan = fc
      .array(fc.integer({ min: 0, max: 9 }), { minLength: 12, maxLength: 19 })
      .chain((digits) =>
        fc
          .array(fc.constantFrom('', '', '', ' ', '-'), { minLength: digits.length - 1, maxLength: digits.length - 1 })
          .map((separators) => digits.map((digit, index) => `${index === 0 ? '' : separators[index - 1]}${digit}`).join('')),
      );
    fc.assert(
      // Digits glued to letters are left alone on purpose (they are part of ids such as 32-hex payment ids).
      fc.property(pan, fc.constantFrom(' ', '=', ':', '"', '(', '\n', '_', '/'), (number, before) => {
        const { text } = logOnce((logger) => logger.info(`card${before}${number} declined`, { card: `x ${number} y` }));
        expect(text).not.toContain(number);
        expect(text).not.toMatch(DIGIT_RUN);
      }),
      { numRuns: 300 },
    );
  });
});

describe('card numbers glued to other text', () => {
  it.each([
    ['card4200000000000000', 'card[REDACTED-PAN]'],
    ['card.number%3D4200000000000000%26x', 'card.number%3D[REDACTED-PAN]%26x'],
    ['x4200000000000000y', 'x[REDACTED-PAN]y'],
  ])('redacts %s', (text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it('keeps long hex identifiers whole, whatever digit runs they hold', () => {
    const paymentId = '8ac7a4a27b4c7867017b510d33dd7188';
    const digitHeavyId = '4200000000000000a00000000000000b';
    const tokenHash = `${'1234567890123'.repeat(4)}abcdef0123ab`;
    for (const identifier of [paymentId, digitHeavyId, tokenHash]) expect(redactText(`id=${identifier}`)).toBe(`id=${identifier}`);
  });
});
