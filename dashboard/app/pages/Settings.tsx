import { useSignal, type Signal } from '@preact/signals';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { currentEntityId, entityName, EntityPicker } from '../components/EntityPicker.tsx';
import { Field } from '../components/Field.tsx';
import { answerTitle, OutcomeMessage, useOutcome, useSaving, type Answered } from '../components/Outcome.tsx';
import { Facts } from '../components/Facts.tsx';
import { Loadable, Page, Section } from '../components/Page.tsx';
import { formatDateTime, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { settingsApi, type BrandsAnswer, type FtpAnswer, type FtpInput, type SmartRetryAnswer } from '../settingsApi.ts';
import { session } from '../state.ts';
import { CredentialsSection, RoutingSection } from './AcquirerSettings.tsx';
import './settings.css';

/**
 * An entity's settings: smart retry, the brands it offers, the FTP server its reconciliation file goes to, and where
 * its payments go (routing rules, credentials at the connectors: AcquirerSettings.tsx). A merchant reads its own
 * entity's; an operator changes them (the API refuses a merchant anyway). Each part loads and saves on its own and
 * shows the gateway's answer (result code, description, what to correct); removing asks first. The FTP password and
 * the connectors' tokens are write-only: the page only ever learns whether one is set.
 */

export function SettingsPage() {
  const entityId = currentEntityId();
  const operator = session.value?.principal.kind === 'operator';
  return (
    <Page title={t('pages.settings.title')}>
      <p>{t('pages.settings.intro')}</p>
      <EntityPicker />
      {!operator && (
        <p class="message message-info" role="note">
          {t('settings.readOnly')}
        </p>
      )}
      {entityId ? (
        <>
          <SmartRetrySection key={`smart-retry-${entityId}`} entityId={entityId} operator={operator} />
          <BrandsSection key={`brands-${entityId}`} entityId={entityId} operator={operator} />
          <FtpSection key={`ftp-${entityId}`} entityId={entityId} operator={operator} />
          <RoutingSection key={`routing-${entityId}`} entityId={entityId} operator={operator} />
          <CredentialsSection key={`credentials-${entityId}`} entityId={entityId} operator={operator} />
        </>
      ) : (
        <p class="empty">{t('settings.noEntity')}</p>
      )}
    </Page>
  );
}

interface SectionProps {
  readonly entityId: string;
  readonly operator: boolean;
}

const yesNo = (value: boolean) => (value ? t('facts.yes') : t('facts.no'));

function Checkbox(props: { readonly name: string; readonly label: string; readonly checked: boolean; readonly onChange: (checked: boolean) => void }) {
  return (
    <label class="checkbox-option">
      <input type="checkbox" name={props.name} checked={props.checked} onChange={(event) => props.onChange(event.currentTarget.checked)} />
      {props.label}
    </label>
  );
}

// Smart retry.

function SmartRetrySection(props: SectionProps) {
  const { loaded, reload } = useLoad((signal) => settingsApi.smartRetry(props.entityId, signal), [props.entityId]);
  const answers = useOutcome();
  const show = (answer: SmartRetryAnswer) => {
    loaded.value = { state: 'done', data: answer };
  };
  return (
    <Section title={t('settings.smartRetry.title')} id="settings-smart-retry">
      <p class="hint">{t('settings.smartRetry.intro')}</p>
      <OutcomeMessage outcome={answers.outcome} />
      <Loadable loaded={loaded} reload={reload}>
        {(answer) => {
          const settings = answer.smartRetry;
          return (
            <>
              <Facts
                rows={[
                  [t('settings.smartRetry.state'), settings.inEffect ? t('settings.smartRetry.inEffect') : t('settings.smartRetry.notInEffect', { reason: settings.notInEffectBecause ?? '' })],
                  [t('settings.smartRetry.enabled'), yesNo(settings.enabled)],
                  [t('settings.smartRetry.fallbackAcquirer'), settings.fallbackAcquirer ?? t('facts.none')],
                  [t('settings.smartRetry.codes'), <span class="mono settings-list">{settings.codes.join(', ')}</span>],
                  [t('settings.smartRetry.codesKind'), settings.defaultCodes ? t('settings.smartRetry.defaultCodes') : t('settings.smartRetry.ownCodes')],
                  [t('settings.smartRetry.standalone'), yesNo(settings.standalone)],
                  [t('settings.smartRetry.cardOnFile'), yesNo(settings.cardOnFile)],
                  [t('settings.updatedAt'), settings.updatedAt ? formatDateTime(settings.updatedAt) : t('settings.never')],
                ]}
              />
              {props.operator && (
                <SmartRetryForm
                  key={settings.updatedAt ?? 'none'}
                  entityId={props.entityId}
                  answer={answer}
                  onSaved={(saved, title) => {
                    show(saved);
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

function SmartRetryForm(props: { readonly entityId: string; readonly answer: SmartRetryAnswer } & Answered<SmartRetryAnswer>) {
  const settings = props.answer.smartRetry;
  const choices = [...(props.answer.fallbackAcquirers ?? [])];
  if (settings.fallbackAcquirer && !choices.includes(settings.fallbackAcquirer)) choices.unshift(settings.fallbackAcquirer);
  const enabled = useSignal(settings.updatedAt ? settings.enabled : true);
  const fallback = useSignal(settings.fallbackAcquirer ?? '');
  const codes = useSignal(settings.defaultCodes ? '' : settings.codes.join('\n'));
  const standalone = useSignal(settings.standalone);
  const cardOnFile = useSignal(settings.cardOnFile);
  const { sending, submit, ask } = useSaving(props);

  const save = async (event: Event) => {
    event.preventDefault();
    const list = codes.value
      .split(/[\s,;]+/)
      .map((code) => code.trim())
      .filter(Boolean);
    await submit(answerTitle(t('settings.smartRetry.save')), () =>
      settingsApi.saveSmartRetry(props.entityId, {
        enabled: enabled.value,
        fallbackAcquirer: fallback.value,
        codes: list.length > 0 ? list : 'default',
        standalone: standalone.value,
        cardOnFile: cardOnFile.value,
      }),
    );
  };
  const remove = () => ask(answerTitle(t('settings.smartRetry.remove')), () => settingsApi.removeSmartRetry(props.entityId));

  return (
    <form class="form settings-form" onSubmit={(event) => void save(event)} noValidate aria-labelledby="smart-retry-form">
      <h3 id="smart-retry-form">{t('settings.smartRetry.change')}</h3>
      <Checkbox name="enabled" label={t('settings.smartRetry.enabledLabel')} checked={enabled.value} onChange={(value) => (enabled.value = value)} />
      <Field label={t('settings.smartRetry.fallbackAcquirer')} hint={choices.length === 0 ? t('settings.smartRetry.noAcquirer') : t('settings.smartRetry.fallbackHint')}>
        {(control) => (
          <select {...control} name="fallbackAcquirer" value={fallback.value} onChange={(event) => (fallback.value = event.currentTarget.value)}>
            <option value="">{t('settings.smartRetry.chooseAcquirer')}</option>
            {choices.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('settings.smartRetry.codesLabel')} hint={t('settings.smartRetry.codesHint')}>
        {(control) => <textarea {...control} name="codes" rows={4} spellcheck={false} value={codes.value} onInput={(event) => (codes.value = event.currentTarget.value)} />}
      </Field>
      <fieldset class="choice">
        <legend>{t('settings.smartRetry.appliesTo')}</legend>
        <Checkbox name="standalone" label={t('settings.smartRetry.standalone')} checked={standalone.value} onChange={(value) => (standalone.value = value)} />
        <Checkbox name="cardOnFile" label={t('settings.smartRetry.cardOnFile')} checked={cardOnFile.value} onChange={(value) => (cardOnFile.value = value)} />
      </fieldset>
      <div class="buttons">
        <button type="submit" class="button button-primary" aria-disabled={sending.value}>
          {sending.value ? t('actions.sending') : t('settings.smartRetry.save')}
        </button>
        {settings.updatedAt && (
          <ConfirmButton label={t('settings.smartRetry.remove')} question={() => t('settings.smartRetry.confirmRemove', { entity: entityName(props.entityId) })} onConfirm={remove} focusAfter="none" />
        )}
      </div>
    </form>
  );
}

// The brands the entity offers.

function BrandsSection(props: SectionProps) {
  const { loaded, reload } = useLoad((signal) => settingsApi.brands(props.entityId, signal), [props.entityId]);
  const answers = useOutcome();
  return (
    <Section title={t('settings.brands.title')} id="settings-brands">
      <p class="hint">{t('settings.brands.intro')}</p>
      <OutcomeMessage outcome={answers.outcome} />
      <Loadable loaded={loaded} reload={reload}>
        {(answer) => {
          const offered = answer.offeredBrands;
          return (
            <>
              <Facts
                rows={[
                  [t('settings.brands.offered'), <span class="mono settings-list">{offered.brands.join(', ')}</span>],
                  [t('settings.brands.source'), offered.default ? t('settings.brands.default') : t('settings.brands.own')],
                  [t('settings.updatedAt'), offered.updatedAt ? formatDateTime(offered.updatedAt) : t('settings.never')],
                ]}
              />
              {props.operator && (
                <BrandsForm
                  key={offered.updatedAt ?? 'default'}
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

function BrandsForm(props: { readonly entityId: string; readonly answer: BrandsAnswer } & Answered<BrandsAnswer>) {
  const offered = props.answer.offeredBrands;
  const chosen = useSignal<readonly string[]>(offered.brands);
  const { sending, submit, ask } = useSaving(props);
  const toggle = (brand: string, on: boolean) => {
    chosen.value = on ? [...chosen.value.filter((known) => known !== brand), brand] : chosen.value.filter((known) => known !== brand);
  };
  const save = async (event: Event) => {
    event.preventDefault();
    // In the gateway's order of brands.
    await submit(answerTitle(t('settings.brands.save')), () => settingsApi.saveBrands(props.entityId, offered.knownBrands.filter((brand) => chosen.value.includes(brand))));
  };
  const restore = () => ask(answerTitle(t('settings.brands.restore')), () => settingsApi.removeBrands(props.entityId));
  return (
    <form class="form settings-form" onSubmit={(event) => void save(event)} noValidate aria-labelledby="brands-form">
      <h3 id="brands-form">{t('settings.brands.change')}</h3>
      <fieldset>
        <legend>{t('settings.brands.choose')}</legend>
        <div class="brand-grid">
          {offered.knownBrands.map((brand) => (
            <Checkbox key={brand} name="brands" label={brand} checked={chosen.value.includes(brand)} onChange={(on) => toggle(brand, on)} />
          ))}
        </div>
      </fieldset>
      <div class="buttons">
        <button type="submit" class="button button-primary" aria-disabled={sending.value}>
          {sending.value ? t('actions.sending') : t('settings.brands.save')}
        </button>
        {!offered.default && (
          <ConfirmButton label={t('settings.brands.restore')} question={() => t('settings.brands.confirmRestore', { entity: entityName(props.entityId) })} onConfirm={restore} focusAfter="none" />
        )}
      </div>
    </form>
  );
}

// The reconciliation file's FTP server.

function FtpSection(props: SectionProps) {
  const { loaded, reload } = useLoad((signal) => settingsApi.ftp(props.entityId, signal), [props.entityId]);
  const answers = useOutcome();
  return (
    <Section title={t('settings.ftp.title')} id="settings-ftp">
      <p class="hint">{t('settings.ftp.intro')}</p>
      <OutcomeMessage outcome={answers.outcome} />
      <Loadable loaded={loaded} reload={reload}>
        {(answer) => {
          const ftp = answer.ftp;
          return (
            <>
              {ftp ? (
                <Facts
                  rows={[
                    [t('settings.ftp.host'), <span class="mono">{ftp.host}</span>],
                    [t('settings.ftp.port'), String(ftp.port)],
                    [t('settings.ftp.username'), <span class="mono">{ftp.username}</span>],
                    [t('settings.ftp.password'), ftp.passwordSet ? t('settings.ftp.passwordSet') : t('settings.ftp.passwordNotSet')],
                    [t('settings.ftp.folder'), ftp.folder === '' ? t('settings.ftp.loginFolder') : <span class="mono">{ftp.folder}</span>],
                    [t('settings.ftp.explicitTls'), yesNo(ftp.explicitTls)],
                    [t('settings.ftp.passive'), yesNo(ftp.passive)],
                    [
                      t('settings.ftp.certificate'),
                      ftp.tlsCertificate ? t('settings.ftp.certificateShown', { subject: ftp.tlsCertificate.subject, validTo: formatDateTime(ftp.tlsCertificate.validTo) }) : t('settings.ftp.systemCertificates'),
                    ],
                    [t('settings.updatedAt'), formatDateTime(ftp.updatedAt)],
                  ]}
                />
              ) : (
                <p class="empty">{t('settings.ftp.none')}</p>
              )}
              {props.operator && (
                <FtpForm
                  key={ftp?.updatedAt ?? 'none'}
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

function FtpForm(props: { readonly entityId: string; readonly answer: FtpAnswer } & Answered<FtpAnswer>) {
  const ftp = props.answer.ftp;
  const host = useSignal(ftp?.host ?? '');
  const port = useSignal(ftp ? String(ftp.port) : '21');
  const username = useSignal(ftp?.username ?? '');
  const password = useSignal('');
  const folder = useSignal(ftp?.folder ?? '');
  const explicitTls = useSignal(ftp?.explicitTls ?? true);
  const certificate = useSignal('');
  const { sending, submit, ask } = useSaving(props);

  const save = async (event: Event) => {
    event.preventDefault();
    const portText = port.value.trim();
    // A port that is no number goes as typed: the gateway names what is wrong with it.
    const portValue = /^\d{1,9}$/.test(portText) ? Number(portText) : portText;
    const input = {
      host: host.value.trim(),
      ...(portText !== '' ? { port: portValue } : {}),
      username: username.value,
      // Left empty: the password kept is kept.
      ...(password.value !== '' ? { password: password.value } : {}),
      folder: folder.value.trim(),
      explicitTls: explicitTls.value,
      ...(certificate.value.trim() !== '' ? { tlsCertificate: certificate.value.trim() } : {}),
    } as FtpInput;
    await submit(answerTitle(t('settings.ftp.save')), async () => {
      const saved = await settingsApi.saveFtp(props.entityId, input);
      password.value = '';
      return saved;
    });
  };
  const remove = () => ask(answerTitle(t('settings.ftp.remove')), () => settingsApi.removeFtp(props.entityId));

  const text = (label: string, value: Signal<string>, extra: { name: string; hint?: string; autoComplete?: string; inputMode?: 'numeric' }) => (
    <Field label={label} hint={extra.hint}>
      {(control) => (
        <input
          {...control}
          name={extra.name}
          type="text"
          spellcheck={false}
          autoComplete={extra.autoComplete ?? 'off'}
          inputMode={extra.inputMode}
          value={value.value}
          onInput={(event) => (value.value = event.currentTarget.value)}
        />
      )}
    </Field>
  );

  return (
    <form class="form settings-form" onSubmit={(event) => void save(event)} noValidate aria-labelledby="ftp-form">
      <h3 id="ftp-form">{ftp ? t('settings.ftp.change') : t('settings.ftp.set')}</h3>
      {text(t('settings.ftp.host'), host, { name: 'host', hint: t('settings.ftp.hostHint') })}
      {text(t('settings.ftp.port'), port, { name: 'port', inputMode: 'numeric' })}
      {text(t('settings.ftp.username'), username, { name: 'username' })}
      <Field label={t('settings.ftp.password')} hint={ftp?.passwordSet ? t('settings.ftp.passwordKeep') : t('settings.ftp.passwordRequired')}>
        {(control) => <input {...control} name="password" type="password" autoComplete="new-password" value={password.value} onInput={(event) => (password.value = event.currentTarget.value)} />}
      </Field>
      {text(t('settings.ftp.folder'), folder, { name: 'folder', hint: t('settings.ftp.folderHint') })}
      <Checkbox name="explicitTls" label={t('settings.ftp.explicitTlsLabel')} checked={explicitTls.value} onChange={(value) => (explicitTls.value = value)} />
      <Field label={t('settings.ftp.certificateLabel')} hint={ftp?.tlsCertificate ? t('settings.ftp.certificateReplace') : t('settings.ftp.certificateHint')}>
        {(control) => <textarea {...control} name="tlsCertificate" rows={4} spellcheck={false} value={certificate.value} onInput={(event) => (certificate.value = event.currentTarget.value)} />}
      </Field>
      <div class="buttons">
        <button type="submit" class="button button-primary" aria-disabled={sending.value}>
          {sending.value ? t('actions.sending') : t('settings.ftp.save')}
        </button>
        {ftp && <ConfirmButton label={t('settings.ftp.remove')} question={() => t('settings.ftp.confirmRemove', { entity: entityName(props.entityId) })} onConfirm={remove} focusAfter="none" />}
      </div>
    </form>
  );
}
