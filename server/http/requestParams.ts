import type { Context, MiddlewareHandler } from 'hono';
import { invalidParameters } from '../domain/errors.ts';
import { mergeForms, parseForm, type ParsedForm } from './form.ts';
import type { AppEnv } from './context.ts';
import { readBody } from './body.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function queryOf(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return '';
  const hash = url.indexOf('#', start);
  return url.slice(start + 1, hash === -1 ? undefined : hash);
}

function contentTypeProblem(contentType: string | undefined): string | undefined {
  if (contentType === undefined || contentType.trim() === '') return undefined;
  const [mediaType, ...attributes] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/x-www-form-urlencoded') {
    return 'must be application/x-www-form-urlencoded; charset=UTF-8';
  }
  const charset = attributes.find((attribute) => attribute.startsWith('charset='));
  if (charset && charset.replace(/^charset=/, '').replace(/"/g, '') !== 'utf-8') return 'charset must be UTF-8';
  return undefined;
}

async function readForm(c: Context<AppEnv>): Promise<ParsedForm> {
  const contentType = c.req.header('content-type');
  const problem = contentTypeProblem(contentType);
  if (problem) {
    throw invalidParameters([{ name: 'Content-Type', value: contentType ?? '', message: problem }]);
  }
  const bytes = await readBody(c);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalidParameters([{ name: 'body', value: '', message: 'is not valid UTF-8' }]);
  }
  return parseForm(text);
}

/**
 * Reads the request's parameters: the query string, and on POST and DELETE the form body too. A name sent twice,
 * a forbidden name or malformed encoding is a 400 with parameterErrors before any handler runs.
 */
export const requestParams: MiddlewareHandler<AppEnv> = async (c, next) => {
  const fromQuery = parseForm(queryOf(c.req.url));
  // DELETE /v1/registrations/{id} takes its parameters in a form body too (COMPAT §10).
  const parsed = c.req.method === 'POST' || c.req.method === 'DELETE' ? mergeForms(fromQuery, await readForm(c)) : fromQuery;
  if (parsed.errors.length > 0) throw invalidParameters(parsed.errors);
  c.set('params', parsed.params);
  await next();
};
