import type { Context } from 'hono';
import type { HttpDependencies } from './access.ts';
import { GatewayError, invalidParameters, stillBeingMade } from '../domain/errors.ts';
import {
  claimKey,
  findKey,
  interruptKey,
  recordAnswer,
  releaseKey,
  takeOverKey,
  type StoredAnswer,
} from '../idempotency/repository.ts';
import type { AppEnv } from './context.ts';
import { answeredBody, jsonResponse } from './respond.ts';

/**
 * `Idempotency-Key` on the POSTs that create something (POST /v1/payments, /v1/payments/{id}, /v1/checkouts), with
 * Stripe's semantics: the same key and the same parameters give the same answer and one resource; the same key
 * with other parameters is refused; keys are kept 24 hours. The header is optional and no existing client sends it.
 *
 * The first request with a key chooses the id of what it creates and records the key before doing anything, so a
 * request cut short by a crash is finished under the same id by the next one (`resume` looks for what it made).
 * A request whose parameters are refused made nothing: its key is released.
 */

export type Answer = StoredAnswer;

/** Keyed hashes of a request's parameters (the card vault's: they may hold a card number), to tell a reused key. */
export interface RequestFingerprints {
  fingerprint(text: string): string;
  /** Whether `fingerprint` is the text's under the current key or a previous one (a rotation since). */
  matchesFingerprint(text: string, fingerprint: string): boolean;
}

export interface IdempotentWork {
  /**
   * Does the work, creating the resource under `resourceId`; `fresh`: the id was made for this request and no one else
   * knows it (no Idempotency-Key names it), so no other run can have made that resource.
   */
  run(resourceId: string, fresh: boolean): Promise<Answer>;
  /** For a key whose run ended without an answer: the answer from what it created, if it created it. */
  resume(resourceId: string): Promise<Answer | undefined>;
}

const KEY = /^[\x20-\x7e]{1,255}$/;

export function answerResponse(c: Context<AppEnv>, answer: Answer, headers: Readonly<Record<string, string>> = {}): Response {
  return jsonResponse(c, answer.body, answer.status, headers);
}

function keyError(key: string, message: string): GatewayError {
  return invalidParameters([{ name: 'Idempotency-Key', value: key, message }]);
}

export async function idempotently(
  c: Context<AppEnv>,
  deps: Pick<HttpDependencies, 'store' | 'now'> & { readonly payments: { readonly vault: RequestFingerprints } },
  scope: string,
  newResourceId: () => string,
  work: IdempotentWork,
): Promise<Response> {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return answerResponse(c, await work.run(newResourceId(), true));
  if (!KEY.test(key)) throw keyError(key, 'must be 1 to 255 printable ASCII characters');

  const { store } = deps;
  const entityId = c.get('entityId');
  // The parameters as a sorted list, hashed with a key (they may hold a card number).
  const request = JSON.stringify([scope, ...[...c.get('params')].sort()]);
  const { vault } = deps.payments;
  const fingerprint = vault.fingerprint(request);
  const resourceId = newResourceId();
  const run = async (id: string): Promise<Response> => {
    let answer: Answer;
    try {
      answer = await work.run(id, false);
      // Kept as it is answered (its time on the gateway's clock), so that a replay is the same answer.
      answer = { ...answer, body: answeredBody(c, answer.body) };
    } catch (error) {
      // Refused before anything was made: the key is free again. Anything else: the next request resumes it (a run
      // that found another making the same payment did nothing: that one is still under way, and app.ts answers 409).
      if (error instanceof GatewayError) await releaseKey(store, entityId, key);
      else await interruptKey(store, entityId, key);
      throw error;
    }
    await recordAnswer(store, entityId, key, answer);
    return answerResponse(c, answer);
  };

  if (await claimKey(store, entityId, key, { scope, fingerprint, resourceId, instanceId: store.instanceId, now: deps.now() })) return run(resourceId);

  const used = await findKey(store, entityId, key);
  // Pruned or released between the two statements: a rare race, answered as in progress.
  if (!used) throw stillBeingMade();
  // A key recorded before a card-data key rotation has its fingerprint under the key that is now a previous one.
  if (used.scope !== scope || (used.fingerprint !== fingerprint && !vault.matchesFingerprint(request, used.fingerprint))) {
    throw keyError(key, 'was used with other parameters: a key names one request, and its answer stays the same for 24 hours');
  }
  if (used.answer) return answerResponse(c, used.answer, { 'idempotent-replayed': 'true' });
  const running = used.instanceId !== '' && (await store.isInstanceAlive(used.instanceId));
  if (running || !(await takeOverKey(store, entityId, key, used.instanceId, store.instanceId))) throw stillBeingMade();
  const resumedAnswer = await work.resume(used.resourceId);
  const resumed = resumedAnswer && { ...resumedAnswer, body: answeredBody(c, resumedAnswer.body) };
  if (resumed) {
    await recordAnswer(store, entityId, key, resumed);
    return answerResponse(c, resumed);
  }
  return run(used.resourceId);
}
