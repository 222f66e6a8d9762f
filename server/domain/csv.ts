/**
 * CSV cells as every file the gateway writes holds them (the reconciliation file, the back office's exports), pure.
 *
 * What a shopper or a merchant typed (a card holder on a checkout, a descriptor) reaches the merchant's spreadsheet,
 * which runs a cell beginning with `=`, `+`, `-` or `@` as a formula (`=HYPERLINK(…)`, `+cmd|' /C calc'!A0`), and
 * some do after a leading tab or carriage return. OWASP's rule for CSV injection: such a cell gets a leading `'`,
 * which spreadsheets read as "text follows" and do not show. A plain number (`-12.50`, `-3`) is left as it is, so a
 * negative amount stays a number; nothing a number spells can run.
 */

/** What a spreadsheet may take for the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number: an optional minus, digits, and a fraction after a dot. */
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

/** `cell` as a spreadsheet shows it and never runs it: with a leading `'` if it could start a formula, else as it is. */
export function spreadsheetSafe(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

const LINE_BREAK_OR_QUOTE = /["\r\n]/;

/**
 * One line of a CSV, without its line end (RFC 4180 ends lines with CRLF): each cell made spreadsheetSafe, then quoted
 * (its quotes doubled) when it holds the separator, a quote or a line break, and only then; cells joined by
 * `separator` (a comma unless told). A number is written as JavaScript writes it; null and undefined are empty cells.
 */
export function csvRow(cells: readonly (string | number | null | undefined)[], separator = ','): string {
  return cells
    .map((cell) => {
      const safe = spreadsheetSafe(cell === null || cell === undefined ? '' : String(cell));
      return LINE_BREAK_OR_QUOTE.test(safe) || safe.includes(separator) ? `"${safe.replaceAll('"', '""')}"` : safe;
    })
    .join(separator);
}
