import { api, segment } from './api.ts';
import type { Envelope } from './types.ts';

/**
 * The endpoints of an entity's settings and settlements (server/dashboard/settingsApi.ts, acquirersApi.ts), and what
 * they answer. Reading: both principals, their own entities. Changing settings: operators only (a merchant gets 403).
 * The FTP password and the connectors' access tokens are write-only: answers say `passwordSet`, `set`.
 */

export interface SmartRetrySettings {
  readonly entityId: string;
  readonly enabled: boolean;
  readonly codes: readonly string[];
  /** The gateway's default list of soft declines (no list of the entity's own). */
  readonly defaultCodes: boolean;
  readonly standalone: boolean;
  readonly cardOnFile: boolean;
  readonly fallbackAcquirer: string | null;
  readonly updatedAt: string | null;
  readonly inEffect: boolean;
  readonly notInEffectBecause?: string;
}

export interface SmartRetryAnswer extends Envelope {
  readonly smartRetry: SmartRetrySettings;
  /** For an operator: the acquirers a retry may go to (every configured one but the default). */
  readonly fallbackAcquirers?: readonly string[];
}

export interface SmartRetryInput {
  readonly enabled: boolean;
  readonly fallbackAcquirer: string;
  readonly codes: readonly string[] | 'default';
  readonly standalone: boolean;
  readonly cardOnFile: boolean;
}

export interface OfferedBrands {
  readonly entityId: string;
  readonly brands: readonly string[];
  /** True: no list of the entity's own, the environment's default. */
  readonly default: boolean;
  readonly updatedAt: string | null;
  /** Every brand the gateway knows: what may be offered. */
  readonly knownBrands: readonly string[];
}

export interface BrandsAnswer extends Envelope {
  readonly offeredBrands: OfferedBrands;
}

