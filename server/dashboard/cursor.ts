import { RESOURCE_ID } from '../domain/ids.ts';

/**
 * Where a page of a dashboard list starts: after the row of this time (as the store writes it, to the microsecond) and
 * id. Given out opaque to the page: base64url of "<time>|<id>"; a cursor the lists did not give is refused.
 */
export interface ListCursor {
  readonly at: string;
  readonly id: string;
}

export const encodeCursor = (cursor: ListCursor): string => Buffer.from(`${cursor.at}|${cursor.id}`).toString('base64url');

export function decodeCursor(text: string): ListCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return undefined;
  const [at = '', id = ''] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  return /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/.test(at) && RESOURCE_ID.test(id) ? { at, id } : undefined;
}
