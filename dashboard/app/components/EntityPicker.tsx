import { t } from '../i18n.ts';
import { selectedEntity, session } from '../state.ts';
import { Field } from './Field.tsx';

/**
 * The entity the page shows, when the principal has several (an operator, or a token for several entities); with
 * one entity there is nothing to pick and nothing shows. `allowAll` offers "All entities" (lists); a page about
 * one entity's settings leaves it out and takes the first entity until another is picked.
 */
export function EntityPicker(props: { readonly allowAll?: boolean; readonly onChange?: (entityId: string) => void }) {
  const entities = session.value?.entities ?? [];
  if (entities.length < 2) return null;
  const current = selectedEntity.value || (props.allowAll ? '' : (entities[0]?.id ?? ''));
  return (
    <Field label={t('entity.label')} class="entity-picker">
      {(control) => (
        <select
          {...control}
          value={current}
          onChange={(event) => {
            selectedEntity.value = event.currentTarget.value;
            props.onChange?.(event.currentTarget.value);
          }}
        >
          {props.allowAll && <option value="">{t('entity.all')}</option>}
          {entities.map((entity) => (
            <option key={entity.id} value={entity.id}>
              {entity.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** The entity a one-entity page shows: the picked one, else the principal's first. */
export function currentEntityId(): string | undefined {
  return selectedEntity.value || session.value?.entities[0]?.id;
}

/** An entity's name for a table cell, or its id when the session does not list it. */
export function entityName(id: string): string {
  return session.value?.entities.find((entity) => entity.id === id)?.name ?? id;
}
