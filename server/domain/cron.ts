/**
 * Quartz cron job definitions (spec §2.13, COMPAT §12): validation with the API's result codes, and the fire
 * times of a schedule in UTC. Pure: the schedules code compiles a definition once, caches it by expression,
 * and asks `next()` for every schedule in a burst, so `next()` walks months and reads precomputed tables,
 * never seconds.
 *
 * Grammar (Quartz's documentation, https://www.quartz-scheduler.org/documentation/quartz-2.3.0/tutorials/crontrigger.html,
 * and the CronExpression javadoc): seven fields, second minute hour dayOfMonth month dayOfWeek year, the year
 * optional in an expression and '*' when absent or empty. Every field takes lists `a,b`, ranges `a-b`, `*`, and
 * steps `*\/s`, `a/s` (from a to the end of the field), `a-b/s`. Ranges may run backwards and wrap (`22-2`
 * hours, `FRI-MON`, `NOV-FEB`, a step carrying across the wrap as in Quartz: `22-2/2` = 22, 0, 2); a year range
 * may not. Steps are 1 to 59 (second, minute), 23 (hour), 31 (day of month), 12 (month), 7 (day of week), any
 * positive number for years. Names (JAN-DEC, SUN-SAT, any case) stand wherever their number may, steps
 * included. Leading zeros are fine. Day of month also takes `L`, `L-n` (n 0-30; in lists too, as a union),
 * and on its own `nW`, `LW`, `L-nW`; day of week takes 1=SUN..7=SAT, and on its own `L` (= 7, Saturday), `nL`
 * (the last n-day of the month) or `n#k` (the k-th n-day, k 1-5; no fire in a month without one). Exactly one
 * of day of month and day of week is `?`. Years are 1970-2099 (spec §2.13), so nothing fires after 2099.
 *
 * Where Quartz's CronExpression strays from its documentation we follow the documentation, and we refuse what
 * it leaves undefined rather than guess:
 * - `nW`: Quartz looks for the nominal day from the search start's day on, so a search starting on Monday the
 *   16th for `15W` (Sunday the 15th) skips that Monday's fire. Here each month's fire day is computed first.
 * - Steps after names: Quartz's parser drops them (`MON-FRI/2` fires every weekday); a name is its number here,
 *   so `MON-FRI/2` is `2-6/2`, Monday, Wednesday, Friday. Likewise `2-FRI`, which Quartz refuses, is `2-6`.
 * - Quartz refuses `6L,2` and `L,2` and reads `6#3,2` as the third Monday; its documentation calls `W` with a
 *   range or list unsupported. `L`, `nL`, `n#k`, `W` forms stand alone here
 *   (day of month `L`/`L-n` excepted: the current Quartz reads `1,15,L` as the union, and so do we).
 * - Quartz reads `5/0` as 5, `*\/0` as `*`, `/5` as `*\/5`, `MONDAY` as MON: all refused here.
 * - Quartz allows years to 2199; the API stops at 2099 (spec §2.13).
 * UTC throughout, so no daylight-saving gaps or repeats.
 *
 * Cost (measured, Node 20): compiling about 40 µs; `next()` about 1 µs, 5-10 µs for a definition that never
 * fires (it looks at every allowed month to 2099); a compiled schedule holds about 1.4 KB.
 *
 * croner (11.0.1, https://croner.56k.guru) was the intended engine and is the test suite's cross-check instead
 * (cron.test.ts compares fire times on every pattern it reads the Quartz way, with `mode:'7-part'`,
 * `alternativeWeekdays`, `sloppyRanges`, `utcOffset:0`; it is a devDependency). It does not run here because
 * each Cron keeps a 10,000-entry year table (81 KiB measured): caching compiled schedules would cost about
 * 800 MB per 10,000 distinct definitions (and they are distinct, merchants pick their own minute), while
 * building one per call costs 60-90 µs and that garbage. A croner nextRun takes 3-40 µs with `utcOffset:0`,
 * 50-110 µs with `timezone:'UTC'`. We would also have needed our own parser (the result codes), expansion of
 * wrapping ranges and names, and a day filter on top for `L-n`: what remained for croner was the search.
 * Where croner reads a pattern differently from Quartz (checked on 11.0.1):
 * - `L-n`, `L-nW` in day of month: refused ("L has to be a value of its own"). Implemented here.
 * - bare `L` in day of week: refused ("not a number"); Quartz: Saturday. Here: 7.
 * - wrapping ranges (`22-2`, `FRI-MON`, `SAT-SUN`): refused ("From value is larger"). Expanded here as Quartz.
 * - day of week 8 (and `8L`) accepted as Sunday in Quartz numbering; Quartz refuses. Refused here.
 * - a step of 60 in seconds/minutes accepted (`*\/60` = 0); Quartz refuses > 59. Refused here.
 * - both days given (`0 0 12 15 * 2`): croner ORs them; Quartz refuses the definition (100.250.120 here).
 * - `?` is croner's alias of `*`, in any field; Quartz takes it in the day fields only, exactly one of them.
 * - lists of `#`/`nL`/`W` items accepted as unions; Quartz refuses or misreads them (above). Refused here.
 * - years 1-9999 accepted, `*` searched to year 3000; ours stop at 2099.
 * - a numeric-prefix step (`0/5`, `1/5`) needs `sloppyRanges:true`; Quartz's own form. Supported here.
 * - nicknames (`@daily`) and the `+` AND-modifier are croner's; not Quartz, refused here.
 * croner agrees with Quartz on `L`, `LW`, `nW` at month edges (`1W` on a Saturday is Monday the 3rd, `31W`
 * and `LW` on a weekend step back, a missing 31st means no fire), `nL`, `n#k`, leap days, and the year field.
 */

