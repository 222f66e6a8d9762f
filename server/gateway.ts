import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { currentBuildNumber } from './http/envelope.ts';
import { protectServer, serverOptions, trackInFlight } from './http/listener.ts';
import { DEFAULT_OUTBOUND_TIMEOUT_MS, type OutboundPolicy } from './outbound/http.ts';
import { applePayValidationSettings, type ApplePayValidationSeam } from './wallets/applePaySession.ts';
import { connectorsIn, createAcquirerRegistry } from './acquirers/registry.ts';
import { simulatedDirectory } from './acquirers/threeDSecure.ts';
import type { Acquirer } from './acquirers/types.ts';
import { createApp } from './app.ts';
import type { AppEnv } from './http/context.ts';
import { checkoutJobHandlers, checkoutNotifications } from './checkouts/callbacks.ts';
import { summaryJobHandlers } from './checkouts/summary.ts';
import { createOutbox } from './events/outbox.ts';
import { captureAtOnceJobHandlers } from './payments/flows/captureAtOnce.ts';
import { lifecycleJobHandlers } from './payments/lifecycle.ts';
import { recoveryJobHandlers } from './payments/recovery.ts';
import { awaitingAttempts } from './payments/store/attempts.ts';
import { createPaymentServices, type PaymentServices } from './payments/services.ts';
import { ConfigError, simulatedAcquirers, type GatewayConfig } from './config.ts';
import { createJobRegistry } from './jobs/registry.ts';
import { createCardVault } from './vault/cardVault.ts';
import { vaultJobHandlers } from './vault/compaction.ts';
import { loadCardDataKeys } from './vault/key.ts';
import { scheduleRotationIfDue } from './vault/rotation.ts';
import { redirectJobHandlers } from './redirects/jobs.ts';
import { maintenanceJobHandlers } from './jobs/maintenance.ts';
import { providerSettlementJobHandlers } from './reports/providerSettlements.ts';
import { settlementJobHandlers } from './reports/settlementJob.ts';
import { startJobWorker, type JobWorker } from './jobs/worker.ts';
import { createLogger, type LogSink, type Logger } from './logger.ts';
import { disableDemoCredentials, disableDemoTokens, ensureDemoMerchant } from './merchants/demo.ts';
import { cachedLegacyAccess } from './merchants/legacyAccessCache.ts';
import { cachedTokenAccess } from './merchants/tokenAccessCache.ts';
import { createAuthFailureGuard } from './throttling/authFailures.ts';
import { throttlingJobHandlers } from './throttling/jobs.ts';
import { memoryCounters, redisCounters, storeCounters } from './throttling/counters.ts';
import { defaultLimits } from './throttling/limits.ts';
import { createThrottling, type Throttling } from './throttling/service.ts';
import { cachedThrottling } from './throttling/settings.ts';
import { createRiskCheck } from './risk/velocity.ts';
import { idempotencyJobHandlers } from './idempotency/jobs.ts';
import { clickToPayJobHandlers } from './clickToPay/jobs.ts';
import { dashboardJobHandlers } from './dashboard/sessions.ts';
import { newCommandToken, writeCommandFile } from './cli/localCommands.ts';
import { openStore, type Store } from './store/index.ts';
import { pendingMigrations } from './store/migrate.ts';
import { createMetrics } from './metrics/metrics.ts';
import { createControlledClock } from './control/control.ts';
import { createObservationRecorder, type ObservationRecorder } from './integration/observations.ts';
import { dueJobQueues } from './jobs/repository.ts';
import { metricsResponder } from './metrics/routes.ts';
import type { Readiness } from './http/health.ts';
import { cancelSchedulesOfDeletedRegistrations } from './schedules/cancellation.ts';
import { scheduleJobHandlers } from './schedules/execution.ts';
import { startScheduler, type Scheduler } from './schedules/firing.ts';
import { WEBHOOK_DELIVERY_LEASE_MS, webhookJobHandlers } from './webhooks/delivery.ts';
import { RECONCILIATION_LEASE_MS, reconciliationJobHandlers } from './reconciliation/jobs.ts';
import { WEBHOOK_TIMEOUT_MS, type WebhookServices } from './webhooks/service.ts';
import { loadWidgetBuild } from './widget/build.ts';

