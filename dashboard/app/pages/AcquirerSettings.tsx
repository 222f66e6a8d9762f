import { useSignal } from '@preact/signals';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { entityName } from '../components/EntityPicker.tsx';
import { Facts } from '../components/Facts.tsx';
import { Field } from '../components/Field.tsx';
import { answerTitle, OutcomeMessage, useOutcome, useSaving, type Answered } from '../components/Outcome.tsx';
import { Loadable, Section } from '../components/Page.tsx';
import { Table } from '../components/Table.tsx';
import { formatDateTime, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { settingsApi, type ConnectorCredentials, type CredentialsAnswer, type CredentialsListAnswer, type RoutingAnswer, type RoutingRule } from '../settingsApi.ts';

/**
 * Where an entity's payments go, two parts of the Settings page: its routing rules (the first that matches a payment
 * names its acquirer; none: the default acquirer) and its credentials at each connector to a provider. A merchant
 * reads the rules and whether credentials are set; an operator changes both. The access token is write-only: typed,
 * sent, and cleared from the form; the page never receives it.
 */

interface SectionProps {
  readonly entityId: string;
  readonly operator: boolean;
}

// Routing rules.

/** A rule as the form edits it: every condition as typed, `key` keeping each rule's fields apart as rules move. */
interface RuleDraft {
  readonly key: number;
  readonly acquirer: string;
  readonly brands: string;
  readonly currencies: string;
  readonly minAmount: string;
  readonly maxAmount: string;
}

const draftOf = (rule: RoutingRule, key: number): RuleDraft => ({
  key,
  acquirer: rule.acquirer,
  brands: rule.brands?.join(', ') ?? '',
  currencies: rule.currencies?.join(', ') ?? '',
  minAmount: rule.minAmount ?? '',
  maxAmount: rule.maxAmount ?? '',
});

/** "visa, master" → ["VISA", "MASTER"]: brands and currencies are upper case. */
const namesIn = (text: string): string[] =>
  text
    .split(/[\s,;]+/)
    .map((name) => name.trim().toUpperCase())
    .filter(Boolean);

/** The rule sent: a condition left empty is left out (it holds for every payment); the gateway checks the rest. */
function ruleOf(draft: RuleDraft): RoutingRule {
  const brands = namesIn(draft.brands);
  const currencies = namesIn(draft.currencies);
  const minAmount = draft.minAmount.trim();
  const maxAmount = draft.maxAmount.trim();
  return {
    acquirer: draft.acquirer,
    ...(brands.length > 0 ? { brands } : {}),
    ...(currencies.length > 0 ? { currencies } : {}),
    ...(minAmount !== '' ? { minAmount } : {}),
    ...(maxAmount !== '' ? { maxAmount } : {}),
  };
}

export function RoutingSection(props: SectionProps) {
  const { loaded, reload } = useLoad((signal) => settingsApi.routing(props.entityId, signal), [props.entityId]);
  const answers = useOutcome();
  return (
    <Section title={t('settings.routing.title')} id="settings-routing">
      <p class="hint">{t('settings.routing.intro')}</p>
      <OutcomeMessage outcome={answers.outcome} />
      <Loadable loaded={loaded} reload={reload}>
        {(answer) => {
          const routing = answer.routing;
          const any = t('settings.routing.any');
          return (
            <>
              <Facts
                rows={[
                  [t('settings.routing.defaultAcquirer'), <span class="mono">{routing.defaultAcquirer}</span>],
                  [t('settings.updatedAt'), routing.updatedAt ? formatDateTime(routing.updatedAt) : t('settings.never')],
                ]}
              />
              <Table
                caption={t('settings.routing.caption', { entity: entityName(props.entityId) })}
                columns={[
                  { key: 'order', header: t('settings.routing.order'), cell: (row) => String(row.index + 1), numeric: true },
                  { key: 'acquirer', header: t('settings.routing.acquirer'), cell: (row) => <span class="mono">{row.rule.acquirer}</span> },
                  { key: 'brands', header: t('settings.routing.brands'), cell: (row) => row.rule.brands?.join(', ') ?? any },
                  { key: 'currencies', header: t('settings.routing.currencies'), cell: (row) => row.rule.currencies?.join(', ') ?? any },
                  { key: 'minAmount', header: t('settings.routing.minAmount'), cell: (row) => row.rule.minAmount ?? any, numeric: true },
                  { key: 'maxAmount', header: t('settings.routing.maxAmount'), cell: (row) => row.rule.maxAmount ?? any, numeric: true },
                ]}
                rows={routing.rules.map((rule, index) => ({ rule, index }))}
                rowKey={(row) => String(row.index)}
                empty={t('settings.routing.none', { acquirer: routing.defaultAcquirer })}
              />
              {props.operator && (
                <RoutingForm
                  key={routing.updatedAt ?? 'none'}
                  entityId={props.entityId}
                  answer={answer}
                  onSaved={(saved, title) => {
                    loaded.value = { state: 'done', data: saved };
                    answers.done(title, saved.result);
                  }}
                  onFailed={answers.failed}
                />
              )}
            </>
          );
        }}
      </Loadable>
    </Section>
  );
}

function RoutingForm(props: { readonly entityId: string; readonly answer: RoutingAnswer } & Answered<RoutingAnswer>) {
  const routing = props.answer.routing;
  const drafts = useSignal<readonly RuleDraft[]>(routing.rules.map(draftOf));
  const nextKey = useSignal(routing.rules.length);
  const { sending, submit, ask } = useSaving(props);

  const change = (key: number, field: Exclude<keyof RuleDraft, 'key'>, value: string) => {
    drafts.value = drafts.value.map((draft) => (draft.key === key ? { ...draft, [field]: value } : draft));
  };
  const add = () => {
    drafts.value = [...drafts.value, draftOf({ acquirer: routing.acquirers[0] ?? '' }, nextKey.value)];
    nextKey.value++;
  };
  const moveUp = (index: number) => {
    const moved = [...drafts.value];
    [moved[index - 1], moved[index]] = [moved[index] as RuleDraft, moved[index - 1] as RuleDraft];
    drafts.value = moved;
  };
  const save = async (event: Event) => {
    event.preventDefault();
    await submit(answerTitle(t('settings.routing.save')), () => settingsApi.saveRouting(props.entityId, drafts.value.map(ruleOf)));
  };
  const removeAll = () => ask(answerTitle(t('settings.routing.remove')), () => settingsApi.removeRouting(props.entityId));

  const text = (draft: RuleDraft, field: 'brands' | 'currencies' | 'minAmount' | 'maxAmount', hint: string, decimal = false) => (
    <Field label={t(`settings.routing.${field}`)} hint={hint}>
      {(control) => (
        <input
          {...control}
          name={field}
          type="text"
          spellcheck={false}
          autoComplete="off"
          inputMode={decimal ? 'decimal' : undefined}
          value={draft[field]}
          onInput={(event) => change(draft.key, field, event.currentTarget.value)}
        />
      )}
    </Field>
  );

  return (
    <form class="form settings-form" onSubmit={(event) => void save(event)} noValidate aria-labelledby="routing-form">
      <h3 id="routing-form">{t('settings.routing.change')}</h3>
      <p class="hint">{t('settings.routing.formHint')}</p>
      {drafts.value.map((draft, index) => (
        <fieldset key={draft.key}>
          <legend>{t('settings.routing.rule', { n: index + 1 })}</legend>
          <Field label={t('settings.routing.acquirer')} hint={routing.connectors.includes(draft.acquirer) ? t('settings.routing.connectorHint') : undefined}>
            {(control) => (
              <select {...control} name="acquirer" value={draft.acquirer} onChange={(event) => change(draft.key, 'acquirer', event.currentTarget.value)}>
                {routing.acquirers.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {text(draft, 'brands', t('settings.routing.brandsHint'))}
          {text(draft, 'currencies', t('settings.routing.currenciesHint'))}
          {text(draft, 'minAmount', t('settings.routing.amountHint'), true)}
          {text(draft, 'maxAmount', t('settings.routing.amountHint'), true)}
          <div class="buttons">
            {index > 0 && (
              <button type="button" class="button" onClick={() => moveUp(index)}>
                {t('settings.routing.moveUp', { n: index + 1 })}
              </button>
            )}
            <button type="button" class="button" onClick={() => (drafts.value = drafts.value.filter((kept) => kept.key !== draft.key))}>
              {t('settings.routing.removeRule', { n: index + 1 })}
            </button>
          </div>
        </fieldset>
      ))}
      <div class="buttons">
        <button type="button" class="button" onClick={add}>
          {t('settings.routing.addRule')}
        </button>
        <button type="submit" class="button button-primary" aria-disabled={sending.value}>
          {sending.value ? t('actions.sending') : t('settings.routing.save')}
        </button>
        {routing.updatedAt && (
          <ConfirmButton label={t('settings.routing.remove')} question={() => t('settings.routing.confirmRemove', { entity: entityName(props.entityId) })} onConfirm={removeAll} focusAfter="none" />
        )}
      </div>
    </form>
  );
}

// Credentials at the connectors' providers.

export function CredentialsSection(props: SectionProps) {
  const { loaded, reload } = useLoad((signal) => settingsApi.credentials(props.entityId, signal), [props.entityId]);
  const answers = useOutcome();
  /** One connector's answer shown in the list, the others kept. */
  const show = (list: CredentialsListAnswer, saved: CredentialsAnswer) => {
    const changed = saved.acquirerCredentials;
    loaded.value = { state: 'done', data: { ...list, acquirerCredentials: list.acquirerCredentials.map((known) => (known.acquirer === changed.acquirer ? changed : known)) } };
  };
  return (
    <Section title={t('settings.credentials.title')} id="settings-credentials">
      <p class="hint">{t('settings.credentials.intro')}</p>
      <OutcomeMessage outcome={answers.outcome} />
      <Loadable loaded={loaded} reload={reload}>
        {(answer) => {
          const connectors = answer.acquirerCredentials;
          if (connectors.length === 0) return <p class="empty">{t('settings.credentials.noConnectors')}</p>;
          return (
            <>
              <Table
                caption={t('settings.credentials.caption', { entity: entityName(props.entityId) })}
                columns={[
                  { key: 'acquirer', header: t('settings.credentials.connector'), cell: (row: ConnectorCredentials) => <span class="mono">{row.acquirer}</span> },
                  { key: 'set', header: t('settings.credentials.state'), cell: (row: ConnectorCredentials) => (row.set ? t('settings.credentials.set') : t('settings.credentials.notSet')) },
                  ...(props.operator
                    ? [
                        { key: 'providerEntityId', header: t('settings.credentials.providerEntityId'), cell: (row: ConnectorCredentials) => <span class="mono">{row.providerEntityId ?? ''}</span> },
                        { key: 'updatedAt', header: t('settings.updatedAt'), cell: (row: ConnectorCredentials) => (row.updatedAt ? formatDateTime(row.updatedAt) : t('settings.never')) },
                      ]
                    : []),
                ]}
                rows={connectors}
                rowKey={(row) => row.acquirer}
                empty={t('settings.credentials.noConnectors')}
              />
              {props.operator && (
                <CredentialsForm
                  entityId={props.entityId}
                  connectors={connectors}
                  onSaved={(saved, title) => {
                    show(answer, saved);
                    answers.done(title, saved.result);
                  }}
                  onFailed={answers.failed}
                />
              )}
            </>
          );
        }}
      </Loadable>
    </Section>
  );
}

function CredentialsForm(props: { readonly entityId: string; readonly connectors: readonly ConnectorCredentials[] } & Answered<CredentialsAnswer>) {
  const chosen = useSignal(props.connectors[0]?.acquirer ?? '');
  const providerEntityId = useSignal(props.connectors[0]?.providerEntityId ?? '');
  const accessToken = useSignal('');
  const { sending, submit, ask } = useSaving(props);
  const current = props.connectors.find((known) => known.acquirer === chosen.value);

  const choose = (acquirer: string) => {
    chosen.value = acquirer;
    providerEntityId.value = props.connectors.find((known) => known.acquirer === acquirer)?.providerEntityId ?? '';
  };
  const save = async (event: Event) => {
    event.preventDefault();
    await submit(answerTitle(t('settings.credentials.save')), async () => {
      const saved = await settingsApi.saveCredentials(props.entityId, chosen.value, { entityId: providerEntityId.value.trim(), accessToken: accessToken.value });
      accessToken.value = '';
      return saved;
    });
  };
  const remove = async () => {
    if (await ask(answerTitle(t('settings.credentials.remove', { acquirer: chosen.value })), () => settingsApi.removeCredentials(props.entityId, chosen.value))) providerEntityId.value = '';
  };

  return (
    <form class="form settings-form" onSubmit={(event) => void save(event)} noValidate aria-labelledby="credentials-form">
      <h3 id="credentials-form">{t('settings.credentials.change')}</h3>
      <Field label={t('settings.credentials.connector')}>
        {(control) => (
          <select {...control} name="acquirer" value={chosen.value} onChange={(event) => choose(event.currentTarget.value)}>
            {props.connectors.map((known) => (
              <option key={known.acquirer} value={known.acquirer}>
                {known.acquirer}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('settings.credentials.providerEntityId')} hint={t('settings.credentials.providerEntityIdHint')}>
        {(control) => (
          <input {...control} name="providerEntityId" type="text" spellcheck={false} autoComplete="off" value={providerEntityId.value} onInput={(event) => (providerEntityId.value = event.currentTarget.value)} />
        )}
      </Field>
      <Field label={t('settings.credentials.accessToken')} hint={current?.set ? t('settings.credentials.tokenReplace') : t('settings.credentials.tokenHint')}>
        {(control) => <input {...control} name="accessToken" type="password" autoComplete="new-password" value={accessToken.value} onInput={(event) => (accessToken.value = event.currentTarget.value)} />}
      </Field>
      <div class="buttons">
        <button type="submit" class="button button-primary" aria-disabled={sending.value}>
          {sending.value ? t('actions.sending') : t('settings.credentials.save')}
        </button>
        {current?.set && (
          <ConfirmButton
            label={t('settings.credentials.remove', { acquirer: chosen.value })}
            question={() => t('settings.credentials.confirmRemove', { acquirer: chosen.value, entity: entityName(props.entityId) })}
            onConfirm={remove}
            focusAfter="none"
          />
        )}
      </div>
    </form>
  );
}