export interface FtpSettings {
  readonly entityId: string;
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly passwordSet: boolean;
  readonly folder: string;
  readonly explicitTls: boolean;
  readonly passive: boolean;
  readonly tlsCertificate: { readonly subject: string; readonly validTo: string; readonly fingerprint256: string } | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface FtpAnswer extends Envelope {
  readonly ftp: FtpSettings | null;
}

export interface FtpInput {
  readonly host: string;
  readonly port?: number;
  readonly username: string;
  /** Left out: the password kept is kept. */
  readonly password?: string;
  readonly folder?: string;
  readonly explicitTls: boolean;
  readonly tlsCertificate?: string;
}

/** A routing rule: the acquirer a payment goes to when it meets every condition given. Amounts as "100.00". */
export interface RoutingRule {
  readonly acquirer: string;
  readonly brands?: readonly string[];
  readonly currencies?: readonly string[];
  readonly minAmount?: string;
  readonly maxAmount?: string;
}

export interface RoutingSettings {
  readonly entityId: string;
  /** Tried in order: the first that matches a payment names its acquirer. */
  readonly rules: readonly RoutingRule[];
  /** Where a payment no rule matches goes. */
  readonly defaultAcquirer: string;
  /** Every acquirer a rule may name. */
  readonly acquirers: readonly string[];
  /** The acquirers that are connectors to a provider: they need the entity's credentials there. */
  readonly connectors: readonly string[];
  readonly updatedAt: string | null;
}

export interface RoutingAnswer extends Envelope {
  readonly routing: RoutingSettings;
}

/** An entity's credentials at a connector's provider: never the token; a merchant is told only `set`. */
export interface ConnectorCredentials {
  readonly entityId: string;
  readonly acquirer: string;
  readonly set: boolean;
  readonly providerEntityId?: string | null;
  readonly updatedAt?: string | null;
}

export interface CredentialsListAnswer extends Envelope {
  readonly acquirerCredentials: readonly ConnectorCredentials[];
}

export interface CredentialsAnswer extends Envelope {
  readonly acquirerCredentials: ConnectorCredentials;
}

/** A settlement (a batch: one day, clearing institute and currency), as the reports API's summary shows it. */
export interface SettlementRow {
  readonly id: string;
  readonly date: string;
  readonly currency: string;
  readonly clearingInstituteName: string;
  readonly merchantAccountId: string;
  readonly settlementAmount: string;
  readonly transactionCount: number;
}

export interface SettlementsAnswer extends Envelope {
  readonly from: string;
  readonly to: string;
  readonly settlements: readonly SettlementRow[];
}

export interface ReconciliationFile {
  readonly entityId: string;
  readonly date: string;
  readonly fileName: string;
  readonly status: 'pending' | 'retrying' | 'uploaded' | 'failed' | string;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly nextAttemptAt: string | null;
  readonly sizeBytes: number | null;
  readonly recordCount: number | null;
  readonly remotePath: string | null;
  readonly uploadedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface FilesAnswer extends Envelope {
  readonly from: string;
  readonly to: string;
  readonly files: readonly ReconciliationFile[];
}

export interface FileAnswer extends Envelope {
  readonly file: ReconciliationFile;
}

/** A span of days (yyyy-MM-dd); either left out takes the API's default (the last 31 days). */
export interface DayRange {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

/** A merchant's integration report (server/integration/report.ts; docs/ci.md, "The integration report"). */
export interface IntegrationFinding {
  readonly id: string;
  readonly severity: 'refused' | 'retired' | 'failing' | 'untested' | 'notice';
  readonly title: string;
  readonly advice: string;
  readonly count: number;
  readonly firstSeen: string | null;
  readonly lastSeen: string | null;
  readonly examples: readonly string[];
  readonly details?: readonly { readonly name: string; readonly count: number }[];
}

export interface IntegrationReportAnswer extends Envelope {
  readonly report: {
    readonly entityId: string;
    readonly generatedAt: string;
    readonly since: string;
    readonly payments: number;
    readonly findings: readonly IntegrationFinding[];
    readonly coverage: Readonly<Record<string, number>>;
    readonly widgetOptions: readonly string[];
  };
}

const entityPath = (entityId: string, rest: string) => `/entities/${segment(entityId)}/${rest}`;

export const settingsApi = {
  smartRetry: (entityId: string, signal?: AbortSignal) => api.get<SmartRetryAnswer>(entityPath(entityId, 'smart-retry'), undefined, signal),
  saveSmartRetry: (entityId: string, input: SmartRetryInput) => api.put<SmartRetryAnswer>(entityPath(entityId, 'smart-retry'), input),
  removeSmartRetry: (entityId: string) => api.delete<SmartRetryAnswer>(entityPath(entityId, 'smart-retry')),
  brands: (entityId: string, signal?: AbortSignal) => api.get<BrandsAnswer>(entityPath(entityId, 'brands'), undefined, signal),
  saveBrands: (entityId: string, brands: readonly string[]) => api.put<BrandsAnswer>(entityPath(entityId, 'brands'), { brands }),
  removeBrands: (entityId: string) => api.delete<BrandsAnswer>(entityPath(entityId, 'brands')),
  ftp: (entityId: string, signal?: AbortSignal) => api.get<FtpAnswer>(entityPath(entityId, 'ftp'), undefined, signal),
  saveFtp: (entityId: string, input: FtpInput) => api.put<FtpAnswer>(entityPath(entityId, 'ftp'), input),
  removeFtp: (entityId: string) => api.delete<FtpAnswer>(entityPath(entityId, 'ftp')),
  routing: (entityId: string, signal?: AbortSignal) => api.get<RoutingAnswer>(entityPath(entityId, 'routing'), undefined, signal),
  saveRouting: (entityId: string, rules: readonly RoutingRule[]) => api.put<RoutingAnswer>(entityPath(entityId, 'routing'), { rules }),
  removeRouting: (entityId: string) => api.delete<RoutingAnswer>(entityPath(entityId, 'routing')),
  credentials: (entityId: string, signal?: AbortSignal) => api.get<CredentialsListAnswer>(entityPath(entityId, 'acquirers'), undefined, signal),
  /** `entityId` of the body: the merchant's entity id at the provider. */
  saveCredentials: (entityId: string, acquirer: string, input: { readonly entityId: string; readonly accessToken: string }) =>
    api.put<CredentialsAnswer>(entityPath(entityId, `acquirers/${segment(acquirer)}`), input),
  removeCredentials: (entityId: string, acquirer: string) => api.delete<CredentialsAnswer>(entityPath(entityId, `acquirers/${segment(acquirer)}`)),
  integrationReport: (entityId: string, signal?: AbortSignal) => api.get<IntegrationReportAnswer>(entityPath(entityId, 'integrationReport'), undefined, signal),
};

export const settlementsApi = {
  settlements: (entityId: string, range: DayRange, signal?: AbortSignal) => api.get<SettlementsAnswer>(entityPath(entityId, 'settlements'), { ...range }, signal),
  files: (entityId: string, range: DayRange, signal?: AbortSignal) => api.get<FilesAnswer>(entityPath(entityId, 'reconciliation-files'), { ...range }, signal),
  /** The day's CSV: a plain link (the browser downloads it with the session cookie). */
  fileHref: (entityId: string, date: string) => `/dashboard/api${entityPath(entityId, `reconciliation-files/${segment(date)}`)}`,
  resend: (entityId: string, date: string) => api.post<FileAnswer>(entityPath(entityId, `reconciliation-files/${segment(date)}/resend`)),
};