export interface RunningGateway {
  /** Where the gateway listens, e.g. http://127.0.0.1:8080 (the real port when 0 was asked for). */
  readonly url: string;
  readonly config: GatewayConfig;
  /** The app it serves: its route table, and `app.request` for tests that need no socket (the same store and logs). */
  readonly app: Hono<AppEnv>;
  readonly store: Store;
  readonly logger: Logger;
  /** The job worker (29-minute calls, notifications); `runDueJobs()` runs what is due now. */
  readonly jobs: JobWorker;
  /** The payment core this gateway runs (tests look at its acquirers). */
  readonly payments: PaymentServices;
  /** Request limits and the entities' throttling settings (throttling/service.ts). */
  readonly throttling: Throttling;
  /** Webhooks: their configuration use-cases, and the worker that sends deliveries (apart from the other jobs). */
  readonly webhooks: { readonly services: WebhookServices; readonly deliveries: JobWorker };
  /** Schedules: the loop that takes due fire times, and the worker that makes their payments (apart from the other jobs). */
  readonly schedules: { readonly scheduler: Scheduler; readonly executions: JobWorker };
  /** Reconciliation files: the worker that schedules and uploads them over FTP (apart from the other jobs). */
  readonly reconciliation: { readonly uploads: JobWorker };
  /** What the operator must hear about at start (the start banner prints them; they are logged too). */
  readonly notices: readonly string[];
  /** What merchants' integrations were seen doing, for their integration reports (integration/observations.ts). */
  readonly observations: ObservationRecorder;
  close(): Promise<void>;
}

export interface GatewayOptions {
  readonly logSink?: LogSink;
  /** The clock for expiry, throttling windows and jobs; tests pin and advance it. */
  readonly now?: () => Date;
  /** How often the job worker looks for due jobs (0: only when runDueJobs() is called). Default 1 s. */
  readonly jobPollMs?: number;
  /** Wraps each configured acquirer: tests observe (or stop) what reaches an acquirer. */
  readonly wrapAcquirer?: (acquirer: Acquirer) => Acquirer;
  /** Wraps the store once it is open and migrated: the bench counts the statements it is asked (store/statementCount.ts). */
  readonly wrapStore?: (store: Store) => Store;
  /**
   * A store the caller opened (and migrated) ahead, instead of opening the configured one: the in-memory start opens
   * it while the gateway's modules load (main.ts). Closed with the gateway.
   */
  readonly store?: Promise<Store>;
  /** Timeout of the gateway's outbound calls to merchant URLs. Default 30 s. */
  readonly outboundTimeoutMs?: number;
  /** Called when the gateway can no longer run safely (the process entry then stops it). */
  readonly onFatal?: (error: Error) => void;
  /** How outbound calls resolve host names: DNS, unless a test resolves names of its own (outbound/http.ts). */
  readonly resolve?: OutboundPolicy['resolve'];
  /**
   * Apple Pay's merchant validation with a test's stand-in for Apple: its host (with port) instead of Apple's list, its
   * CA, a short timeout (wallets/applePaySession.ts). Never set by main.ts: production calls only Apple's hosts.
   */
  readonly applePay?: ApplePayValidationSeam;
  /** The dashboard without its second factor: the test harness's default (AppDependencies), never main.ts's. */
  readonly dashboardSecondFactor?: 'asked' | 'notAsked';
}

const DEFAULT_JOB_POLL_MS = 1000;
/** Deliveries sent at once by one instance (each waits at most WEBHOOK_TIMEOUT_MS for its receiver). */
const WEBHOOK_DELIVERY_BATCH = 32;
/** Schedule executions (payments) made at once by one instance. */
const SCHEDULE_EXECUTION_BATCH = 32;
/** Reconciliation files uploaded at once by one instance (each may take minutes on a slow FTP server). */
const RECONCILIATION_UPLOAD_BATCH = 4;

