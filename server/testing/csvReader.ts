import { expect } from 'vitest';

/**
 * An RFC 4180 reader, as a merchant's importer or a spreadsheet reads the gateway's CSV files: fields split by
 * `separator`, quotes doubled inside quoted fields, line breaks inside quotes kept; every row ends with CRLF, the
 * file's last one too.
 */
export function readCsv(text: string, separator = ';'): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === separator) {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      index++;
    } else field += char;
  }
  expect(field === '' && row.length === 0, 'the file ends with a CRLF').toBe(true);
  return rows;
}
