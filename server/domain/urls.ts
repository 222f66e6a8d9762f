/**
 * The one definition of a URL the gateway will send a browser or a call to: absolute, http or https, and
 * without credentials in it. Callers phrase the refusal for their own audience.
 */
export type HttpUrlCheck =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly problem: 'notAbsolute' | 'credentials' }
  | { readonly ok: false; readonly problem: 'scheme'; readonly scheme: string };

export function checkHttpUrl(raw: string): HttpUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'notAbsolute' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, problem: 'scheme', scheme: url.protocol.replace(/:$/, '') };
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'credentials' };
  return { ok: true, url };
}
