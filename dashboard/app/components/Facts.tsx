import type { ComponentChildren } from 'preact';
import { t } from '../i18n.ts';
import type { Facts as FactValues } from '../types.ts';

/** The name/value pairs of an object whose shape the contract leaves open, nested names joined with dots. */
export function factsOf(value: unknown, prefix = ''): [string, string][] {
  if (value === null || value === undefined) return [];
  if (typeof value !== 'object') return [[prefix, String(value)]];
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item !== 'object' || item === null)) return [[prefix, value.map(String).join(', ')]];
    return value.flatMap((item, index) => factsOf(item, `${prefix}[${index}]`));
  }
  return Object.entries(value as Record<string, unknown>).flatMap(([name, inner]) => factsOf(inner, prefix ? `${prefix}.${name}` : name));
}

function shownValue(value: string): string {
  if (value === 'true') return t('facts.yes');
  if (value === 'false') return t('facts.no');
  return value;
}

/** A description list of name/value rows. */
export function Facts(props: { readonly rows: readonly (readonly [string, ComponentChildren])[] }) {
  return (
    <dl class="facts">
      {props.rows.map(([name, value]) => (
        <div key={name} class="fact">
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A description list of facts (3-D Secure, risk, smart retry), or `none` when there are none. */
export function FactList(props: { readonly facts: FactValues | undefined; readonly none: string }) {
  const pairs = factsOf(props.facts);
  if (pairs.length === 0) return <p class="empty">{props.none}</p>;
  return <Facts rows={pairs.map(([name, value]) => [name, shownValue(value)] as const)} />;
}
