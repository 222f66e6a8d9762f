import { RESULTS } from '../domain/resultCodes.ts';
import { own, type Answer, type OperationEntry } from './entry.ts';
import type { Schema } from './parameters.ts';

/**
 * The admin API (`/admin/v1/...`: mounted only with ADMIN_TOKEN, the operator's bearer token) in the operation table.
 * Its bodies are JSON objects whose every field the route knows (http/admin.ts adminJsonBody refuses any other, naming
 * the known ones: openapi.test.ts compares those names with the bodies here).
 */

const ID = { type: 'string', pattern: '^[0-9a-f]{32}$' } as const;
const DAY = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' } as const;

/** A JSON object of these fields (and no other), `required` among them. */
function body(properties: Readonly<Record<string, Schema>>, required: readonly string[] = []): Schema {
  return { type: 'object', properties, ...(required.length > 0 ? { required: [...required] } : {}), additionalProperties: false };
}

const ok = (description: string, schema: string): Answer => ({ description, schema });
const notFound = (what: string): Answer => ({ description: `No such ${what}.`, schema: 'Envelope' });

function admin(summary: string, answers: Readonly<Record<number, Answer>>, more: Partial<OperationEntry> = {}): OperationEntry {
  return { summary, tag: 'Admin', security: 'admin', answers, ...more };
}

const ENTITY_QUERY = own('entityId', 'Only this entity’s.', ID);
const WEBHOOK_SETTINGS = {
  url: { type: 'string', description: 'HTTPS (HTTP for test entities); not a private address.' },
  types: { type: 'array', items: { enum: ['PAYMENT', 'REGISTRATION', 'SCHEDULE', 'RISK'] }, description: 'Default: all.' },
  fields: { enum: ['ALL', 'NON_CUSTOMER_DATA'], description: 'Default ALL; NON_CUSTOMER_DATA drops customer, billing, shipping, card.holder.' },
  wrapper: { enum: ['NONE', 'JSON'], description: 'Default NONE (the hex ciphertext as text/plain).' },
} as const;
const SMART_RETRY_ANSWER = ok('The settings, and whether they retry anything with the acquirers configured now.', 'SmartRetry');
const THROTTLING_ANSWER = ok('The limits in force (the entity’s own and the defaults) and its risk rules.', 'Throttling');
const BRANDS_ANSWER = ok('The brands the entity offers.', 'OfferedBrands');
const SETTLEMENT_SETTINGS_ANSWER = ok('The entity’s settlement settings.', 'SettlementSettings');
const FTP_ANSWER = ok('The FTP settings (null: none).', 'FtpSettings');
const ROUTING_ANSWER = ok('The rules in the order they are tried, the default acquirer and the acquirers there are.', 'Routing');
const CREDENTIALS_ANSWER = ok('Whether the entity’s credentials at the connector are set, the provider’s entity id and when: never the token.', 'AcquirerCredentials');
const APPLE_PAY_ANSWER = ok('Whether the entity’s Apple Pay merchant identity is set: its identifier, display name, domains, the certificate’s subject and expiry; never the certificate or its key.', 'ApplePayIdentity');
const CLICK_TO_PAY_ANSWER = ok('The entity’s Click to Pay settings: per network its registration, SDK and signing key (public), the key id; never the private key.', 'ClickToPaySettings');
/** An entity's registration with one card network's SRC system (PUT …/clickToPay: `mastercard`, `visa`). */
const SRC_NETWORK_SETTINGS = body(
  {
    srcDpaId: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$', description: 'The DPA id the network registered.' },
    srcInitiatorId: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$', description: 'The SRC initiator id the network gave.' },
    signingKey: { type: 'string', description: 'The network’s public key (PEM key or certificate) its checkout responses are signed with.' },
    sdkUrl: { type: 'string', description: 'The SDK the widget loads; default the network’s production SDK. https (http only on loopback).' },
  },
  ['srcDpaId', 'srcInitiatorId', 'signingKey'],
);
const ENTITY_OR_CONNECTOR_NOT_FOUND = { 404: notFound('entity, or no connector of that name') };
const ROUTING_RULE: Schema = {
  type: 'object',
  properties: {
    acquirer: { type: 'string', description: 'A name of ACQUIRERS.' },
    brands: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'The payment’s brand is one of these.' },
    currencies: { type: 'array', items: { type: 'string', pattern: '^[A-Z]{3}$' }, minItems: 1 },
    minAmount: { type: 'string', description: 'The amount is at least this ("100.00").' },
    maxAmount: { type: 'string', description: 'The amount is at most this.' },
  },
  required: ['acquirer'],
  additionalProperties: false,
};
const ENTITY_NOT_FOUND = { 404: notFound('entity') };
const CONFLICT: Answer = { description: 'The state does not allow it: nothing changed.', schema: 'Envelope' };

