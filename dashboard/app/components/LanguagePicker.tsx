import { language, LANGUAGES, setLanguage, t } from '../i18n.ts';
import { Field } from './Field.tsx';

/** The language picker: each language named in itself (and marked with its lang for screen readers). */
export function LanguagePicker() {
  return (
    <Field label={t('app.language')} class="language-picker">
      {(control) => (
        <select {...control} value={language.value} onChange={(event) => setLanguage(event.currentTarget.value)}>
          {LANGUAGES.map((entry) => (
            <option key={entry.code} value={entry.code} lang={entry.code}>
              {entry.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
