import type { Context, MiddlewareHandler } from 'hono';
import { GatewayError, invalidParameters, SettingsRefusedError, withReason } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { AppDependencies } from '../deps.ts';
import { adminNotFound } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { pathId } from '../http/pathIds.ts';
import { entityExists } from '../merchants/repository.ts';
import { ResendRefused } from '../reconciliation/files.ts';
import { actorOf, requireEntity, requireOperator, requireSession, sessionOf } from './access.ts';
import { recordAction } from './audit.ts';
import type { Session } from './sessions.ts';

/**
 * What the dashboard's routes of an entity's settings share (settingsApi.ts, acquirersApi.ts): the session, the
 * entity of the path it may read (both principals, their own entities) or change (operators only), and the record of
 * every change tried (audit.ts).
 */

export const SUCCESS_CODE = '000.000.000';

export const noEntity = (id: string): GatewayError => adminNotFound('entity', id);

export interface EntitySettingsAccess {
  /** The live session, and its CSRF token and origin on a change (access.ts). */
  readonly signedIn: MiddlewareHandler<AppEnv>;
  /** The path's `entityId` checked for its shape. */
  readonly entityPathId: MiddlewareHandler<AppEnv>;
  /** The path's entity, once the session may see it (403 for a merchant's other entity, 404 for none). */
  entityOf(c: Context<AppEnv>): { session: Session; entityId: string };
  /** The same, for a change: 403 for a merchant. */
  changerOf(c: Context<AppEnv>): { session: Session; entityId: string };
  /** 404 unless the entity exists. */
  requireExisting(entityId: string): Promise<void>;
  /**
   * Does `work` and records it: done (000.000.000) or refused (its result code). A refused setting comes back as the
   * admin API answers it: 400 with parameterErrors, or 404 for an entity that is not there.
   */
  recorded<T>(session: Session, entityId: string, action: string, detail: Record<string, unknown>, work: () => Promise<T>): Promise<T>;
}

export function entitySettingsAccess(deps: Pick<AppDependencies, 'store' | 'now' | 'config'>): EntitySettingsAccess {
  const { store } = deps;
  const entityOf = (c: Context<AppEnv>): { session: Session; entityId: string } => {
    const session = sessionOf(c);
    const entityId = c.req.param('entityId') as string;
    requireEntity(session.principal, entityId);
    return { session, entityId };
  };
  return {
    signedIn: requireSession({ store, now: deps.now, publicUrl: deps.config.publicUrl }),
    entityPathId: pathId('entity', (_c, id) => noEntity(id), 'entityId'),
    entityOf,
    changerOf(c) {
      const found = entityOf(c);
      requireOperator(found.session.principal);
      return found;
    },
    async requireExisting(entityId) {
      if (!(await entityExists(store, entityId))) throw noEntity(entityId);
    },
    async recorded(session, entityId, action, detail, work) {
      const record = (resultCode: string) => recordAction(store, { actor: actorOf(session.principal), entityId, action, detail, resultCode, at: deps.now() });
      let done: Awaited<ReturnType<typeof work>>;
      try {
        done = await work();
      } catch (thrown) {
        const error =
          thrown instanceof SettingsRefusedError ? (thrown.unknownEntity ? noEntity(entityId) : invalidParameters(thrown.problems))
          : thrown instanceof ResendRefused ? (thrown.unknownEntity ? noEntity(entityId) : new GatewayError(withReason(RESULTS.invalidParameter, thrown.message), 400))
          : thrown;
        if (error instanceof GatewayError && !(error.status === 404)) await record(error.result.code);
        throw error;
      }
      await record(SUCCESS_CODE);
      return done;
    },
  };
}