/** The seven Quartz fields as strings (job.second ... job.year), after defaults. */
export interface QuartzFields {
  readonly second: string;
  readonly minute: string;
  readonly hour: string;
  readonly dayOfMonth: string;
  readonly month: string;
  readonly dayOfWeek: string;
  readonly year: string;
}

export type QuartzField = keyof QuartzFields;

/** Why a definition is refused: the result code of COMPAT §12 and the field it names (parameter name job.<field>, or job.expression). */
export interface QuartzProblem {
  readonly code: '100.250.120' | '100.250.121' | '100.250.122' | '100.250.123' | '100.250.124' | '100.250.125' | '200.300.404';
  readonly parameter: string;
  readonly message: string;
}

export interface QuartzSchedule {
  /** Normalised: trimmed, upper-cased, an empty year as '*'; otherwise as sent. */
  readonly fields: QuartzFields;
  /** The seven fields joined by single spaces, e.g. "0 15 10 ? * 6L *". */
  readonly expression: string;
  /** The first fire time strictly after `after` (UTC, whole seconds), or undefined when there is none (never, or past 2099). */
  next(after: Date): Date | undefined;
}

/** Field order of a cron expression. */
const FIELD_ORDER: readonly QuartzField[] = ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'];

const FIRST_YEAR = 1970;
const LAST_YEAR = 2099;

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  readonly min: number;
  readonly max: number;
  /** Quartz refuses larger increments (checkIncrementRange); years have no limit there. */
  readonly maxStep: number;
  readonly code: QuartzProblem['code'];
  /** Names standing for min, min + 1, ... */
  readonly names?: readonly string[];
  /** Quartz wraps a backwards range over the field's end, except for years. */
  readonly wraps: boolean;
}

const SPECS: Record<QuartzField, FieldSpec> = {
  second: { min: 0, max: 59, maxStep: 59, code: '100.250.122', wraps: true },
  minute: { min: 0, max: 59, maxStep: 59, code: '100.250.122', wraps: true },
  hour: { min: 0, max: 23, maxStep: 23, code: '100.250.121', wraps: true },
  dayOfMonth: { min: 1, max: 31, maxStep: 31, code: '100.250.123', wraps: true },
  month: { min: 1, max: 12, maxStep: 12, code: '100.250.124', names: MONTH_NAMES, wraps: true },
  dayOfWeek: { min: 1, max: 7, maxStep: 7, code: '100.250.125', names: DAY_NAMES, wraps: true },
  year: { min: FIRST_YEAR, max: LAST_YEAR, maxStep: Number.MAX_SAFE_INTEGER, code: '200.300.404', wraps: false },
};

/**
 * §12 defaults: second 0, minute 0, hour 0, dayOfMonth 1, month 1, year '*'; only one of dayOfMonth/dayOfWeek
 * given → the other '?'; neither → dayOfMonth 1, dayOfWeek '?'. Empty (or blank) strings count as absent.
 */