/** How long /ready waits for the store before it calls it unreachable. */
const READY_STORE_TIMEOUT_MS = 2000;

/** The checks behind /ready (http/health.ts): the store answers, is migrated, the jobs run, no shutdown begun. */
function readinessOf(store: Store, lifecycle: { readonly jobsRunning: boolean; readonly closing: boolean }, jobPollMs: number): Readiness {
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), READY_STORE_TIMEOUT_MS);
    });
    const pending = await Promise.race([pendingMigrations(store), timeout]).catch(() => 'unreachable' as const);
    clearTimeout(timer);
    const reachable = Array.isArray(pending);
    return {
      store: { ok: reachable, detail: reachable ? 'ok' : pending === 'timeout' ? `no answer within ${READY_STORE_TIMEOUT_MS} ms` : 'unreachable' },
      migrations: reachable
        ? { ok: pending.length === 0, detail: pending.length === 0 ? 'ok' : `${pending.length} not applied` }
        : { ok: false, detail: 'unknown (store unreachable)' },
      jobs: { ok: lifecycle.jobsRunning, detail: !lifecycle.jobsRunning ? 'not started' : jobPollMs > 0 ? 'running' : 'run by the caller' },
      shutdown: { ok: !lifecycle.closing, detail: lifecycle.closing ? 'shutting down' : 'no' },
    };
  };
}

/** Listens with `serve`; rejects with what the listener's `error` event says (a busy port) instead of crashing. */
function listen(options: Parameters<typeof serve>[0]): Promise<ServerType> {
  return new Promise<ServerType>((resolve, reject) => {
    const started = serve(options, () => {
      started.off('error', reject);
      resolve(started);
    });
    started.once('error', reject);
  });
}

/**
 * Why a listener could not listen, in one line naming the setting to change (a busy port, one that needs privileges,
 * an address not of this machine): `portVariable` is PORT or METRICS_PORT, `hostVariable` HOST or METRICS_HOST.
 */
