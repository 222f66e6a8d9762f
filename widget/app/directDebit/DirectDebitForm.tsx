import { computed } from '@preact/signals';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { isValidIban, normalizeIban } from '../../shared/iban.ts';
import { invoke } from '../callbacks.ts';
import { BrandLogo, cx, fieldGroup, MerchantFields, PayButton, PaymentContainer, Spinner } from '../payment/parts.tsx';
import { calmErrors, createPaymentState, signalFields } from '../payment/state.ts';
import { postPageForm } from '../payment/pagePost.ts';
import { randomChannel } from '../random.ts';
import type { FamilyFormProps, PaymentState } from '../types.ts';

/**
 * The direct-debit form (SEPA, COMPAT §4 and §16), one container per direct-debit brand:
 *
 *   div.wpwl-container.wpwl-container-directDebit.wpwl-container-directDebit-DIRECTDEBIT_SEPA
 *     form.wpwl-form.wpwl-form-directDebit.wpwl-form-directDebit-DIRECTDEBIT_SEPA
 *       div.wpwl-group.wpwl-group-brand > div.wpwl-wrapper.wpwl-wrapper-brand > div.wpwl-brand.wpwl-brand-directDebit.wpwl-brand-DIRECTDEBIT_SEPA[role=img]
 *       div.wpwl-group.wpwl-group-accountHolder > div.wpwl-label.wpwl-label-accountHolder,
 *           div.wpwl-wrapper.wpwl-wrapper-accountHolder > input.wpwl-control.wpwl-control-accountHolder[name=bankAccount.holder]
 *       div.wpwl-group.wpwl-group-iban > div.wpwl-label.wpwl-label-iban,
 *           div.wpwl-wrapper.wpwl-wrapper-iban > input.wpwl-control.wpwl-control-iban[name=bankAccount.iban]
 *       div.wpwl-group.wpwl-group-mandate > p.wpwl-text.wpwl-text-mandate
 *       hidden inputs paymentBrand, shopperResultUrl; the merchant's children
 *       div.wpwl-group.wpwl-group-submit > div.wpwl-wrapper.wpwl-wrapper-submit > button.wpwl-button.wpwl-button-pay
 *
 * Errors as in the card form: the control gets wpwl-has-error and a div.wpwl-hint.wpwl-hint-<field>Error follows it
 * (on a submit, or once the shopper edited the field and left it). The shopper types the IBAN with spaces (shown in groups of four); it is
 * posted uppercase without them, and checked here first (shared/iban.ts: the country's length and the mod-97
 * checksum, as the gateway checks it). There is no card data, so the payment is posted straight to the gateway,
 * and its answer is handled as for cards (result page, redirect, or the reason in the form).
 */

type Field = 'accountHolder' | 'iban';

/**
 * The holder's name as the gateway's parameter spec takes it (bankAccount.holder: 4 to 128 characters). Here, not in
 * shared/directDebit.ts, which the widget's entry imports: only this form's chunk needs it.
 */
function isValidAccountHolder(holder: string): boolean {
  const { length } = holder.trim();
  return length >= 4 && length <= 128;
}

/** Groups of four, as printed on statements: `DE23 1000 0000 1234 5678 90`. */
export function formatIban(input: string): string {
  return normalizeIban(input)
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, 34)
    .replace(/(.{4})(?=.)/g, '$1 ');
}

/** What the shopper typed (signals), its validity (computed from them), and which errors show (calm: payment/state.ts). */
function createModel() {
  const fields = signalFields({ holder: '', iban: '' });
  const validity = computed((): Record<Field, boolean> => ({ accountHolder: isValidAccountHolder(fields.holder), iban: isValidIban(normalizeIban(fields.iban)) }));
  return Object.assign(fields, calmErrors<Field>(), { validity });
}

async function submitDirectDebit(props: FamilyFormProps, model: ReturnType<typeof createModel>, state: PaymentState, form: HTMLFormElement, trigger: Event | undefined): Promise<void> {
  const { options } = props;
  if (state.busy) return;
  state.update({ message: undefined });
  if (options.validation) {
    model.show('accountHolder', 'iban');
    if (!model.validity.value.accountHolder || !model.validity.value.iban) return;
  }
  // The IBAN as the gateway takes it: uppercase, no spaces.
  await postPageForm(props, state, form, trigger, 'onBeforeSubmitDirectDebit', (submitted, formFields) =>
    formFields(submitted).map(([name, value]): [string, string] => [name, name === 'bankAccount.iban' ? normalizeIban(value) : value]),
  );
}

