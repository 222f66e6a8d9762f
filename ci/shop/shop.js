// A shop's checkout, as small as it gets: its server creates the checkout with its credentials, its page loads the
// widget for it, and its result page reads the payment's outcome server to server. GATEWAY_URL, GATEWAY_ENTITY_ID and
// GATEWAY_TOKEN name the gateway and the merchant (in tests: the CI gateway and its demo merchant).
import { createServer } from 'node:http';

const gateway = process.env.GATEWAY_URL ?? 'http://localhost:8080';
const entityId = process.env.GATEWAY_ENTITY_ID ?? '8ac7a4c79394bdc801939736f17e063d';
const token = process.env.GATEWAY_TOKEN ?? 'OGFjN2E0Yzc5Mzk0YmRjODAxOTM5NzM2ZjFhNzA2NDF8ZGVtby1tZXJjaGFudA==';
const port = Number(process.env.SHOP_PORT ?? 3000);

async function call(method, path, form) {
  const response = await fetch(`${gateway}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  return response.json();
}

const page = (title, body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

createServer(async (request, response) => {
  const url = new URL(request.url ?? '/', `http://localhost:${port}`);
  if (url.pathname === '/') {
    const checkout = await call('POST', '/v1/checkouts', { entityId, amount: '49.00', currency: 'EUR', paymentType: 'DB' });
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page('Checkout', `<h1>Pay for your order</h1>
<script src="${gateway}/v1/paymentWidgets.js?checkoutId=${checkout.id}"></script>
<form action="http://localhost:${port}/result" class="paymentWidgets" data-brands="VISA MASTER"></form>`));
  } else if (url.pathname === '/result') {
    const payment = await call('GET', `${url.searchParams.get('resourcePath')}?entityId=${entityId}`);
    const paid = /^(000\.000\.|000\.100\.1|000\.[36])/.test(payment.result?.code ?? '');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page('Result', `<h1>${paid ? 'Thank you for your order' : 'The payment did not go through'}</h1><p id="code">${payment.result?.code}</p><p id="payment">${payment.id}</p>`));
  } else {
    response.writeHead(404).end();
  }
}).listen(port, '127.0.0.1');