export function jobFieldsWithDefaults(given: Partial<Record<QuartzField, string>>): QuartzFields {
  const value = (field: QuartzField): string | undefined => {
    const trimmed = given[field]?.trim();
    return trimmed === undefined || trimmed === '' ? undefined : trimmed;
  };
  const dayOfMonth = value('dayOfMonth');
  const dayOfWeek = value('dayOfWeek');
  return {
    second: value('second') ?? '0',
    minute: value('minute') ?? '0',
    hour: value('hour') ?? '0',
    dayOfMonth: dayOfMonth ?? (dayOfWeek === undefined ? '1' : '?'),
    month: value('month') ?? '1',
    dayOfWeek: dayOfWeek ?? '?',
    year: value('year') ?? '*',
  };
}

/** job.expression: 6 or 7 whitespace-separated fields (year optional); anything else is a QuartzProblem naming job.expression (code 100.250.120). */
export function fieldsOfExpression(expression: string): QuartzFields | QuartzProblem {
  const trimmed = expression.trim();
  const parts = trimmed === '' ? [] : trimmed.split(/\s+/);
  if (parts.length !== 6 && parts.length !== 7) {
    return {
      code: '100.250.120',
      parameter: 'job.expression',
      message: `a cron expression has 6 or 7 fields (second minute hour dayOfMonth month dayOfWeek [year]), this one has ${parts.length}`,
    };
  }
  const [second, minute, hour, dayOfMonth, month, dayOfWeek, year] = parts as [string, string, string, string, string, string, string?];
  return { second, minute, hour, dayOfMonth, month, dayOfWeek, year: year ?? '*' };
}