export function DirectDebitForm(props: FamilyFormProps) {
  const { options, texts, checkout } = props;
  const brand = props.brands[0] ?? 'DIRECTDEBIT_SEPA';
  const model = useMemo(createModel, []);
  const state = useMemo(createPaymentState, []);
  const prefix = useMemo(() => `wpwl-${randomChannel().slice(0, 8)}`, []);
  const formRef = useRef<HTMLFormElement>(null);
  const submit = (trigger: Event | undefined) => {
    if (formRef.current) void submitDirectDebit(props, model, state, formRef.current, trigger);
  };

  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    props.register({ container: 'wpwl-container-directDebit', form, submit: () => submit(undefined) });
    return () => state.dispose();
  }, []);

  const invalid = (field: Field) => options.validation && model.shows(field) && !model.validity.value[field];
  const id = (suffix: string) => `${prefix}-${suffix}`;
  const blurCallbacks: Record<Field, string> = { accountHolder: 'onBlurAccountHolder', iban: 'onBlurIban' };
  const blurred = (field: Field) => {
    model.leave(field);
    invoke(options, blurCallbacks[field], formRef.current, model.validity.value[field]);
  };
  const group = (field: Field, label: string, control: preact.ComponentChildren, error: string) =>
    fieldGroup(field, label, control, invalid(field) ? error : undefined, { showLabels: options.showLabels, id });
  const controlProps = (field: Field, label: string) => ({
    class: cx('wpwl-control', `wpwl-control-${field}`, invalid(field) && 'wpwl-has-error'),
    'aria-labelledby': options.showLabels ? id(`label-${field}`) : undefined,
    'aria-label': options.showLabels ? undefined : label,
    'aria-invalid': invalid(field) ? ('true' as const) : undefined,
    'aria-describedby': invalid(field) ? id(`hint-${field}`) : undefined,
    onBlur: () => blurred(field),
  });

  return (
    <PaymentContainer
      containerClass={`wpwl-container-directDebit wpwl-container-directDebit-${brand}`}
      formClass={`wpwl-form-directDebit wpwl-form-directDebit-${brand}`}
      formRef={formRef}
      checkout={checkout}
      options={options}
      language={props.language}
      state={state}
      onSubmit={submit}
    >
      <div class="wpwl-group wpwl-group-brand wpwl-clearfix">
        <div class="wpwl-wrapper wpwl-wrapper-brand">
          <div class={cx('wpwl-brand', 'wpwl-brand-directDebit', `wpwl-brand-${brand}`)} role="img" aria-label={texts.label('directDebit')}>
            <BrandLogo checkout={checkout} brand={brand} label="" />
          </div>
        </div>
      </div>
      {group(
        'accountHolder',
        texts.label('accountHolder'),
        <input
          {...controlProps('accountHolder', texts.label('accountHolder'))}
          name="bankAccount.holder"
          type="text"
          autocomplete="name"
          placeholder={options.showPlaceholders ? texts.label('accountHolderPlaceholder') : undefined}
          autofocus={options.autofocus === 'bankAccount.holder'}
          value={model.holder}
          onInput={(event) => {
            model.set({ holder: (event.currentTarget as HTMLInputElement).value });
            model.edit('accountHolder');
          }}
        />,
        texts.error('accountHolderError'),
      )}
      {group(
        'iban',
        texts.label('iban'),
        <input
          {...controlProps('iban', texts.label('iban'))}
          dir="ltr"
          name="bankAccount.iban"
          type="text"
          autocomplete="off"
          autocapitalize="characters"
          spellcheck={false}
          placeholder={options.showPlaceholders ? texts.label('ibanPlaceholder') : undefined}
          autofocus={options.autofocus === 'bankAccount.iban'}
          value={model.iban}
          onInput={(event) => {
            const input = event.currentTarget as HTMLInputElement;
            model.set({ iban: formatIban(input.value) });
            model.edit('iban');
            input.value = model.iban;
          }}
        />,
        texts.error('ibanError'),
      )}
      <div class="wpwl-group wpwl-group-mandate wpwl-clearfix">
        <p class="wpwl-text wpwl-text-mandate">{texts.label('directDebitMandate')}</p>
      </div>
      <input type="hidden" name="paymentBrand" value={brand} />
      <input type="hidden" name="shopperResultUrl" value={props.shopperResultUrl} />
      <MerchantFields nodes={props.merchantChildren} />
      <Spinner state={state} options={options} texts={texts} />
      <PayButton
        state={state}
        texts={texts}
        checkout={checkout}
        invalid={options.validation && model.anyShown() && !(model.validity.value.accountHolder && model.validity.value.iban)}
      />
    </PaymentContainer>
  );
}
