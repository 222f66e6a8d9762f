import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliIn } from '../cli/index.ts';
import { LOCAL_FILES } from '../cli/command.ts';
import { loadConfig, type RequestLimits } from '../config.ts';
import { dashboardClient, type DashboardAnswer, type DashboardBrowser } from '../testing/dashboardClient.ts';
import { cardPayment, createTestClock, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestClock, type TestGateway } from '../testing/harness.ts';
import { createOperator } from './operators.ts';
import { TOTP_PERIOD_SECONDS, totpCode } from './secondFactor.ts';

/**
 * Merchant users and the second factor, on a gateway that asks for it as a started one does: an operator enrols at
 * the first sign-in and gives a code at the next; a code works once; an operator invites a merchant's admin (a
 * one-time link with an expiry), who sets a password, enrols and invites a viewer; the viewer signs in without a
 * second factor and may change nothing; roles change and users go (their sessions end); the operator resets a lost
 * second factor (dashboard and command line); every step is in the record of who did what. Codes come from the moved
 * clock, never from waiting.
 */

warnIfPostgresSkipped('the dashboard users test');

const PASSWORD = 'an operator password of length';
const ADMIN_PASSWORD = 'the merchant admin password';
const VIEWER_PASSWORD = 'the viewer password, long enough';
const STEP_MS = TOTP_PERIOD_SECONDS * 1000;