export const ADMIN_OPERATIONS: Readonly<Record<string, OperationEntry>> = {
  'POST /admin/v1/webhooks': admin('Create a webhook and send its activation message', { 201: ok('The webhook, its secret (this once) and the activation’s answer.', 'WebhookCreated'), 404: notFound('entity') }, {
    json: body({ entityId: ID, ...WEBHOOK_SETTINGS, secret: { type: 'string', pattern: '^[0-9a-fA-F]{64}$', description: 'Default: a new one.', writeOnly: true } }, ['entityId', 'url']),
  }),
  'GET /admin/v1/webhooks': admin('List webhooks', { 200: ok('The webhooks.', 'WebhookList') }, { query: [ENTITY_QUERY] }),
  'POST /admin/v1/webhooks/deliveries/:deliveryId/resend': admin('Send a delivery again', { 202: ok('Scheduled.', 'ResendScheduled'), 404: notFound('delivery') }),
  'GET /admin/v1/webhooks/:id': admin('Read a webhook', { 200: ok('The webhook.', 'WebhookAnswer'), 404: notFound('webhook') }),
  'PATCH /admin/v1/webhooks/:id': admin('Change a webhook', { 200: ok('The webhook, and the activation’s answer when it was (re)activated.', 'WebhookAnswer'), 404: notFound('webhook') }, {
    json: body({ ...WEBHOOK_SETTINGS, active: { type: 'boolean', description: 'true sends the activation message again.' } }),
  }),
  'DELETE /admin/v1/webhooks/:id': admin('Remove a webhook', { 200: ok('The webhook removed.', 'WebhookAnswer'), 404: notFound('webhook') }),
  'POST /admin/v1/webhooks/:id/test': admin('Send the activation message again', { 200: ok('The webhook and the activation’s answer.', 'WebhookAnswer'), 404: notFound('webhook') }),
  'GET /admin/v1/webhooks/:id/deliveries': admin('A webhook’s delivery log', { 200: ok('The deliveries, newest first, with every attempt.', 'WebhookDeliveries'), 404: notFound('webhook') }, {
    query: [own('limit', 'Default 50.', { type: 'string', pattern: '^[0-9]{1,7}$', description: '1 to 1000.' })],
  }),
  'GET /admin/v1/entities/:entityId/smart-retry': admin('An entity’s smart-retry settings', { 200: SMART_RETRY_ANSWER, ...ENTITY_NOT_FOUND }),
  'PUT /admin/v1/entities/:entityId/smart-retry': admin('Replace an entity’s smart-retry settings', { 200: SMART_RETRY_ANSWER, ...ENTITY_NOT_FOUND }, {
    json: body({
      enabled: { type: 'boolean' },
      codes: { anyOf: [{ type: 'array', items: { type: 'string' } }, { const: 'default' }], description: 'The soft-reject codes, or "default".' },
      standalone: { type: 'boolean' },
      cardOnFile: { type: 'boolean' },
      fallbackAcquirer: { type: 'string' },
    }),
  }),
  'DELETE /admin/v1/entities/:entityId/smart-retry': admin('Switch smart retry off', { 200: SMART_RETRY_ANSWER, ...ENTITY_NOT_FOUND }),
  'GET /admin/v1/entities/:entityId/throttling': admin('An entity’s request limits and risk rules', { 200: THROTTLING_ANSWER, ...ENTITY_NOT_FOUND }),
  'PUT /admin/v1/entities/:entityId/throttling': admin('Replace an entity’s own limits and risk rules', { 200: THROTTLING_ANSWER, ...ENTITY_NOT_FOUND }, {
    json: body({ limits: { type: 'object', additionalProperties: { type: 'integer' } }, risk: { type: 'object' } }),
  }),
  'DELETE /admin/v1/entities/:entityId/throttling': admin('Put an entity back on the default limits, without rules', { 200: THROTTLING_ANSWER, ...ENTITY_NOT_FOUND }),
  'GET /admin/v1/entities/:entityId/brands': admin('The brands an entity offers', { 200: BRANDS_ANSWER, ...ENTITY_NOT_FOUND }),
  'PUT /admin/v1/entities/:entityId/brands': admin('Replace the brands an entity offers', { 200: BRANDS_ANSWER, ...ENTITY_NOT_FOUND }, {
    json: body({ brands: { type: 'array', items: { type: 'string' } } }, ['brands']),
  }),
  'DELETE /admin/v1/entities/:entityId/brands': admin('Restore the environment’s default brands', { 200: BRANDS_ANSWER, ...ENTITY_NOT_FOUND }),
  'GET /admin/v1/entities/:entityId/routing': admin('An entity’s routing rules', { 200: ROUTING_ANSWER, ...ENTITY_NOT_FOUND }),
  'PUT /admin/v1/entities/:entityId/routing': admin('Replace an entity’s routing rules', { 200: ROUTING_ANSWER, ...ENTITY_NOT_FOUND }, {
    json: body({ rules: { type: 'array', items: ROUTING_RULE, maxItems: 100, description: 'Tried in order: the first whose conditions all hold names the acquirer.' } }, ['rules']),
  }),
  'DELETE /admin/v1/entities/:entityId/routing': admin('Remove an entity’s routing rules (every payment to the default acquirer)', { 200: ROUTING_ANSWER, ...ENTITY_NOT_FOUND }),
  'GET /admin/v1/entities/:entityId/acquirers': admin('An entity’s credentials at each connector', { 200: ok('Each connector’s: set or not, the provider’s entity id, when; never the token.', 'AcquirerCredentialsList'), ...ENTITY_NOT_FOUND }),
  'GET /admin/v1/entities/:entityId/acquirers/:name': admin('An entity’s credentials at one connector', { 200: CREDENTIALS_ANSWER, ...ENTITY_OR_CONNECTOR_NOT_FOUND }),
  'PUT /admin/v1/entities/:entityId/acquirers/:name': admin('Set or replace an entity’s credentials at a connector', { 200: CREDENTIALS_ANSWER, ...ENTITY_OR_CONNECTOR_NOT_FOUND }, {
    json: body({
      entityId: { type: 'string', pattern: '^[\\x21-\\x7e]{1,64}$', description: 'The merchant’s entity id at the provider.' },
      accessToken: { type: 'string', pattern: '^[\\x21-\\x7e]{8,512}$', writeOnly: true, description: 'The provider’s access token: sealed, never shown again.' },
    }, ['entityId', 'accessToken']),
  }),
  'DELETE /admin/v1/entities/:entityId/acquirers/:name': admin('Remove an entity’s credentials at a connector', { 200: CREDENTIALS_ANSWER, ...ENTITY_OR_CONNECTOR_NOT_FOUND }),
  'GET /admin/v1/entities/:entityId/applePay': admin('An entity’s Apple Pay merchant identity', { 200: APPLE_PAY_ANSWER, ...ENTITY_NOT_FOUND }),
  'PUT /admin/v1/entities/:entityId/applePay': admin('Set or replace an entity’s Apple Pay merchant identity', { 200: APPLE_PAY_ANSWER, ...ENTITY_NOT_FOUND }, {
    description: 'What Apple Pay’s merchant validation (POST /v1/wallets/applepay/session) uses for the entity’s checkouts. The certificate and key are sealed in the vault and never shown again.',
    json: body({
      merchantIdentifier: { type: 'string', pattern: '^merchant\\.[\\x21-\\x7e]{1,120}$', description: 'The merchant identifier registered with Apple.' },
      displayName: { type: 'string', minLength: 1, maxLength: 64, description: 'Sent to Apple when the page gives none; default: the page’s domain.' },
      domains: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 99, description: 'The page domains registered and verified with Apple for the identifier (host names).' },
      certificate: { type: 'string', description: 'The Apple Pay Merchant Identity certificate, PEM.' },
      privateKey: { type: 'string', writeOnly: true, description: 'Its private key, PEM, unencrypted: sealed, never shown again.' },
    }, ['merchantIdentifier', 'domains', 'certificate', 'privateKey']),
  }),
  'DELETE /admin/v1/entities/:entityId/applePay': admin('Remove an entity’s Apple Pay merchant identity', { 200: APPLE_PAY_ANSWER, ...ENTITY_NOT_FOUND }),
  'GET /admin/v1/entities/:entityId/clickToPay': admin('An entity’s Click to Pay with the networks', { 200: CLICK_TO_PAY_ANSWER, ...ENTITY_NOT_FOUND }),
  'PUT /admin/v1/entities/:entityId/clickToPay': admin('Set or replace an entity’s Click to Pay with the networks', { 200: CLICK_TO_PAY_ANSWER, ...ENTITY_NOT_FOUND }, {
    description: 'What the widget initialises the networks’ SRC SDKs with (POST /v1/checkouts/{id}/clickToPay/session) and what opens their checkout responses: per network the DPA registration, SDK and signing key, and the entity’s RSA decryption key (sealed in the vault, never shown again). At least one network.',
    json: body({
      mastercard: SRC_NETWORK_SETTINGS,
      visa: SRC_NETWORK_SETTINGS,
      keyId: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$', description: 'The key id (kid) the networks know the entity’s public key by.' },
      privateKey: { type: 'string', writeOnly: true, description: 'The entity’s RSA private key (2048 bits or more), PEM, unencrypted: sealed, never shown again.' },
      dpaName: { type: 'string', minLength: 1, maxLength: 60, description: 'The shop’s name the networks show.' },
    }, ['keyId', 'privateKey']),
  }),
  'DELETE /admin/v1/entities/:entityId/clickToPay': admin('Remove an entity’s Click to Pay with the networks', { 200: CLICK_TO_PAY_ANSWER, ...ENTITY_NOT_FOUND }),
  'GET /admin/v1/entities/:entityId/integrationReport': admin('An entity’s integration report', { 200: ok('What its integration leans on that a live provider may refuse or has retired, what it never tested, its failing webhook receivers (the last 30 days).', 'IntegrationReportAnswer'), ...ENTITY_NOT_FOUND }),
  'POST /admin/v1/payments/:paymentId/settlement': admin('Settle a waiting asynchronous payment (test)', {
    200: ok('The payment as it is then.', 'SettledPayment'),
    404: notFound('waiting payment'),
    409: CONFLICT,
  }, { json: body({ outcome: { enum: ['approved', 'declined'] } }, ['outcome']), codes: [RESULTS.unsupportedPaymentMethod] }),
  'POST /admin/v1/credentials': admin('Issue a legacy credentials pair', { 201: ok('The pair, with its password this once.', 'CredentialsAnswer'), 404: notFound('entity') }, {
    json: body({ entityIds: { anyOf: [ID, { type: 'array', items: ID }] }, label: { type: 'string', maxLength: 200 } }, ['entityIds']),
  }),
  'GET /admin/v1/credentials': admin('List legacy credentials', { 200: ok('The pairs, never a password.', 'CredentialsList') }, { query: [ENTITY_QUERY] }),
  'DELETE /admin/v1/credentials/:userId': admin('Revoke a legacy credentials pair', { 200: ok('The pair revoked.', 'CredentialsAnswer'), 404: notFound('active pair') }),
  'POST /admin/v1/entities': admin('Create an entity with an access token', { 201: ok('The entity, and its token this once.', 'EntityCreated'), 409: { description: 'An entity of that id exists.', schema: 'Envelope' } }, {
    json: body({ name: { type: 'string', minLength: 1, maxLength: 200 }, id: ID, resultUrlBase: { type: 'string' } }),
  }),
  'GET /admin/v1/entities': admin('List entities', { 200: ok('The entities.', 'EntityList') }),
  'POST /admin/v1/tokens': admin('Grant an access token', { 201: ok('The token, this once.', 'TokenCreated'), 404: notFound('entity') }, {
    json: body({ entityIds: { anyOf: [ID, { type: 'array', items: ID }] }, label: { type: 'string', minLength: 1, maxLength: 200 } }, ['entityIds']),
  }),
  'GET /admin/v1/tokens': admin('List access tokens (ids only)', { 200: ok('The tokens.', 'TokenList') }, { query: [ENTITY_QUERY] }),
  'DELETE /admin/v1/tokens/:tokenId': admin('Revoke an access token', { 200: ok('Revoked.', 'TokenRevoked'), 404: notFound('active token') }),
  'GET /admin/v1/entities/:entityId/settlement': admin('An entity’s settlement settings', { 200: SETTLEMENT_SETTINGS_ANSWER, ...ENTITY_NOT_FOUND }),
  'PUT /admin/v1/entities/:entityId/settlement': admin('Replace an entity’s settlement settings', { 200: SETTLEMENT_SETTINGS_ANSWER, ...ENTITY_NOT_FOUND }, {
    json: body({
      currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'Default: each transaction’s own.' },
      unmatchedRecords: { type: 'integer', minimum: 0, description: 'Test records the simulated feed adds.' },
      duplicateRecords: { type: 'integer', minimum: 0 },
    }),
  }),
  'DELETE /admin/v1/entities/:entityId/settlement': admin('Reset an entity’s settlement settings', { 200: SETTLEMENT_SETTINGS_ANSWER, ...ENTITY_NOT_FOUND }),
  'POST /admin/v1/settlements/runs': admin('Run the simulated settlement of a day (test)', { 200: ok('The run and the settlements it wrote.', 'SettlementRun') }, {
    json: body({ date: DAY }, ['date']),
  }),
  'GET /admin/v1/settlements': admin('A day’s settlements, every entity’s', { 200: ok('The settlements.', 'SettlementList') }, {
    query: [own('date', 'The settlement day.', DAY, true), ENTITY_QUERY],
  }),
  'GET /admin/v1/entities/:entityId/reconciliation/ftp': admin('An entity’s FTP settings for its reconciliation file', { 200: FTP_ANSWER, ...ENTITY_NOT_FOUND }),
  'PUT /admin/v1/entities/:entityId/reconciliation/ftp': admin('Replace an entity’s FTP settings', { 200: FTP_ANSWER, ...ENTITY_NOT_FOUND }, {
    json: body({
      host: { type: 'string' },
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      username: { type: 'string' },
      password: { type: 'string', writeOnly: true },
      folder: { type: 'string' },
      explicitTls: { type: 'boolean' },
      passive: { type: 'boolean' },
      tlsCertificate: { type: 'string', description: 'PEM: the server’s certificate to trust.' },
    }),
  }),
  'DELETE /admin/v1/entities/:entityId/reconciliation/ftp': admin('Remove an entity’s FTP settings', { 200: FTP_ANSWER, ...ENTITY_NOT_FOUND }),
  'GET /admin/v1/entities/:entityId/reconciliation/files': admin('An entity’s reconciliation files, newest first', { 200: ok('The files of the span.', 'ReconciliationFiles'), ...ENTITY_NOT_FOUND }, {
    query: [own('from', 'Default: 30 days before to.', DAY), own('to', 'Default: today; at most 366 days after from.', DAY)],
  }),
  'GET /admin/v1/entities/:entityId/reconciliation/files/:date': admin('One day’s reconciliation file', { 200: ok('The file.', 'ReconciliationFile'), 404: notFound('entity or file') }),
  'POST /admin/v1/entities/:entityId/reconciliation/files/:date/resend': admin('Send a day’s reconciliation file again', { 200: ok('The file, to be sent again.', 'ReconciliationFile'), ...ENTITY_NOT_FOUND }),
  'GET /admin/v1/entities/:entityId/reconciliation/files/:date/csv': admin('A day’s reconciliation file itself', { 200: { description: 'The CSV (`;`-separated, a header row).', contentType: 'text/csv' }, ...ENTITY_NOT_FOUND }),
  'GET /admin/v1/reconciliation/files': admin('One day’s reconciliation files of every entity', { 200: ok('A page of the files, by entity id; next when there may be more.', 'ReconciliationFiles') }, {
    query: [
      own('date', 'The settlement day.', DAY, true),
      own('status', 'Only files in this state.', { enum: ['pending', 'retrying', 'uploaded', 'failed'] }),
      own('after', 'The entity id to continue after (next).', ID),
      own('limit', 'Default 100.', { type: 'string', pattern: '^[0-9]{1,7}$', description: '1 to 1000.' }),
    ],
  }),
  'POST /admin/v1/commands': admin('Run an operator command in this gateway', {
    200: { description: 'A stream of JSON lines: progress, the files the command writes, and its result (exit code, output) last. A refused command is a result with exit code 1.', contentType: 'application/x-ndjson' },
  }, { json: body({ args: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 64 }, files: { type: 'object', additionalProperties: { type: 'string' } } }, ['args']) }),
};
