/**
 * What 3-D Secure 2 needs to know about the shopper's browser, added to every payment the widget submits
 * (card and redirect brands). Sent with the payment only, never as inputs in the page's form. The gateway
 * adds `customer.browser.acceptHeader` itself, from the request.
 */
export function browserFields(): [string, string][] {
  const screenInfo = typeof screen === 'undefined' ? undefined : screen;
  const fields: [string, string | number | undefined][] = [
    ['customer.browser.language', (navigator.language || 'en').slice(0, 8)],
    ['customer.browser.screenHeight', screenInfo?.height],
    ['customer.browser.screenWidth', screenInfo?.width],
    ['customer.browser.timezone', new Date().getTimezoneOffset()],
    ['customer.browser.javaEnabled', 'false'],
    ['customer.browser.screenColorDepth', screenInfo?.colorDepth],
    ['customer.browser.userAgent', navigator.userAgent.slice(0, 2048)],
  ];
  return fields
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([name, value]) => [name, String(value)]);
}

/** The form's fields plus the browser data; a field the form already has (a merchant's own) is kept as it is. */
export function withBrowserData(fields: readonly [string, string][]): [string, string][] {
  const present = new Set(fields.map(([name]) => name));
  return [...fields, ...browserFields().filter(([name]) => !present.has(name))];
}