describe.each(STORE_KINDS)('merchant users and the second factor on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let other: { entityId: string; token: string };
  const secrets = new Map<string, string>();

  beforeAll(async () => {
    clock = createTestClock(new Date('2026-12-01T09:00:00Z'));
    const limits = { ...(Object.fromEntries(Object.keys(loadConfig({}).limits).map((name) => [name, 0])) as unknown as RequestLimits) };
    t = await startTestGateway(kind, { limits }, { now: clock.now, dashboardSecondFactor: 'asked' });
    other = await t.newMerchant();
    await createOperator(t.gateway.store, 'olivia', PASSWORD, clock.now());
  });
  afterAll(async () => {
    await t?.close();
  });

  const { call } = dashboardClient(() => t.url);
  const browserOf = (answer: DashboardAnswer): DashboardBrowser => {
    expect(answer.status, answer.text).toBe(200);
    const cookie = /^(gw_dashboard=[^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
    return { cookie: cookie as string, csrf: answer.body.session.csrfToken as string };
  };
  /** The second step for an account: enrols (remembering the secret) or gives the code of now. */
  const secondStep = async (account: string, first: DashboardAnswer): Promise<DashboardAnswer> => {
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('set-cookie')).toBeNull();
    const step = first.body.secondFactor as { step: string; challenge: string; secret?: string };
    if (step.step === 'enrol') secrets.set(account, step.secret as string);
    return call({}, 'POST', '/session/second-factor', { challenge: step.challenge, code: totpCode(secrets.get(account) as string, clock.now()) });
  };
  const operator = async () => {
    clock.advance(STEP_MS);
    return browserOf(await secondStep('olivia', await call({}, 'POST', '/session', { operator: 'olivia', password: PASSWORD })));
  };
  const actions = async () =>
    (await t.gateway.store.query<{ actor: string; entity_id: string | null; action: string; detail: Record<string, unknown>; result_code: string }>('SELECT actor, entity_id, action, detail, result_code FROM dashboard_actions ORDER BY id')).rows;

  it('enrols an operator at the first sign-in, asks a code at each one after, and takes each code once', async () => {
    const first = await call({}, 'POST', '/session', { operator: 'olivia', password: PASSWORD });
    expect(first.status).toBe(200);
    expect(first.body.session).toBeUndefined();
    expect(first.headers.get('set-cookie')).toBeNull();
    const enrolment = first.body.secondFactor;
    expect(enrolment).toMatchObject({ step: 'enrol', challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), secret: expect.stringMatching(/^[A-Z2-7]{32}$/) });
    expect(enrolment.uri).toBe(`otpauth://totp/Payment%20gateway:olivia?issuer=Payment%20gateway&secret=${enrolment.secret as string}&algorithm=SHA1&digits=6&period=30`);
    // The secret is sealed at rest: not in any column as text.
    const stored = await t.gateway.store.query<{ n: string }>(`SELECT count(*) AS n FROM vault_items WHERE data LIKE '%' || $1 || '%'`, [enrolment.secret]);
    expect(Number(stored.rows[0]?.n)).toBe(0);

    const wrong = await call({}, 'POST', '/session/second-factor', { challenge: enrolment.challenge, code: '000000' === totpCode(enrolment.secret, clock.now()) ? '111111' : '000000' });
    expect(wrong.status).toBe(401);
    const code = totpCode(enrolment.secret, clock.now());
    const enrolled = await call({}, 'POST', '/session/second-factor', { challenge: enrolment.challenge, code });
    const browser = browserOf(enrolled);
    expect(enrolled.body.session.principal).toEqual({ kind: 'operator', name: 'olivia' });
    expect((await call(browser, 'GET', '/session')).status).toBe(200);
    // The challenge is spent.
    expect((await call({}, 'POST', '/session/second-factor', { challenge: enrolment.challenge, code })).status).toBe(401);

    // The next sign-in asks for a code; the one just used is refused (a replay), the next step's works.
    const again = await call({}, 'POST', '/session', { operator: 'olivia', password: PASSWORD });
    expect(again.body.secondFactor).toEqual({ step: 'code', challenge: expect.any(String), expiresAt: expect.any(String) });
    const replay = await call({}, 'POST', '/session/second-factor', { challenge: again.body.secondFactor.challenge, code });
    expect(replay.status).toBe(401);
    expect(replay.body.result.description).toContain('used already');
    clock.advance(STEP_MS);
    browserOf(await call({}, 'POST', '/session/second-factor', { challenge: again.body.secondFactor.challenge, code: totpCode(enrolment.secret, clock.now()) }));
    secrets.set('olivia', enrolment.secret as string);

    // Three codes per challenge at most.
    clock.advance(STEP_MS);
    const guessed = await call({}, 'POST', '/session', { operator: 'olivia', password: PASSWORD });
    for (let guess = 0; guess < 3; guess++) {
      expect((await call({}, 'POST', '/session/second-factor', { challenge: guessed.body.secondFactor.challenge, code: `99999${guess}` })).status).toBe(401);
    }
    const late = await call({}, 'POST', '/session/second-factor', { challenge: guessed.body.secondFactor.challenge, code: totpCode(enrolment.secret, clock.now()) });
    expect(late.status).toBe(401);
    expect(late.body.result.description).toContain('expired');
    // Two wrong passwords make five attempts for the name without a sign-in (the codes three; the right password gave
    // its attempt back; the spent challenge's code counted none): the next waits (signInDelays.ts), the right password
    // too; then the right ones work.
    for (let guess = 0; guess < 2; guess++) expect((await call({}, 'POST', '/session', { operator: 'olivia', password: `not the password ${guess}` })).status).toBe(401);
    const waiting = await call({}, 'POST', '/session', { operator: 'olivia', password: PASSWORD });
    expect(waiting.status).toBe(400);
    expect(waiting.body.result.code).toBe('800.120.100');
    clock.advance(STEP_MS);
    browserOf(await secondStep('olivia', await call({}, 'POST', '/session', { operator: 'olivia', password: PASSWORD })));

    const signIns = (await actions()).filter((action) => action.action === 'sign in' && action.actor === 'operator olivia');
    expect(signIns.map((action) => [action.detail.secondFactor, action.result_code, action.entity_id])).toEqual([
      ['wrong code', '800.900.300', null],
      ['enrolled', '000.000.000', null],
      ['replayed code', '800.900.300', null],
      ['code', '000.000.000', null],
      ...Array.from({ length: 3 }, () => ['wrong code', '800.900.300', null]),
      ['code', '000.000.000', null],
    ]);
  });

  it('lets an operator invite a merchant admin, who sets a password with the one-time link, enrols and invites a viewer who may change nothing', async () => {
    const olivia = await operator();
    const invited = await call(olivia, 'POST', '/users', { entityId: t.entityId, email: 'Ada@Example.com', role: 'admin' });
    expect(invited.status, invited.text).toBe(200);
    expect(invited.body.user).toMatchObject({ email: 'ada@example.com', role: 'admin', status: 'invited', entityId: t.entityId, merchant: 'Test merchant', invitedBy: 'operator olivia' });
    const link = invited.body.invitation.link as string;
    expect(link).toMatch(new RegExp(`^${t.url}/dashboard/invitation#[A-Za-z0-9_-]{43}$`));
    expect(invited.body.invitation.expiresAt).toBe(new Date(clock.now().getTime() + 72 * 3_600_000).toISOString());
    const code = link.split('#')[1] as string;
    // Only its hash is kept.
    expect(JSON.stringify((await t.gateway.store.query('SELECT * FROM merchant_user_invitations')).rows)).not.toContain(code);

    // Not signed in yet: no password.
    expect((await call({}, 'POST', '/session', { email: 'ada@example.com', password: ADMIN_PASSWORD })).status).toBe(401);
    const shown = await call({}, 'POST', '/invitation', { code });
    expect(shown.body.invitation).toEqual({ email: 'ada@example.com', merchant: 'Test merchant', role: 'admin', expiresAt: invited.body.invitation.expiresAt });
    const short = await call({}, 'POST', '/invitation/accept', { code, password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'password' })]);
    const accepted = await call({}, 'POST', '/invitation/accept', { code, password: ADMIN_PASSWORD });
    // An admin may move money: the acceptance goes on to enrolment.
    const ada = browserOf(await secondStep('ada', accepted));
    expect((await call(ada, 'GET', '/session')).body.session).toMatchObject({
      principal: { kind: 'merchant', name: 'ada@example.com', role: 'admin', merchant: 'Test merchant' },
      entities: [{ id: t.entityId, name: 'Test merchant' }],
    });
    // The link works once.
    expect((await call({}, 'POST', '/invitation', { code })).status).toBe(401);
    expect((await call({}, 'POST', '/invitation/accept', { code, password: 'another password, long' })).status).toBe(401);

    // The admin invites a viewer of their own entity (left out: theirs); not of another.
    expect((await call(ada, 'POST', '/users', { entityId: other.entityId, email: 'eve@example.com', role: 'admin' })).status).toBe(403);
    const viewerInvited = await call(ada, 'POST', '/users', { email: 'vic@example.com', role: 'viewer' });
    expect(viewerInvited.body.user).toMatchObject({ entityId: t.entityId, role: 'viewer', invitedBy: 'user ada@example.com (Test merchant)' });
    const viewerCode = (viewerInvited.body.invitation.link as string).split('#')[1];
    // A viewer moves no money: signed in with the password alone.
    const vic = browserOf(await call({}, 'POST', '/invitation/accept', { code: viewerCode, password: VIEWER_PASSWORD }));
    const signedIn = browserOf(await call({}, 'POST', '/session', { email: 'vic@example.com', password: VIEWER_PASSWORD }));
    expect((await call(signedIn, 'GET', '/payments')).status).toBe(200);

    const payment = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA', amount: '12.00' }));
    const id = payment.body.id as string;
    expect((await call(vic, 'GET', `/payments/${id}`)).status).toBe(200);
    for (const operation of ['capture', 'refund', 'reverse']) {
      const refused = await call(vic, 'POST', `/payments/${id}/${operation}`, operation === 'reverse' ? {} : { amount: '1.00' });
      expect(refused.status).toBe(403);
      expect(refused.body.result.description).toContain('refunds');
    }
    expect((await call(vic, 'GET', '/users')).status).toBe(403);
    expect((await call(vic, 'POST', '/users', { email: 'mal@example.com', role: 'admin' })).status).toBe(403);

    // The admin makes the viewer a refunds user: the viewer's sessions end; the next sign-in enrols a second factor.
    const users = await call(ada, 'GET', '/users');
    expect(users.body.users.map((user: { email: string; role: string; status: string; secondFactor: boolean }) => [user.email, user.role, user.status, user.secondFactor])).toEqual([
      ['ada@example.com', 'admin', 'active', true],
      ['vic@example.com', 'viewer', 'active', false],
    ]);
    const vicId = users.body.users[1].id as string;
    const adaId = users.body.users[0].id as string;
    expect((await call(ada, 'PUT', `/users/${adaId}/role`, { role: 'viewer' })).status).toBe(400);
    expect((await call(ada, 'DELETE', `/users/${adaId}`)).status).toBe(400);
    expect((await call(ada, 'PUT', `/users/${vicId}/role`, { role: 'owner' })).status).toBe(400);
    const promoted = await call(ada, 'PUT', `/users/${vicId}/role`, { role: 'refunds' });
    expect(promoted.body.user).toMatchObject({ role: 'refunds' });
    expect((await call(vic, 'GET', '/session')).status).toBe(401);
    clock.advance(STEP_MS);
    const vicAgain = browserOf(await secondStep('vic', await call({}, 'POST', '/session', { email: 'vic@example.com', password: VIEWER_PASSWORD })));
    const captured = await call(vicAgain, 'POST', `/payments/${id}/capture`, { amount: '12.00' });
    expect(captured.status, captured.text).toBe(200);
    // A refunds user manages no users.
    expect((await call(vicAgain, 'GET', '/users')).status).toBe(403);

    // Another merchant's admin does not see these users.
    const theirs = await call(olivia, 'POST', '/users', { entityId: other.entityId, email: 'bob@example.com', role: 'viewer' });
    expect(theirs.status).toBe(200);
    expect((await call(ada, 'GET', `/users?entityId=${other.entityId}`)).status).toBe(403);
    expect((await call(ada, 'DELETE', `/users/${theirs.body.user.id as string}`)).status).toBe(404);
    expect((await call(olivia, 'GET', '/users')).body.users.map((user: { email: string }) => user.email).sort()).toEqual(['ada@example.com', 'bob@example.com', 'vic@example.com']);

    // The operator resets ada's second factor (a lost phone): her sessions end, the next sign-in enrols anew.
    expect((await call(ada, 'POST', `/users/${adaId}/second-factor/reset`)).status).toBe(403);
    expect((await call(olivia, 'POST', `/users/${adaId}/second-factor/reset`)).body.user).toMatchObject({ secondFactor: false });
    expect((await call(ada, 'GET', '/session')).status).toBe(401);
    clock.advance(STEP_MS);
    const reenrol = await call({}, 'POST', '/session', { email: 'ada@example.com', password: ADMIN_PASSWORD });
    expect(reenrol.body.secondFactor.step).toBe('enrol');
    const adaAgain = browserOf(await secondStep('ada', reenrol));

    // Removed: sessions end, no sign-in.
    expect((await call(adaAgain, 'DELETE', `/users/${vicId}`)).status).toBe(200);
    expect((await call(vicAgain, 'GET', '/session')).status).toBe(401);
    expect((await call({}, 'POST', '/session', { email: 'vic@example.com', password: VIEWER_PASSWORD })).status).toBe(401);

    const recorded = (await actions()).filter((action) => action.entity_id === t.entityId && action.action !== 'sign in');
    expect(recorded.map((action) => [action.actor, action.action, action.result_code])).toEqual([
      ['operator olivia', 'invite user', '000.000.000'],
      ['user ada@example.com (Test merchant)', 'accept invitation', '000.000.000'],
      ['user ada@example.com (Test merchant)', 'invite user', '000.000.000'],
      ['user vic@example.com (Test merchant)', 'accept invitation', '000.000.000'],
      ['user ada@example.com (Test merchant)', 'change user role', '000.000.000'],
      ['user vic@example.com (Test merchant)', 'capture', expect.stringMatching(/^000\./)],
      ['operator olivia', 'reset second factor', '000.000.000'],
      ['user ada@example.com (Test merchant)', 'remove user', '000.000.000'],
    ]);
    const signIns = (await actions()).filter((action) => action.entity_id === t.entityId && action.action === 'sign in');
    expect(signIns.map((action) => [action.actor, action.detail.secondFactor])).toEqual([
      ['user ada@example.com (Test merchant)', 'enrolled'],
      ['user vic@example.com (Test merchant)', 'not asked'],
      ['user vic@example.com (Test merchant)', 'not asked'],
      ['user vic@example.com (Test merchant)', 'enrolled'],
      ['user ada@example.com (Test merchant)', 'enrolled'],
    ]);
  });

  it('expires an invitation, and a new one replaces the old link', async () => {
    const olivia = await operator();
    const first = await call(olivia, 'POST', '/users', { entityId: other.entityId, email: 'late@example.com', role: 'viewer' });
    const firstCode = (first.body.invitation.link as string).split('#')[1];
    clock.advance(72 * 3_600_000 + 1000);
    expect((await call({}, 'POST', '/invitation', { code: firstCode })).status).toBe(401);
    const olivia2 = await operator();
    const again = await call(olivia2, 'POST', `/users/${first.body.user.id as string}/invitation`);
    expect(again.status, again.text).toBe(200);
    const secondCode = (again.body.invitation.link as string).split('#')[1];
    // Inviting the address again (while invited) replaces the link too, with the role asked.
    const third = await call(olivia2, 'POST', '/users', { entityId: other.entityId, email: 'late@example.com', role: 'refunds' });
    expect(third.body.user).toMatchObject({ id: first.body.user.id, role: 'refunds' });
    expect((await call({}, 'POST', '/invitation', { code: secondCode })).status).toBe(401);
    const thirdCode = (third.body.invitation.link as string).split('#')[1];
    expect((await call({}, 'POST', '/invitation', { code: thirdCode })).body.invitation).toMatchObject({ role: 'refunds' });
    // An active user's address cannot be invited again.
    expect((await call(olivia2, 'POST', '/users', { entityId: t.entityId, email: 'ada@example.com', role: 'viewer' })).status).toBe(400);
  });

  it('manages users and resets second factors from the command line, recorded', async () => {
    const io = { env: {}, progress: () => undefined, files: LOCAL_FILES };
    const cli = (...args: string[]) => runCliIn({ store: t.gateway.store, config: t.gateway.config, now: clock.now }, args, io);
    const invited = await cli('user', 'invite', 'cli@example.com', '--entity', other.entityId, '--role', 'admin');
    expect(invited.stderr).toBe('');
    expect(invited.stdout).toMatch(new RegExp(`^cli@example.com invited to Test merchant \\(${other.entityId}\\) as admin\nlink {5}${t.url}/dashboard/invitation#[A-Za-z0-9_-]{43}\nexpires  `));
    expect((await cli('user', 'invite', 'x@example.com', '--entity', other.entityId, '--role', 'owner')).exitCode).toBe(1);
    expect((await cli('user', 'list', '--entity', other.entityId)).stdout).toContain(`${other.entityId}  cli@example.com  admin  invited until`);
    expect((await cli('user', 'role', 'cli@example.com', 'viewer')).stdout).toBe('cli@example.com is viewer now; their sessions ended\n');
    expect((await cli('user', 'reset-second-factor', 'cli@example.com')).stdout).toBe('cli@example.com had no second factor enrolled\n');
    expect((await cli('user', 'remove', 'cli@example.com')).stdout).toBe('cli@example.com removed; their sessions ended\n');
    expect((await cli('user', 'remove', 'cli@example.com')).stderr).toBe('no user cli@example.com\n');

    const olivia = await operator();
    const reset = await cli('operator', 'reset-second-factor', 'olivia');
    expect(reset.stdout).toBe("operator olivia's second factor reset; their sessions ended: the next sign-in enrols a new one\n");
    expect((await call(olivia, 'GET', '/session')).status).toBe(401);
    clock.advance(STEP_MS);
    expect((await call({}, 'POST', '/session', { operator: 'olivia', password: PASSWORD })).body.secondFactor.step).toBe('enrol');
    expect((await cli('operator', 'reset-second-factor', 'nobody')).stderr).toBe('no operator nobody\n');
    expect((await actions()).filter((action) => action.actor === 'command line').map((action) => action.action)).toEqual([
      'invite user',
      'change user role',
      'reset second factor',
      'remove user',
    ]);
  });
});
