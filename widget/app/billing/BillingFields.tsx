import { useSignal } from '@preact/signals';
import type { ComponentType } from 'preact';
import { useEffect } from 'preact/hooks';
import english from 'wpwl:locale/billing';
import { BILLING_FIELDS, BILLING_MAX_LENGTHS, COUNTRY_CODES, type BillingField } from '../../shared/billingAddress.ts';
import type { Language } from '../../i18n/index.ts';
import { featureTexts } from '../extras/texts.ts';
import type { BillingFieldsProps } from '../features.ts';
import type { WidgetOptions } from '../options.ts';
import { cx } from '../payment/parts.tsx';
import { countryChoice } from '../redirect/country.ts';
import { billingSettings, billingValidity, type BillingAddress } from './address.ts';

/**
 * The billing address in the card form (`wpwlOptions.billingAddress`, `mandatoryBillingFields`), in the platform's DOM:
 *
 *   div.wpwl-group.wpwl-group-billing[role=group] > div.wpwl-label.wpwl-label-billing, div.wpwl-wrapper.wpwl-wrapper-billing >
 *     div.wpwl-sup-wrapper.wpwl-sup-wrapper-country > select.wpwl-control.wpwl-control-country[name=billing.country]
 *     div.wpwl-sup-wrapper.wpwl-sup-wrapper-state > input.wpwl-control.wpwl-control-state.wpwl-control-stateText[name=billing.state]
 *     ... -city, -postcode, -street1, -street2 (input.wpwl-control-<field>[name=billing.<field>])
 *     each with div.wpwl-hint.wpwl-hint-<field>Error after its control while it shows an error
 *
 * The fields say what they are in their placeholders (as on the platform) and their accessible names; an optional one
 * says so. They are the card form's fields: their validity joins the form's (an invalid address blocks the submit, a
 * submit shows their errors, a field shows its own once typed in and left: the card model's calm errors), and the
 * submit sends them with the card as `billing.*` (an empty one is not sent). Country names come from the browser
 * (Intl.DisplayNames) in the widget's language; the texts are the `billing` group of the locales, loaded with this chunk.
 */

const STYLES = `.wpwl-sup-wrapper{margin-bottom:8px}.wpwl-sup-wrapper:last-child{margin-bottom:0}`;

/** The browser's autofill names of the fields. */
const AUTOCOMPLETE: Readonly<Record<BillingField, string>> = {
  country: 'billing country',
  state: 'billing address-level1',
  city: 'billing address-level2',
  postcode: 'billing postal-code',
  street1: 'billing address-line1',
  street2: 'billing address-line2',
};

/** The billing fields' component, its texts loaded in the widget's language (the extras chunk awaits it before the forms render). */
export async function billingFields(options: WidgetOptions, language: Language, staticBaseUrl: string): Promise<ComponentType<BillingFieldsProps>> {
  const text = await featureTexts('billing', english, language, staticBaseUrl, { ...options.labels, ...options.errorMessages });
  const { prefill, mandatory } = billingSettings(options.raw);
  const { countries } = countryChoice(COUNTRY_CODES, options.locale, language);
  if (options.style !== 'none') {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }

  return function BillingFields({ id, form }: BillingFieldsProps) {
    const address = useSignal<BillingAddress>(prefill);
    const change = (field: BillingField, value: string) => {
      address.value = { ...address.value, [field]: value };
      form.set({ billing: billingValidity(address.value, mandatory) });
    };
    useEffect(() => form.set({ billing: billingValidity(prefill, mandatory) }), []);

    const control = (field: BillingField) => {
      const name = text(field);
      const invalid = form.hasError(field);
      return {
        class: cx('wpwl-control', `wpwl-control-${field}`, field === 'state' && 'wpwl-control-stateText', invalid && 'wpwl-has-error'),
        name: `billing.${field}`,
        'aria-label': name,
        'aria-required': mandatory[field] && options.validation ? ('true' as const) : undefined,
        'aria-invalid': invalid ? ('true' as const) : undefined,
        'aria-describedby': invalid ? id(`hint-${field}`) : undefined,
        autocomplete: AUTOCOMPLETE[field],
        value: address.value[field],
        onBlur: () => form.leave(field),
      };
    };

    return (
      <div
        class="wpwl-group wpwl-group-billing wpwl-clearfix"
        role="group"
        aria-labelledby={options.showLabels ? id('label-billing') : undefined}
        aria-label={options.showLabels ? undefined : text('billingAddress')}
      >
        {options.showLabels && (
          <div class="wpwl-label wpwl-label-billing" id={id('label-billing')}>
            {text('billingAddress')}
          </div>
        )}
        <div class="wpwl-wrapper wpwl-wrapper-billing">
          {BILLING_FIELDS.map((field) => (
            <div key={field} class={`wpwl-sup-wrapper wpwl-sup-wrapper-${field}`}>
              {field === 'country' ? (
                <select
                  {...control(field)}
                  onChange={(event) => {
                    change(field, (event.currentTarget as HTMLSelectElement).value);
                    form.edit(field);
                  }}
                >
                  <option value="">{text('chooseCountry')}</option>
                  {countries.map(({ code, name }) => (
                    <option key={code} value={code}>
                      {name}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  {...control(field)}
                  type="text"
                  maxLength={BILLING_MAX_LENGTHS[field]}
                  placeholder={options.showPlaceholders ? (mandatory[field] ? text(field) : text('optional', { field: text(field) })) : undefined}
                  onInput={(event) => {
                    change(field, (event.currentTarget as HTMLInputElement).value);
                    form.edit(field);
                  }}
                  onChange={(event) => change(field, (event.currentTarget as HTMLInputElement).value.trim())}
                />
              )}
              {form.hasError(field) && (
                <div class={`wpwl-hint wpwl-hint-${field}Error`} id={id(`hint-${field}`)} role="alert">
                  {text(`${field}Error`)}
                </div>
              )}
            </div>
          ))}
        </div>
      </div>
    );
  };
}
