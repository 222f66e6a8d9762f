import { describe, expect, it } from 'vitest';
import { csvRow, spreadsheetSafe } from './csv.ts';

/**
 * CSV cells a spreadsheet opens as text, never as a formula (OWASP's CSV injection rule): a cell that begins with
 * `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`; a plain number (a negative amount) stays a number.
 */

describe('spreadsheetSafe', () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `'=HYPERLINK("http://x","y")`],
    ["+cmd|' /C calc'!A0", `'+cmd|' /C calc'!A0`],
    ['-2+3+cmd|\' /C calc\'!A0', `'-2+3+cmd|' /C calc'!A0`],
    ['@SUM(1,2)', `'@SUM(1,2)`],
    ['\t=1+1', `'\t=1+1`],
    ['\r=1+1', `'\r=1+1`],
    ['-', `'-`],
    ['+', `'+`],
    ['-12.50e3', `'-12.50e3`],
    ['- 3', `'- 3`],
    ['-3,5', `'-3,5`],
    ['+12.50', `'+12.50`],
    ['-0x10', `'-0x10`],
  ])('neutralises %j', (cell, safe) => {
    expect(spreadsheetSafe(cell)).toBe(safe);
  });

  it.each(['-12.50', '-3', '-0.05', '12.50', '0', '1500.00', 'Jane Jones', '1234.5678.9012 Shop', '', ' =not first', "'=already quoted", 'a=b', '0.9134'])(
    'keeps %j as it is',
    (cell) => {
      expect(spreadsheetSafe(cell)).toBe(cell);
    },
  );
});

describe('csvRow', () => {
  it('joins cells with a comma by default, numbers as numbers, null and undefined empty', () => {
    expect(csvRow(['a', -12.5, 3, null, undefined, '-12.50', 'b'])).toBe('a,-12.5,3,,,-12.50,b');
  });

  it('takes another separator, and quotes exactly the cells holding it, a quote or a line break (RFC 4180)', () => {
    expect(csvRow(['a;b', 'a,b', 'say "hi"', 'two\r\nlines', 'lf\n', 'plain'], ';')).toBe('"a;b";a,b;"say ""hi""";"two\r\nlines";"lf\n";plain');
    expect(csvRow(['a;b', 'a,b'])).toBe('a;b,"a,b"');
  });

  it('neutralises every cell before quoting it', () => {
    expect(csvRow(['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", '-12.50', '\r=1'], ';')).toBe(
      `"'=HYPERLINK(""http://x"",""y"")";'+cmd|' /C calc'!A0;-12.50;"'\r=1"`,
    );
  });
});
