import type { GatewayEnvironment } from '../config.ts';
import {
  compileQuartz,
  fieldsOfExpression,
  isQuartzProblem,
  jobFieldsWithDefaults,
  type QuartzField,
  type QuartzProblem,
  type QuartzSchedule,
} from '../domain/cron.ts';
import { GatewayError, invalidParameters } from '../domain/errors.ts';
import { parseAmount } from '../domain/money.ts';
import type { TestMode } from '../domain/payment.ts';
import { RESULTS, type Result } from '../domain/resultCodes.ts';
import type { ParameterError } from '../domain/errors.ts';
import { validateParameters } from '../params/validate.ts';
import { requestEcho } from '../params/echo.ts';
import { resolveTestMode } from '../params/testMode.ts';

/**
 * The edge of the schedule use-cases (COMPAT §12, doc 3 §2.13): the wire's parameters validated once and turned into
 * a command. The job's cron fields get the §12 codes of the field at fault (100.250.12x), with parameterErrors
 * naming it; the other parameters the catalogue's 200.300.404.
 */

type Params = ReadonlyMap<string, string>;

const CRON_PARAMETERS: Readonly<Record<QuartzField, string>> = {
  second: 'job.second',
  minute: 'job.minute',
  hour: 'job.hour',
  dayOfMonth: 'job.dayOfMonth',
  month: 'job.month',
  dayOfWeek: 'job.dayOfWeek',
  year: 'job.year',
};
const CRON_FIELDS = Object.keys(CRON_PARAMETERS) as QuartzField[];
/** The job's fields other than the cron fields and the dates: kept and shown as sent (see docs/api.md, "Schedules"). */
export const JOB_EXTRA = ['job.name', 'job.noticeUnit', 'job.noticeNumber', 'job.noticeCallable', 'job.durationUnit', 'job.durationNumber'];
/** What a schedule keeps of the request for its executions' payments and its answers. */
export const KEPT_ECHO = ['standingInstruction', 'descriptor', 'merchantTransactionId', 'customParameters'];

const QUARTZ_RESULTS: Readonly<Record<QuartzProblem['code'], Result>> = {
  '100.250.120': RESULTS.jobNotStandard,
  '100.250.121': RESULTS.jobHour,
  '100.250.122': RESULTS.jobMinuteOrSecond,
  '100.250.123': RESULTS.jobDayOfMonth,
  '100.250.124': RESULTS.jobMonth,
  '100.250.125': RESULTS.jobDayOfWeek,
  '200.300.404': RESULTS.invalidParameter,
};

export interface CreateScheduleCommand {
  readonly entityId: string;
  readonly registrationId: string;
  readonly paymentType: 'PA' | 'DB' | 'CD';
  readonly amountMinor: number;
  readonly currency: string;
  readonly testMode: TestMode | undefined;
  /** standingInstruction (merchant-initiated, repeated), descriptor, merchantTransactionId, customParameters. */
  readonly echo: Record<string, unknown>;
  /** standingInstruction.initialTransactionId: the scheme's reference of the agreement, when the merchant sends it. */
  readonly initialTransactionId: string | undefined;
  readonly quartz: QuartzSchedule;
  /** job.name and the notice and duration fields, as sent. */
  readonly jobExtra: Readonly<Record<string, string>>;
  /** job.startDate; none: now. */
  readonly startAt: Date | undefined;
  /** The earlier of job.endDate and the end of the job's duration (job.durationUnit × job.durationNumber). */
  readonly endAt: Date | undefined;
}

function jobError(result: Result, parameter: string, value: string, message: string): GatewayError {
  return new GatewayError(result, 400, [{ name: parameter, value, message }]);
}

/** `yyyy-MM-dd HH:mm:ss` in UTC (the catalogue has checked the format). */
function utcDateTime(value: string): Date {
  return new Date(`${value.replace(' ', 'T')}Z`);
}

/** The end of a duration from `start`, in calendar units; undefined past the cron's last year. */
function durationEnd(start: Date, unit: string, count: number): Date | undefined {
  const end = new Date(start.getTime());
  const steps: Record<string, () => void> = {
    YEAR: () => end.setUTCFullYear(end.getUTCFullYear() + count),
    MONTH: () => end.setUTCMonth(end.getUTCMonth() + count),
    WEEK: () => end.setUTCDate(end.getUTCDate() + 7 * count),
    DAY: () => end.setUTCDate(end.getUTCDate() + count),
    HOUR: () => end.setTime(end.getTime() + count * 3_600_000),
    MINUTE: () => end.setTime(end.getTime() + count * 60_000),
    SECOND: () => end.setTime(end.getTime() + count * 1000),
  };
  // 16 digits of a unit overflow any date: such a job has no end.
  if (!Number.isSafeInteger(count) || count > 10_000_000) return undefined;
  steps[unit]?.();
  return Number.isNaN(end.getTime()) || end.getUTCFullYear() > 2099 ? undefined : end;
}

