import { createHash, randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { AppDependencies } from '../deps.ts';
import { adminJsonBody } from '../http/admin.ts';
import { guardAuthentication } from '../http/access.ts';
import { clientAddressOf } from '../http/clientAddress.ts';
import type { AppEnv } from '../http/context.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { actorOf, sameOriginProblem, sessionCookie, signInRequired } from './access.ts';
import { ok, sessionBody } from './api.ts';
import { recordAction } from './audit.ts';
import { authenticateOperator } from './operators.ts';
import { dropChallenge, enrol, enrolledSecretId, newTotpSecret, openSecret, sealSecret, stepOfCode, takeStep, totpUri, type SecondFactorAccount } from './secondFactor.ts';
import { liveSession, openSession } from './sessions.ts';
import { accountKey, admitAttempt, forgetAttempts, refundAttempt } from './signInDelays.ts';
import { acceptInvitation, authenticateUser, findInvitation, findUser, movesMoney, UserRefused, type MerchantUser } from './users.ts';

/**
 * Signing in to the dashboard (/dashboard/api): an operator's name, or a merchant user's e-mail address, and password
 * (POST /session); then, for anyone who may move money (operators; users with the role refunds or admin), the second
 * factor (POST /session/second-factor): at the first sign-in its enrolment — a new TOTP secret shown as an otpauth://
 * URI and as text, confirmed by a code of it — afterwards a code at each sign-in, each code accepted once. Between the
 * two steps the browser holds a challenge (random, ten minutes, three codes), never a session. An invitation's code
 * (POST /invitation, POST /invitation/accept) lets an invited user set their password, then go on as after a right
 * password.
 *
 * Every failure counts against the address (guardAuthentication: 400 800.120.100 past the limit) and every attempt
 * against the account name before any password is hashed or code checked (signInDelays.ts); a full sign-in forgets
 * the account's count. Sign-ins and refused codes of a known account are recorded (audit.ts).
 */

/** How long the challenge between the password and the code lasts: time to install an authenticator app. */
export const CHALLENGE_TTL_MS = 10 * 60_000;
/** Codes one challenge may be tried with (then the password again). */
export const CODES_PER_CHALLENGE = 3;

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/** Who typed a right password: an operator, or a merchant user. */
type SignedInAccount = { readonly kind: 'operator'; readonly id: string; readonly name: string } | { readonly kind: 'user'; readonly user: MerchantUser };

const factorAccount = (account: SignedInAccount): SecondFactorAccount => (account.kind === 'operator' ? { kind: 'operator', id: account.id } : { kind: 'user', id: account.user.id });
const keyOf = (account: SignedInAccount): string => (account.kind === 'operator' ? accountKey('operator', account.name) : accountKey('user', account.user.email));
const actorOfAccount = (account: SignedInAccount): string =>
  account.kind === 'operator' ? `operator ${account.name}` : actorOf({ kind: 'merchant', userId: account.user.id, name: account.user.email, role: account.user.role, merchantName: account.user.entityName, entityIds: new Set([account.user.entityId]) });
const entityOfAccount = (account: SignedInAccount): string | null => (account.kind === 'operator' ? null : account.user.entityId);

interface ChallengeRow {
  operator_id: string | null;
  operator_name: string | null;
  user_id: string | null;
  enrol_secret_id: string | null;
  codes_tried: number;
}

export function signInApiRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, config } = deps;
  const { vault } = deps.payments;
  const secure = new URL(config.publicUrl).protocol === 'https:';
  const secondFactorAsked = deps.dashboardSecondFactor !== 'notAsked';

  /** The request's origin and JSON body checked; the guard of the address's failures. */
  const begin = (c: Context<AppEnv>) => {
    const problem = sameOriginProblem(c, config.publicUrl);
    if (problem) throw new GatewayError(withReason(RESULTS.invalidAuthentication, `${problem} is refused`), 403);
    if (!(c.req.header('content-type') ?? '').startsWith('application/json')) {
      throw invalidParameters([{ name: 'Content-Type', value: '', message: 'must be application/json' }]);
    }
    return guardAuthentication(deps.authFailures, clientAddressOf(c, config.clientAddressHeader), deps.now);
  };
  const refused = (reason: string) => new GatewayError(withReason(RESULTS.invalidAuthentication, reason), 401);

  /** A session for the account: the cookie set, the session answered; the sign-in recorded. */
  async function signedIn(c: Context<AppEnv>, account: SignedInAccount, secondFactor: 'not asked' | 'code' | 'enrolled'): Promise<Response> {
    const now = deps.now();
    await forgetAttempts(store, keyOf(account));
    const opened = await openSession(store, account.kind === 'operator' ? { operatorId: account.id } : { userId: account.user.id }, now);
    await recordAction(store, { actor: actorOfAccount(account), entityId: entityOfAccount(account), action: 'sign in', detail: { secondFactor }, resultCode: '000.000.000', at: now });
    const session = await liveSession(store, opened.cookieValue, now);
    if (!session) throw signInRequired();
    return ok(c, await sessionBody(deps, session), { 'set-cookie': sessionCookie(opened.cookieValue, secure) });
  }

  /**
   * After a right password: a session at once for whoever may not move money; else a challenge for the second
   * factor — a code of the enrolled secret, or the enrolment of a new one (shown here, once).
   */
  async function afterPassword(c: Context<AppEnv>, account: SignedInAccount): Promise<Response> {
    const needsFactor = secondFactorAsked && (account.kind === 'operator' || movesMoney(account.user.role));
    if (!needsFactor) return signedIn(c, account, 'not asked');
    const now = deps.now();
    await refundAttempt(store, keyOf(account), now);
    const factor = factorAccount(account);
    const enrolled = await enrolledSecretId(store, factor);
    const challenge = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
    const secret = enrolled ? undefined : newTotpSecret();
    await store.transaction(async (tx) => {
      const secretId = secret ? await sealSecret(tx, vault, secret, now) : null;
      await tx.query(
        `INSERT INTO dashboard_sign_in_challenges (id_hash, operator_id, user_id, enrol_secret_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [sha256(challenge), factor.kind === 'operator' ? factor.id : null, factor.kind === 'user' ? factor.id : null, secretId, now, expiresAt],
      );
    });
    const name = account.kind === 'operator' ? account.name : account.user.email;
    return ok(c, {
      secondFactor: {
        step: secret ? 'enrol' : 'code',
        challenge,
        expiresAt: expiresAt.toISOString(),
        ...(secret ? { secret, uri: totpUri(secret, name) } : {}),
      },
    });
  }

  // The password: {"operator", "password"} or {"email", "password"}.
  routes.post('/session', async (c) => {
    const failed = begin(c);
    const body = await adminJsonBody(c, { operator: 'string', email: 'string', password: 'string', token: 'string' });
    const { operator, email, password, token } = body as { operator?: string; email?: string; password?: string; token?: string };
    if (token !== undefined) {
      throw invalidParameters([{ name: 'token', value: '', message: 'access tokens no longer sign in to the dashboard: sign in as a merchant user (the operator or your admin invites you)' }]);
    }
    const wrong = () => failed(refused('wrong name, e-mail address or password'));
    const name = operator ?? email;
    if (typeof password !== 'string' || typeof name !== 'string' || (operator !== undefined) === (email !== undefined)) {
      throw invalidParameters([{ name: 'body', value: '', message: 'needs operator and password, or email and password' }]);
    }
    if (name.length > 254 || password.length > 1024) throw await wrong();
    // Counted against the name before any hash is made: an attempt during its delay costs no scrypt.
    await admitAttempt(store, accountKey(operator !== undefined ? 'operator' : 'user', name), deps.now());
    if (operator !== undefined) {
      const found = await authenticateOperator(store, operator, password);
      if (!found) throw await wrong();
      return afterPassword(c, { kind: 'operator', id: found.id, name: found.name });
    }
    const user = await authenticateUser(store, name, password);
    if (!user) throw await wrong();
    return afterPassword(c, { kind: 'user', user });
  });

  // The second factor: {"challenge", "code"}.
  routes.post('/session/second-factor', async (c) => {
    const failed = begin(c);
    const body = await adminJsonBody(c, { challenge: 'string', code: 'string' });
    const challenge = typeof body.challenge === 'string' ? body.challenge : '';
    const code = typeof body.code === 'string' ? body.code.replace(/\s+/g, '') : '';
    if (!body.challenge || body.code === undefined) throw invalidParameters([{ name: 'body', value: '', message: 'needs challenge and code' }]);
    const now = deps.now();
    const idHash = sha256(challenge);
    const found = await store.query<ChallengeRow>(
      `SELECT c.operator_id, o.name AS operator_name, c.user_id, c.enrol_secret_id, c.codes_tried FROM dashboard_sign_in_challenges c
         LEFT JOIN operators o ON o.id = c.operator_id AND o.removed_at IS NULL
        WHERE c.id_hash = $1 AND c.expires_at > $2`,
      [idHash, now],
    );
    const row = found.rows[0];
    const user = row?.user_id ? await findUser(store, { id: row.user_id }) : undefined;
    const account: SignedInAccount | undefined =
      row?.operator_id && row.operator_name ? { kind: 'operator', id: row.operator_id, name: row.operator_name } : user ? { kind: 'user', user } : undefined;
    if (!row || !account) throw await failed(refused('the sign-in expired: sign in again'));
    await admitAttempt(store, keyOf(account), now);
    const tried = await store.query<{ codes_tried: number }>('UPDATE dashboard_sign_in_challenges SET codes_tried = codes_tried + 1 WHERE id_hash = $1 RETURNING codes_tried', [idHash]);
    const factor = factorAccount(account);
    const refuse = async (reason: string) => {
      await recordAction(store, { actor: actorOfAccount(account), entityId: entityOfAccount(account), action: 'sign in', detail: { secondFactor: reason }, resultCode: RESULTS.invalidAuthentication.code, at: now });
      if ((tried.rows[0]?.codes_tried ?? CODES_PER_CHALLENGE) >= CODES_PER_CHALLENGE) await dropChallenge(store, idHash, now);
      return failed(refused(reason === 'replayed code' ? 'this code was used already: wait for the next one' : 'wrong code'));
    };
    const secretId = row.enrol_secret_id ?? (await enrolledSecretId(store, factor));
    const secret = secretId ? await openSecret(store, vault, secretId) : undefined;
    if (!secretId || !secret) throw await failed(refused('the sign-in expired: sign in again'));
    const step = stepOfCode(secret, code, now);
    if (step === undefined) throw await refuse('wrong code');
    const accepted = await store.transaction(async (tx) => {
      if (row.enrol_secret_id) {
        // Enrolment: the new secret becomes the account's, unless another sign-in enrolled one meanwhile.
        if (await enrolledSecretId(tx, factor)) return false;
        await enrol(tx, factor, row.enrol_secret_id, step, now);
        await tx.query('UPDATE dashboard_sign_in_challenges SET enrol_secret_id = NULL WHERE id_hash = $1', [idHash]);
        return true;
      }
      return takeStep(tx, factor, step);
    });
    if (!accepted) throw await refuse('replayed code');
    await dropChallenge(store, idHash, now);
    return signedIn(c, account, row.enrol_secret_id ? 'enrolled' : 'code');
  });
  routes.all('/session/second-factor', () => {
    throw methodNotAllowed(['POST']);
  });

  // An invitation: what it is for ({"code"}), and its acceptance ({"code", "password"}).
  const noInvitation = () => refused('this invitation is unknown, used or expired: ask for a new one');
  routes.post('/invitation', async (c) => {
    const failed = begin(c);
    const body = await adminJsonBody(c, { code: 'string' });
    const invited = typeof body.code === 'string' ? await findInvitation(store, body.code, deps.now()) : undefined;
    if (!invited) throw await failed(noInvitation());
    return ok(c, {
      invitation: { email: invited.email, merchant: invited.entityName, role: invited.role, expiresAt: invited.invitationExpiresAt?.toISOString() },
    });
  });
  routes.post('/invitation/accept', async (c) => {
    const failed = begin(c);
    const body = await adminJsonBody(c, { code: 'string', password: 'string' });
    if (typeof body.code !== 'string' || typeof body.password !== 'string') throw invalidParameters([{ name: 'body', value: '', message: 'needs code and password' }]);
    let user: MerchantUser | undefined;
    try {
      user = await acceptInvitation(store, body.code, body.password, deps.now());
    } catch (error) {
      if (error instanceof UserRefused) throw invalidParameters([{ name: 'password', value: '', message: error.message }]);
      throw error;
    }
    if (!user) throw await failed(noInvitation());
    const account: SignedInAccount = { kind: 'user', user };
    await recordAction(store, { actor: actorOfAccount(account), entityId: user.entityId, action: 'accept invitation', detail: { email: user.email, role: user.role }, resultCode: '000.000.000', at: deps.now() });
    return afterPassword(c, account);
  });

  return routes;
}