export function isQuartzProblem(value: unknown): value is QuartzProblem {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<keyof QuartzProblem, unknown>>;
  return typeof candidate.code === 'string' && typeof candidate.parameter === 'string' && typeof candidate.message === 'string';
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing: each field to the set of its values, or the words of its problem.

/** The values a plain field allows, as flags indexed by value - min. */
type ValueFlags = boolean[];

const PLAIN_ITEM = /^(?:(\*)|([0-9]+|[A-Z]+)(?:-([0-9]+|[A-Z]+))?)(?:\/([0-9]*))?$/;

function rangeText(spec: FieldSpec): string {
  return spec.names ? `${spec.min}-${spec.max} or ${spec.names[0]}-${spec.names[spec.names.length - 1]}` : `${spec.min}-${spec.max}`;
}

/** A number or a name of the field, or the reason it is neither. */
function valueOf(token: string, spec: FieldSpec): number | string {
  let value: number;
  if (/^[0-9]+$/.test(token)) {
    value = Number(token);
  } else {
    const index = spec.names?.indexOf(token) ?? -1;
    if (index < 0) return `'${token}' is not a value of ${rangeText(spec)}`;
    value = spec.min + index;
  }
  if (value < spec.min || value > spec.max) return `${token} is outside ${rangeText(spec)}`;
  return value;
}

/** Marks the values of one list item (`*`, `a`, `a-b`, each optionally `/step`); returns the reason when it is no such item. */
function markPlainItem(item: string, spec: FieldSpec, flags: ValueFlags): string | undefined {
  const match = PLAIN_ITEM.exec(item);
  if (!match) return `'${item}' is not a value, range or step`;
  const [, star, fromToken, toToken, stepToken] = match;
  let step = 1;
  if (stepToken !== undefined) {
    step = Number(stepToken);
    if (stepToken === '' || !(step >= 1 && step <= spec.maxStep)) {
      return spec.maxStep === Number.MAX_SAFE_INTEGER ? `the step in '${item}' must be a positive number` : `the step in '${item}' must be 1-${spec.maxStep}`;
    }
  }
  let from = spec.min;
  let to = spec.max;
  if (star === undefined) {
    const first = valueOf(fromToken!, spec);
    if (typeof first === 'string') return first;
    from = first;
    if (toToken !== undefined) {
      const last = valueOf(toToken, spec);
      if (typeof last === 'string') return last;
      to = last;
    } else if (stepToken === undefined) {
      to = from; // a single value
    }
  }
  const size = spec.max - spec.min + 1;
  if (to < from) {
    if (!spec.wraps) return `the range '${item}' runs backwards`;
    to += size; // Quartz: count on past the end and take the values modulo the field's size
  }
  for (let value = from; value <= to; value += step) flags[(value - spec.min) % size] = true;
  return undefined;
}

function parsePlainList(text: string, spec: FieldSpec): ValueFlags | string {
  const flags: ValueFlags = new Array<boolean>(spec.max - spec.min + 1).fill(false);
  for (const item of text.split(',')) {
    const problem = markPlainItem(item, spec, flags);
    if (problem !== undefined) return problem;
  }
  return flags;
}

/** How the days of a month are chosen: by one of the two day fields, the other being '?'. */
type DayRule =
  | { readonly kind: 'none' }
  /** Days of month (bits 1-31), with `L-n` offsets from the last day (0 for `L`). */
  | { readonly kind: 'days'; readonly days: number; readonly fromEnd: readonly number[] }
  /** `nW` (day n), or `LW`/`L-nW` (fromEnd, day = the offset n): the weekday nearest that day, within the month. */
  | { readonly kind: 'nearestWeekday'; readonly day: number; readonly fromEnd: boolean }
  /** Weekdays as bits 1 (Sunday) to 7 (Saturday). */
  | { readonly kind: 'weekdays'; readonly weekdays: number }
  | { readonly kind: 'lastWeekdayOf'; readonly weekday: number }
  | { readonly kind: 'nthWeekdayOf'; readonly weekday: number; readonly nth: number };

const NONE: DayRule = { kind: 'none' };

function parseDayOfMonth(text: string): DayRule | string {
  if (text === '?') return NONE;
  if (text.includes('W')) {
    const match = /^(?:([0-9]+)|L(?:-([0-9]+))?)W$/.exec(text);
    if (!match) return `'W' goes after a single day (15W) or L, L-n (LW, L-3W), never in a list or range: '${text}'`;
    if (match[1] !== undefined) {
      const day = Number(match[1]);
      if (!(day >= 1 && day <= 31)) return `${match[1]}W: the day must be 1-31`;
      return { kind: 'nearestWeekday', day, fromEnd: false };
    }
    const offset = Number(match[2] ?? '0');
    if (offset > 30) return `L-${match[2]}W: the offset from the last day must be 0-30`;
    return { kind: 'nearestWeekday', day: offset, fromEnd: true };
  }
  const spec = SPECS.dayOfMonth;
  const flags: ValueFlags = new Array<boolean>(31).fill(false);
  const fromEnd: number[] = [];
  for (const item of text.split(',')) {
    const last = /^L(?:-([0-9]*))?$/.exec(item);
    if (last) {
      const offset = Number(last[1] ?? '0');
      if (last[1] === '' || offset > 30) return `'${item}': the offset from the last day must be 0-30`;
      fromEnd.push(offset);
      continue;
    }
    if (item.includes('L')) return `'L' stands alone or as L-n in a day of month: '${item}'`;
    const problem = markPlainItem(item, spec, flags);
    if (problem !== undefined) return problem;
  }
  let days = 0;
  flags.forEach((on, index) => {
    if (on) days |= 1 << (index + 1);
  });
  return { kind: 'days', days, fromEnd };
}

function parseDayOfWeek(text: string): DayRule | string {
  if (text === '?') return NONE;
  const spec = SPECS.dayOfWeek;
  if (text === 'L') return { kind: 'weekdays', weekdays: 1 << 7 }; // Quartz: a bare L is 7, Saturday
  const special = /^([0-9]+|[A-Z]{3})(?:(L)|#([0-9]*))$/.exec(text);
  if (special) {
    const weekday = valueOf(special[1]!, spec);
    if (typeof weekday === 'string') return weekday;
    if (special[2] !== undefined) return { kind: 'lastWeekdayOf', weekday };
    const nth = Number(special[3]);
    if (special[3] === '' || !(nth >= 1 && nth <= 5)) return `'${text}': the number after # must be 1-5`;
    return { kind: 'nthWeekdayOf', weekday, nth };
  }
  if (text.includes('L') || text.includes('#')) {
    return `'L' and '#' stand alone in a day of week (L, 6L, FRIL, 6#3), never in a list or range: '${text}'`;
  }
  const flags = parsePlainList(text, spec);
  if (typeof flags === 'string') return flags;
  let weekdays = 0;
  flags.forEach((on, index) => {
    if (on) weekdays |= 1 << (index + 1);
  });
  return { kind: 'weekdays', weekdays };
}

// ---------------------------------------------------------------------------------------------------------------
// Fire days: which days of a month fire depends only on the month's length and the weekday of its 1st, so a
// schedule keeps 28 masks and `next()` reads one per month.

/** Weekday of day `day` when the 1st is `firstWeekday`: 0 = Sunday ... 6 = Saturday. */
function weekdayOf(day: number, firstWeekday: number): number {
  return (firstWeekday + day - 1) % 7;
}

/** Quartz `W`: the weekday nearest `day`, never leaving the month; 0 when the month has no such day. */
function nearestWeekday(day: number, length: number, firstWeekday: number): number {
  if (day < 1 || day > length) return 0;
  const weekday = weekdayOf(day, firstWeekday);
  if (weekday === 6) return day === 1 ? 3 : day - 1; // Saturday: the Friday before, or Monday the 3rd
  if (weekday === 0) return day === length ? day - 2 : day + 1; // Sunday: the Monday after, or the Friday before the last
  return day;
}

function fireDays(rule: DayRule, length: number, firstWeekday: number): number {
  let mask = 0;
  switch (rule.kind) {
    case 'none':
      return 0;
    case 'days': {
      mask = rule.days & (length === 31 ? -2 : ((1 << (length + 1)) - 2));
      for (const offset of rule.fromEnd) if (length - offset >= 1) mask |= 1 << (length - offset);
      return mask;
    }
    case 'nearestWeekday': {
      const day = nearestWeekday(rule.fromEnd ? length - rule.day : rule.day, length, firstWeekday);
      return day === 0 ? 0 : 1 << day;
    }
    default:
      for (let day = 1; day <= length; day++) {
        const weekday = weekdayOf(day, firstWeekday) + 1; // Quartz numbering, 1 = Sunday
        const fires =
          rule.kind === 'weekdays'
            ? (rule.weekdays & (1 << weekday)) !== 0
            : rule.kind === 'lastWeekdayOf'
              ? weekday === rule.weekday && day + 7 > length
              : weekday === rule.weekday && Math.ceil(day / 7) === rule.nth;
        if (fires) mask |= 1 << day;
      }
      return mask;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Compiling and searching.

/** `table[v]` = the smallest allowed value >= v, or -1; one entry past the end so `v + 1` may be looked up. */
function nextValueTable(flags: ValueFlags, min: number): Int8Array {
  const table = new Int8Array(flags.length + min + 1).fill(-1);
  for (let value = flags.length + min - 1, next = -1; value >= 0; value--) {
    if (value >= min && flags[value - min]) next = value;
    table[value] = next;
  }
  return table;
}

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const LAST_FIRE_SECOND = Date.UTC(LAST_YEAR, 11, 31, 23, 59, 59) / 1000;

class CompiledQuartz implements QuartzSchedule {
  readonly expression: string;

  constructor(
    readonly fields: QuartzFields,
    private readonly nextSecond: Int8Array,
    private readonly nextMinute: Int8Array,
    private readonly nextHour: Int8Array,
    /** Bits 1-12. */
    private readonly months: number,
    /** Ascending. */
    private readonly years: Uint16Array,
    /** Indexed by (month length - 28) * 7 + weekday of the 1st (0 = Sunday). */
    private readonly dayMasks: Int32Array,
  ) {
    this.expression = FIELD_ORDER.map((field) => fields[field]).join(' ');
  }

  next(after: Date): Date | undefined {
    const afterMs = after.getTime();
    if (Number.isNaN(afterMs)) throw new RangeError('QuartzSchedule.next: invalid date');
    const start = Math.floor(afterMs / 1000) + 1; // strictly after, in whole seconds
    if (start > LAST_FIRE_SECOND) return undefined;
    const at = new Date(start * 1000);
    const startYear = at.getUTCFullYear();
    const startMonth = at.getUTCMonth() + 1;
    const startDay = at.getUTCDate();
    const years = this.years;
    for (let index = 0; index < years.length; index++) {
      const year = years[index]!;
      if (year < startYear) continue;
      const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
      for (let month = year === startYear ? startMonth : 1; month <= 12; month++) {
        if ((this.months & (1 << month)) === 0) continue;
        const length = month === 2 && leap ? 29 : DAYS_IN_MONTH[month]!;
        const firstWeekday = (Math.floor(Date.UTC(year, month - 1, 1) / 86_400_000) + 4) % 7; // 1970-01-01 was a Thursday
        let days = this.dayMasks[(length - 28) * 7 + firstWeekday]!;
        const startsHere = year === startYear && month === startMonth;
        if (startsHere) days &= -1 << startDay;
        while (days !== 0) {
          const day = 31 - Math.clz32(days & -days); // the lowest bit: the earliest day left
          const second = startsHere && day === startDay
            ? this.firstSecondOfDayFrom(at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds())
            : this.firstSecondOfDayFrom(0, 0, 0);
          if (second >= 0) return new Date(Date.UTC(year, month - 1, day) + second * 1000);
          days &= days - 1;
        }
      }
    }
    return undefined;
  }

  /** The first allowed time of day at or after hour:minute:second, in seconds of the day, or -1. */
  private firstSecondOfDayFrom(hour: number, minute: number, second: number): number {
    const h = this.nextHour[hour]!;
    if (h < 0) return -1;
    if (h === hour) {
      const m = this.nextMinute[minute]!;
      if (m === minute) {
        const s = this.nextSecond[second]!;
        if (s >= 0) return h * 3600 + m * 60 + s;
      }
      const laterMinute = m === minute ? this.nextMinute[minute + 1]! : m;
      if (laterMinute >= 0) return h * 3600 + laterMinute * 60 + this.nextSecond[0]!;
      const laterHour = this.nextHour[hour + 1]!;
      return laterHour < 0 ? -1 : laterHour * 3600 + this.nextMinute[0]! * 60 + this.nextSecond[0]!;
    }
    return h * 3600 + this.nextMinute[0]! * 60 + this.nextSecond[0]!;
  }
}

function problem(field: QuartzField, message: string): QuartzProblem {
  return { code: SPECS[field].code, parameter: `job.${field}`, message: `job.${field}: ${message}` };
}

/** Validates and compiles; the problem names the first bad field. */
export function compileQuartz(fields: QuartzFields): QuartzSchedule | QuartzProblem {
  const normal = {} as Record<QuartzField, string>;
  for (const field of FIELD_ORDER) normal[field] = fields[field].trim().toUpperCase();
  if (normal.year === '') normal.year = '*';

  const plain = {} as Record<'second' | 'minute' | 'hour' | 'month' | 'year', ValueFlags>;
  let dayOfMonth: DayRule = NONE;
  let dayOfWeek: DayRule = NONE;
  for (const field of FIELD_ORDER) {
    const text = normal[field];
    let parsed: ValueFlags | DayRule | string;
    if (text === '') parsed = 'the field is empty';
    else if (field === 'dayOfMonth') parsed = parseDayOfMonth(text);
    else if (field === 'dayOfWeek') parsed = parseDayOfWeek(text);
    else if (text.includes('?')) parsed = `'?' is only for dayOfMonth or dayOfWeek`;
    else parsed = parsePlainList(text, SPECS[field]);
    if (typeof parsed === 'string') return problem(field, parsed);
    if (field === 'dayOfMonth') dayOfMonth = parsed as DayRule;
    else if (field === 'dayOfWeek') dayOfWeek = parsed as DayRule;
    else plain[field] = parsed as ValueFlags;
  }
  if ((dayOfMonth.kind === 'none') === (dayOfWeek.kind === 'none')) {
    return {
      code: '100.250.120',
      parameter: 'job.dayOfMonth',
      message: `exactly one of dayOfMonth and dayOfWeek must be '?' (got '${normal.dayOfMonth}' and '${normal.dayOfWeek}')`,
    };
  }

  const rule = dayOfMonth.kind === 'none' ? dayOfWeek : dayOfMonth;
  const dayMasks = new Int32Array(28);
  for (let length = 28; length <= 31; length++) {
    for (let firstWeekday = 0; firstWeekday < 7; firstWeekday++) dayMasks[(length - 28) * 7 + firstWeekday] = fireDays(rule, length, firstWeekday);
  }
  let months = 0;
  plain.month.forEach((on, index) => {
    if (on) months |= 1 << (index + 1);
  });
  const years: number[] = [];
  plain.year.forEach((on, index) => {
    if (on) years.push(FIRST_YEAR + index);
  });
  return new CompiledQuartz(
    normal,
    nextValueTable(plain.second, 0),
    nextValueTable(plain.minute, 0),
    nextValueTable(plain.hour, 0),
    months,
    Uint16Array.from(years),
    dayMasks,
  );
}