/** The job's timing: the fields (defaults of §12) or the expression, compiled; refused with the §12 codes. */
function quartzOf(params: Params): QuartzSchedule {
  const expression = params.get('job.expression');
  const given = Object.fromEntries(CRON_FIELDS.flatMap((field) => {
    const value = params.get(CRON_PARAMETERS[field]);
    return value === undefined ? [] : [[field, value]];
  })) as Partial<Record<QuartzField, string>>;
  let fields;
  if (expression !== undefined) {
    const parsed = fieldsOfExpression(expression);
    if (isQuartzProblem(parsed)) throw jobError(QUARTZ_RESULTS[parsed.code], 'job.expression', expression, parsed.message);
    fields = parsed;
  } else {
    if (Object.keys(given).length === 0) {
      throw jobError(RESULTS.jobMissingExecution, 'job.expression', '', 'the job needs job.expression or its fields (job.second to job.year)');
    }
    fields = jobFieldsWithDefaults(given);
  }
  const compiled = compileQuartz(fields);
  if (isQuartzProblem(compiled)) {
    // A problem in the expression names the expression: that is the parameter the merchant sent.
    const parameter = expression !== undefined ? 'job.expression' : compiled.parameter;
    const value = expression ?? params.get(compiled.parameter) ?? '';
    throw jobError(QUARTZ_RESULTS[compiled.code], parameter, value, compiled.message);
  }
  return compiled;
}

/** The standing instruction of a schedule's payments: merchant-initiated and repeated, whatever else the merchant says. */
function standingInstructionOf(params: Params, echo: Record<string, unknown>): Record<string, unknown> {
  const errors: ParameterError[] = [];
  const source = params.get('standingInstruction.source');
  const mode = params.get('standingInstruction.mode');
  if (source !== undefined && source !== 'MIT') errors.push({ name: 'standingInstruction.source', value: source, message: "must be MIT: a schedule's payments are merchant-initiated" });
  if (mode !== undefined && mode !== 'REPEATED') errors.push({ name: 'standingInstruction.mode', value: mode, message: "must be REPEATED: a schedule's payments follow an initial one" });
  if (errors.length > 0) throw invalidParameters(errors);
  const given = (echo.standingInstruction ?? {}) as Record<string, unknown>;
  return { type: 'RECURRING', ...given, source: 'MIT', mode: 'REPEATED' };
}

/** POST /scheduling/v1/schedules: the command, or a GatewayError naming what is wrong. */
export function createScheduleCommand(
  params: Params,
  context: { readonly entityId: string; readonly environment: GatewayEnvironment; readonly now: Date },
): CreateScheduleCommand {
  const testMode = resolveTestMode(params, context.environment);
  const cronParameters = new Set([...Object.values(CRON_PARAMETERS), 'job.expression']);
  // The cron fields are the job's to judge (with their own codes); the catalogue judges everything else.
  const errors = validateParameters(params, 'schedule').filter((error) => !cronParameters.has(error.name));
  if (errors.length > 0) throw invalidParameters(errors);

  for (const [unit, number, result] of [
    ['job.noticeUnit', 'job.noticeNumber', RESULTS.jobNoticeUnit],
    ['job.durationUnit', 'job.durationNumber', RESULTS.jobDurationUnit],
  ] as const) {
    if (params.has(number) && !params.has(unit)) throw jobError(result, unit, '', `is required with ${number}`);
  }
  const quartz = quartzOf(params);

  const start = params.get('job.startDate');
  const end = params.get('job.endDate');
  const startAt = start === undefined ? undefined : utcDateTime(start);
  let endAt = end === undefined ? undefined : utcDateTime(end);
  if (startAt && endAt && endAt.getTime() <= startAt.getTime()) {
    throw invalidParameters([{ name: 'job.endDate', value: end ?? '', message: 'must be after job.startDate' }]);
  }
  const durationUnit = params.get('job.durationUnit');
  const durationNumber = params.get('job.durationNumber');
  if (durationUnit !== undefined && durationNumber !== undefined) {
    const byDuration = durationEnd(startAt ?? context.now, durationUnit, Number(durationNumber));
    if (byDuration && (!endAt || byDuration.getTime() < endAt.getTime())) endAt = byDuration;
  }

  const echo = requestEcho(params);
  const kept: Record<string, unknown> = Object.fromEntries(KEPT_ECHO.filter((name) => echo[name] !== undefined).map((name) => [name, echo[name]]));
  kept.standingInstruction = standingInstructionOf(params, echo);
  const amount = params.get('amount') ?? '';
  const amountMinor = parseAmount(amount);
  if (amountMinor === undefined) throw invalidParameters([{ name: 'amount', value: amount, message: 'is not an amount' }]);
  return {
    entityId: context.entityId,
    registrationId: params.get('registrationId') as string,
    paymentType: params.get('paymentType') as CreateScheduleCommand['paymentType'],
    amountMinor,
    currency: params.get('currency') as string,
    testMode,
    echo: kept,
    initialTransactionId: params.get('standingInstruction.initialTransactionId'),
    quartz,
    jobExtra: Object.fromEntries(JOB_EXTRA.flatMap((name) => {
      const value = params.get(name);
      return value === undefined ? [] : [[name.slice('job.'.length), value]];
    })),
    startAt,
    endAt,
  };
}
