import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { EntityPicker, entityName } from '../components/EntityPicker.tsx';
import { Link } from '../components/Link.tsx';
import { OutcomeMessage, useOutcome } from '../components/Outcome.tsx';
import { NotLoaded, Page } from '../components/Page.tsx';
import { Table, type Column } from '../components/Table.tsx';
import { formatDateTime, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { registrationsApi, type Registration } from '../recordsApi.ts';
import { href, navigate, place } from '../router.ts';
import { selectedEntity, session } from '../state.ts';
import { mayDo } from '../roles.ts';

/**
 * Registrations: the stored cards (BIN, last 4, expiry, holder) and bank accounts (the IBAN masked) of the entity
 * picked (or all the principal's), newest first, 50 a page: active, deleted, or expired (not used within its
 * lifetime). The next page is the same address with the API's `cursor`. A registration that is not deleted can be
 * deleted — asked first, then done by the same use-case as DELETE /v1/registrations/{id} (its card erased, its
 * schedules cancelled, its REGISTRATION DELETED notification sent), with the gateway's answer shown.
 */

export function RegistrationsPage() {
  const search = place.value.search;
  const cursor = new URLSearchParams(search).get('cursor') ?? undefined;
  const entityId = selectedEntity.value;
  const { loaded, reload } = useLoad((signal) => registrationsApi.list({ ...(entityId ? { entityId } : {}), ...(cursor ? { cursor } : {}) }, signal), [search, entityId]);
  const state = loaded.value;
  const several = (session.value?.entities.length ?? 0) > 1;
  const answers = useOutcome();

  const remove = async (registration: Registration) => {
    const title = t('pages.registrations.deleted', { id: registration.id });
    try {
      const answer = await registrationsApi.remove(registration.id);
      answers.done(title, answer.result);
    } catch (error) {
      answers.failed(title, error);
    }
    reload();
  };

  return (
    <Page title={t('pages.registrations.title')}>
      <p>{t('pages.registrations.intro')}</p>
      <EntityPicker allowAll onChange={() => cursor && navigate(href('/registrations'))} />
      <OutcomeMessage outcome={answers.outcome} />
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && (
        <>
          <p class="count">{t('pages.registrations.shown', { count: state.data.registrations.length })}</p>
          <Table caption={t('pages.registrations.caption')} columns={registrationColumns(several, remove)} rows={state.data.registrations} rowKey={(row) => row.id} empty={t('pages.registrations.empty')} />
          <nav class="pager" aria-label={t('payments.pager')}>
            {cursor && <Link href={href('/registrations')}>{t('payments.firstPage')}</Link>}
            {state.data.nextCursor && <Link href={href('/registrations', { cursor: state.data.nextCursor })}>{t('payments.nextPage')}</Link>}
          </nav>
        </>
      )}
    </Page>
  );
}

const BADGES: Readonly<Record<string, string>> = { active: 'approved', deleted: 'declined', expired: 'pending' };

export function RegistrationStatus(props: { readonly status: string }) {
  return <span class={`badge badge-${BADGES[props.status] ?? 'other'}`}>{t(`pages.registrations.status.${props.status}`, { defaultValue: props.status })}</span>;
}

/** The instrument in a few words: a card's BIN and last 4, or a bank account's masked IBAN. */
function instrumentText(row: Registration): string {
  if (row.card) return t('payment.cardShown', { bin: row.card.bin, last4: row.card.last4Digits });
  if (row.bankAccount) return t('pages.registrations.iban', { iban: row.bankAccount.iban });
  return row.paymentBrand;
}

/** The instrument as the API shows it: a card's BIN and last 4, or a bank account's masked IBAN. */
function Instrument(props: { readonly row: Registration }) {
  const { card, bankAccount } = props.row;
  if (card) {
    return (
      <>
        <span class="mono">{t('payment.cardShown', { bin: card.bin, last4: card.last4Digits })}</span>
        <br />
        {t('pages.registrations.expiry', { month: card.expiryMonth, year: card.expiryYear })}
        {card.holder && (
          <>
            <br />
            {card.holder}
          </>
        )}
      </>
    );
  }
  if (bankAccount) {
    return (
      <>
        <span class="mono">{t('pages.registrations.iban', { iban: bankAccount.iban })}</span>
        {bankAccount.holder && (
          <>
            <br />
            {bankAccount.holder}
          </>
        )}
        {bankAccount.mandateId && (
          <>
            <br />
            {t('pages.registrations.mandate', { id: bankAccount.mandateId })}
          </>
        )}
      </>
    );
  }
  return null;
}

function registrationColumns(withEntity: boolean, remove: (registration: Registration) => Promise<void>): Column<Registration>[] {
  const columns: (Column<Registration> | false)[] = [
    { key: 'created', header: t('pages.registrations.column.created'), cell: (row) => formatDateTime(row.createdAt) },
    { key: 'id', header: t('pages.registrations.column.id'), cell: (row) => <span class="mono">{row.id}</span> },
    withEntity && { key: 'entity', header: t('payments.column.entity'), cell: (row) => entityName(row.entityId) },
    { key: 'brand', header: t('payments.column.brand'), cell: (row) => row.paymentBrand },
    { key: 'instrument', header: t('pages.registrations.column.instrument'), cell: (row) => <Instrument row={row} /> },
    { key: 'status', header: t('payments.column.status'), cell: (row) => <RegistrationStatus status={row.status} /> },
    {
      key: 'until',
      header: t('pages.registrations.column.until'),
      cell: (row) => (row.deletedAt ? t('pages.registrations.deletedAt', { at: formatDateTime(row.deletedAt) }) : row.expiresAt ? formatDateTime(row.expiresAt) : ''),
    },
    { key: 'lastUsed', header: t('pages.registrations.column.lastUsed'), cell: (row) => formatDateTime(row.lastUsedAt) },
    { key: 'reference', header: t('payments.column.reference'), cell: (row) => row.merchantTransactionId ?? '' },
    {
      key: 'actions',
      header: t('pages.schedules.column.actions'),
      cell: (row) =>
        row.status === 'deleted' || !mayDo('admin') ? (
          ''
        ) : (
          <ConfirmButton
            label={t('pages.registrations.delete')}
            question={() => t('pages.registrations.confirmDelete', { instrument: instrumentText(row) })}
            onConfirm={() => remove(row)}
            focusAfter="none"
          />
        ),
    },
  ];
  return columns.filter((column): column is Column<Registration> => column !== false);
}