function listenRefusal(error: unknown, where: { readonly port: number; readonly host: string; readonly portVariable: string; readonly hostVariable: string }): Error {
  const { port, host, portVariable, hostVariable } = where;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return new ConfigError(`${portVariable} ${port} is in use on ${host} (another gateway or program listens there): stop it, or set ${portVariable} to a free port`);
  if (code === 'EACCES') return new ConfigError(`${portVariable} ${port} needs privileges this process lacks: set ${portVariable} to 1024 or above`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new ConfigError(`${hostVariable} ${host} is not an address of this machine: set ${hostVariable} to one (0.0.0.0 for every address)`);
  return new Error(`could not listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`);
}

/** Opens the store, creates the demo merchant if configured, starts the job worker, and starts listening. */
export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  const logger = createLogger({ level: config.logLevel, ...(options.logSink ? { sink: options.logSink } : {}) });
  currentBuildNumber();
  // Before the store opens: a gateway that would seal cards with the wrong key does not start at all.
  const cardDataKeys = loadCardDataKeys(config);
  // Seals with the current key, opens with it and with every previous one (a rotation in progress).
  const vault = createCardVault(cardDataKeys.current, cardDataKeys.previous);
  const opened = options.store ? await options.store : await openStore({
    ...config,
    onInstanceLockLost: (error) => {
      logger.error('lost the database session that marks this gateway instance alive; it must stop, as others may take over its work', { error });
      options.onFatal?.(error);
    },
    onCheckpointFailed: (error) => logger.error('the embedded store could not checkpoint and sync its data files; the next checkpoint or the close tries again', { error }),
  });
  const store = options.wrapStore ? options.wrapStore(opened) : opened;
  const notices: string[] = [];
  const demo = config.demoMerchant;
  if (demo) await store.transaction((tx) => ensureDemoMerchant(tx, demo));
  if (config.environment === 'live') {
    const disabled = await disableDemoTokens(store);
    if (disabled > 0) {
      notices.push(`Disabled ${disabled} demo access token(s) this store kept from the test environment: demo credentials never work in live.`);
    }
    const disabledPairs = await disableDemoCredentials(store);
    if (disabledPairs > 0) {
      notices.push(`Disabled ${disabledPairs} demo legacy credential(s) (authentication.userId) this store kept from the test environment: demo credentials never work in live.`);
    }
  }
  for (const notice of notices) logger.warn(notice);

  // With the test-only control API, the clock it moves (control/); otherwise the caller's or the machine's.
  const clock = config.testControlApi ? createControlledClock(options.now) : undefined;
  const now = clock?.now ?? options.now ?? (() => new Date());
  /** Runs the jobs and schedules due now (the control API, after it moves the clock); set once they are started. */
  let runDueWork: () => Promise<number> = async () => 0;
  // Request limits (COMPAT §17): counted in Redis when THROTTLE_REDIS_URL is set, else in PostgreSQL (shared by the
  // instances), or in memory over the embedded store (one process at a time opens it: it sees every request).
  const counters = config.throttle.redisUrl
    ? redisCounters({ url: config.throttle.redisUrl, keyPrefix: config.throttle.redisKeyPrefix, logger })
    : store.kind === 'pglite'
      ? memoryCounters()
      : storeCounters(store);
  const throttlingSettings = cachedThrottling(store, now);
  const throttling = createThrottling({ counters, settings: throttlingSettings, defaults: defaultLimits(config.limits), now });
  const metrics = createMetrics();
  metrics.readJobQueuesWith(() => dueJobQueues(store, now()));
  metrics.readAwaitingAttemptsWith(() => awaitingAttempts(store, now()));
  const payments = createPaymentServices({
    onPaymentsRecorded: (recorded) => metrics.paymentsRecorded(recorded),
    onAcquirerCall: (acquirer, outcome) => metrics.acquirerCalled(acquirer, outcome),
    risk: createRiskCheck({ store, settings: throttlingSettings, fingerprint: (text) => vault.fingerprint(text), acquirer: config.defaultAcquirer, now }),
    store,
    // Subscribers run in the transaction that appends the events: a checkout's notificationUrl call scheduled, a
    // deleted registration's schedules cancelled.
    outbox: createOutbox([checkoutNotifications, cancelSchedulesOfDeletedRegistrations]),
    acquirers: createAcquirerRegistry(store, config, { vault, now, logger }, options.wrapAcquirer),
    // The simulated directory server is a test fixture: a live gateway authenticates nothing itself.
    directory: config.environment === 'test' ? simulatedDirectory : undefined,
    vault,
    environment: config.environment,
    registrationLifetimeMonths: config.registrationLifetimeMonths,
    simulatedSettlementMs: config.simulatedSettlementMinutes * 60_000,
    now,
    publicUrl: config.publicUrl,
    logger,
  });
  const widgetBuild = loadWidgetBuild();
  if (!widgetBuild) logger.warn('the widget is not built: run `npm run build` (npm start does it) to serve paymentWidgets.js');
  const outbound: OutboundPolicy = { allowPrivateAddresses: config.outboundAllowPrivate, ...(options.resolve ? { resolve: options.resolve } : {}) };
  const webhookServices: WebhookServices = {
    store,
    vault,
    now,
    environment: config.environment,
    publicUrl: config.publicUrl,
    outbound,
    timeoutMs: options.outboundTimeoutMs ?? WEBHOOK_TIMEOUT_MS,
    logger,
  };
  // What /ready reports besides the store: the jobs started below, and a shutdown begun by close().
  const lifecycle = { jobsRunning: false, closing: false };
  // The embedded store on disk admits this process only: the command line sends its commands here, with the token
  // this gateway writes in DATA_DIR once it listens (cli/localCommands.ts).
  const commandToken = store.kind === 'pglite' && !config.dataDir.startsWith('memory://') ? newCommandToken() : undefined;
  const observations = createObservationRecorder(store, now, logger);
  // What the simulated acquirers' settlement runs with: the daily job's (test environment), the control API's trigger.
  const simulatedSettlement = { acquirers: simulatedAcquirers(config), settlement: config.settlement };
  const app = createApp({
    ...(clock
      ? {
          control: {
            clock,
            store,
            runDueWork: () => runDueWork(),
            observations,
            triggers: { payments, store, settlement: simulatedSettlement, pspId: config.pspEntityId },
          },
        }
      : {}),
    ...(clock || options.now ? { movedClock: true } : {}),
    metrics,
    observations,
    readiness: readinessOf(store, lifecycle, options.jobPollMs ?? DEFAULT_JOB_POLL_MS),
    config,
    store,
    logger,
    payments,
    tokenAccess: cachedTokenAccess(store, config.tokenCacheSeconds * 1000, now),
    legacyAccess: cachedLegacyAccess(store, config.tokenCacheSeconds * 1000, now),
    authFailures: createAuthFailureGuard(counters, config.limits.authFailuresPerMinute, now),
    throttling,
    widgetBuild,
    staticBaseUrl: `${config.publicUrl}/v1/static/${widgetBuild?.version ?? 'unbuilt'}`,
    now,
    webhooks: webhookServices,
    applePay: applePayValidationSettings(outbound, options.applePay),
    ...(options.dashboardSecondFactor ? { dashboardSecondFactor: options.dashboardSecondFactor } : {}),
    ...(commandToken ? { commandToken } : {}),
  });
  const requests = trackInFlight(app.fetch);
  let server: ServerType | undefined;
  let metricsServer: ServerType | undefined;
  try {
    server = await listen({ fetch: requests.fetch, port: config.port, hostname: config.host, serverOptions: serverOptions(config.http) }).catch((error: unknown) => {
      throw listenRefusal(error, { port: config.port, host: config.host, portVariable: 'PORT', hostVariable: 'HOST' });
    });
    // METRICS_PORT: a listener of its own, serving only /metrics.
    const { port: metricsPort, host: metricsHost, token: metricsToken } = config.metrics;
    if (metricsPort !== undefined) {
      metricsServer = await listen({ fetch: metricsResponder(metrics, metricsToken), port: metricsPort, hostname: metricsHost }).catch((error: unknown) => {
        throw listenRefusal(error, { port: metricsPort, host: metricsHost, portVariable: 'METRICS_PORT', hostVariable: 'METRICS_HOST' });
      });
    }
  } catch (error) {
    server?.close();
    await observations.close();
    await throttling.close();
    await store.close();
    throw error;
  }
  protectServer(server as Server, config.http);
  const jobs = startJobWorker({
    store,
    logger,
    now,
    onOutcome: metrics.jobFinished,
    handlers: createJobRegistry([
      ...checkoutJobHandlers({ outboundTimeoutMs: options.outboundTimeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS, outbound }),
      ...redirectJobHandlers(payments),
      ...recoveryJobHandlers(payments),
      ...lifecycleJobHandlers(),
      ...captureAtOnceJobHandlers(payments),
      ...vaultJobHandlers(vault),
      ...summaryJobHandlers(),
      ...throttlingJobHandlers(),
      ...idempotencyJobHandlers(),
      ...clickToPayJobHandlers(),
      ...dashboardJobHandlers(),
      ...maintenanceJobHandlers(),
      // The simulated acquirers' daily settlement: test only (a live gateway has none).
      ...(config.environment === 'test' ? settlementJobHandlers(simulatedSettlement) : []),
      // What the connectors' providers report they settled.
      ...providerSettlementJobHandlers({ acquirers: connectorsIn(payments.acquirers), payments, test: config.environment === 'test' }),
    ]),
    pollMs: options.jobPollMs ?? DEFAULT_JOB_POLL_MS,
  });
  await jobs.scheduleRecurring();
  // Deliveries have a worker of their own: a receiver that hangs for its 30 s holds a delivery slot, never a slot of
  // the jobs that finish payments, under a lease of its own (90 s: a claimed delivery's longest turn and half a minute).
  const webhookDeliveries = startJobWorker({
    store,
    logger,
    now,
    onOutcome: metrics.jobFinished,
    handlers: createJobRegistry(webhookJobHandlers(webhookServices)),
    pollMs: options.jobPollMs ?? DEFAULT_JOB_POLL_MS,
    batchSize: WEBHOOK_DELIVERY_BATCH,
    leaseMs: WEBHOOK_DELIVERY_LEASE_MS,
  });
  const pollMs = options.jobPollMs ?? DEFAULT_JOB_POLL_MS;
  const scheduler = startScheduler({ store, outbox: payments.outbox, logger, now, catchUpMs: config.scheduleCatchUpHours * 3_600_000, pollMs });
  // A burst of executions (many schedules firing in the same second) never holds up the jobs that finish payments.
  const scheduleExecutions = startJobWorker({
    store,
    logger,
    now,
    onOutcome: metrics.jobFinished,
    handlers: createJobRegistry(scheduleJobHandlers(payments)),
    pollMs,
    batchSize: SCHEDULE_EXECUTION_BATCH,
  });
  // Uploads have a worker of their own: a slow FTP server holds an upload slot for minutes, never a slot of the jobs
  // that finish payments, under a lease longer than an upload may take.
  const reconciliationUploads = startJobWorker({
    store,
    logger,
    now,
    onOutcome: metrics.jobFinished,
    handlers: createJobRegistry(
      reconciliationJobHandlers({
        store,
        vault,
        logger,
        now,
        outbound,
        timeoutMs: options.outboundTimeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS,
        pspId: config.pspEntityId,
        fileHour: config.reconciliationFileHour,
        settledDaysOnly: config.environment === 'test',
      }),
    ),
    pollMs,
    batchSize: RECONCILIATION_UPLOAD_BATCH,
    leaseMs: RECONCILIATION_LEASE_MS,
  });
  await reconciliationUploads.scheduleRecurring();
  runDueWork = async () => {
    const fired = await scheduler.takeDueFires();
    const ran = await Promise.all([jobs, webhookDeliveries, scheduleExecutions, reconciliationUploads].map((worker) => worker.runDueJobs()));
    return ran.reduce((sum, count) => sum + count, fired);
  };
  // The embedded store's one process re-seals what a previous key still seals itself: no operator command can open
  // the directory while it runs. (On PostgreSQL the operator starts it, once every instance holds the new key.)
  if (store.kind === 'pglite' && (await scheduleRotationIfDue(store, vault, now()))) {
    logger.info('card data sealed with a previous key is being re-sealed with the current one', { keyId: vault.keyId });
  }
  lifecycle.jobsRunning = true;
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  const removeCommandFile = commandToken ? writeCommandFile(config.dataDir, { url, token: commandToken }) : () => undefined;
  return {
    url,
    config,
    app,
    store,
    logger,
    jobs,
    payments,
    throttling,
    webhooks: { services: webhookServices, deliveries: webhookDeliveries },
    schedules: { scheduler, executions: scheduleExecutions },
    reconciliation: { uploads: reconciliationUploads },
    notices,
    observations,
    async close() {
      // A drain: /ready answers 503 from now on, no new connection is taken (idle ones are closed, busy ones close
      // after their answer), the jobs stop while the requests being handled finish, then the store closes.
      lifecycle.closing = true;
      const connectionsClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A running job still needs the store: its outcome is recorded before the store closes; an unfinished one runs
      // again after restart.
      await Promise.all([jobs.stop(), webhookDeliveries.stop(), scheduler.stop(), scheduleExecutions.stop(), reconciliationUploads.stop()]);
      await connectionsClosed;
      if (metricsServer) await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      // A client that hung up leaves its request running: let it record what it started before the store closes.
      if (!(await requests.drained(config.http.requestTimeoutMs))) logger.warn('closing the store while requests are still being handled');
      await throttling.close();
      await observations.close();
      payments.acquirers.close();
      removeCommandFile();
      await store.close();
      logger.flush();
    },
  };
}
