import { useSignal, type Signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { parseAmount } from '../amounts.ts';
import { paymentsApi } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { entityName } from '../components/EntityPicker.tsx';
import { FactList, factsOf } from '../components/Facts.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { NotLoaded, Page, Section } from '../components/Page.tsx';
import { ResultMessage } from '../components/ResultMessage.tsx';
import { Table } from '../components/Table.tsx';
import { formatAmount, formatDateTime, paymentTypeName, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { href, type PageProps } from '../router.ts';
import { session } from '../state.ts';
import type { AcquirerAttempt, BackOfficeAction, OperatorAction, PaymentDetail, PaymentDetailAnswer, PaymentEvent, ResultInfo, SentItem, WebhookDelivery } from '../types.ts';
import { paymentColumns, StatusBadge } from './Payments.tsx';
import { mayDo } from '../roles.ts';

/**
 * One payment: its fields (the card as BIN and last 4 only: the API sends nothing more), its linked transactions,
 * events, webhook deliveries, 3-D Secure, risk and smart-retry facts, what operators did to it, and the back-office
 * actions the API allows on it now (capture, refund, reverse), each asked for confirmation, with the gateway's
 * answer shown (and focused) as it came. After an action the payment is loaded again.
 */

const ACTIONS: readonly BackOfficeAction[] = ['capture', 'refund', 'reverse'];

export function PaymentDetailPage(props: PageProps) {
  const id = props.params.id ?? '';
  const { loaded, reload } = useLoad((signal) => paymentsApi.detail(id, signal), [id]);
  const state = loaded.value;
  const title = state.state === 'done' ? t('payment.title', { shortId: state.data.payment.shortId }) : t('payment.loadingTitle');
  return (
    <Page
      title={title}
      actions={
        <Link href={href('/payments')} class="back">
          {t('payment.back')}
        </Link>
      }
    >
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && <PaymentView answer={state.data} reload={reload} />}
    </Page>
  );
}

function PaymentView(props: { readonly answer: PaymentDetailAnswer; readonly reload: () => void }) {
  const { payment } = props.answer;
  const several = (session.value?.entities.length ?? 0) > 1;
  return (
    <>
      <Section title={t('payment.details')} id="payment-details">
        <PaymentFields payment={payment} />
      </Section>
      {mayDo('refunds') && <Actions answer={props.answer} reload={props.reload} />}
      <Section title={t('payment.transactions')} id="payment-transactions">
        <Table caption={t('payment.transactions')} captionHidden columns={paymentColumns(several)} rows={props.answer.transactions ?? []} rowKey={(row) => row.id} empty={t('payment.noTransactions')} />
      </Section>
      <Section title={t('payment.threeDSecure')} id="payment-3ds">
        <FactList facts={payment.threeDSecure} none={t('payment.noThreeDSecure')} />
      </Section>
      <Section title={t('payment.risk')} id="payment-risk">
        <FactList facts={payment.risk} none={t('payment.noRisk')} />
      </Section>
      <Section title={t('payment.smartRetry')} id="payment-smart-retry">
        {payment.smartRetry && <FactList facts={payment.smartRetry} none={t('payment.noSmartRetry')} />}
        <Table<AcquirerAttempt>
          caption={t('payment.acquirerAttempts')}
          rows={props.answer.acquirerAttempts ?? []}
          rowKey={(attempt) => `${attempt.at}-${attempt.acquirer}`}
          empty={payment.smartRetry ? t('payment.noAcquirerAttempts') : t('payment.noSmartRetry')}
          columns={[
            { key: 'at', header: t('payment.at'), cell: (attempt) => formatDateTime(attempt.at) },
            { key: 'acquirer', header: t('payment.acquirer'), cell: (attempt) => attempt.acquirer },
            {
              key: 'outcome',
              header: t('payment.outcome'),
              cell: (attempt) =>
                attempt.nextInquiryAt ? t('payment.awaitingAcquirer', { count: attempt.inquiries ?? 0, next: formatDateTime(attempt.nextInquiryAt) }) : attempt.outcome,
            },
          ]}
        />
      </Section>
      {payment.resultDetails && (
        <Section title={t('payment.resultDetails')} id="payment-result-details">
          <FactList facts={payment.resultDetails} none={t('facts.none')} />
        </Section>
      )}
      <Section title={t('payment.events')} id="payment-events">
        <Table<PaymentEvent>
          caption={t('payment.events')}
          captionHidden
          rows={props.answer.events ?? []}
          rowKey={(event) => `${event.at}-${event.type}-${event.action}`}
          empty={t('payment.noEvents')}
          columns={[
            { key: 'at', header: t('payment.at'), cell: (event) => formatDateTime(event.at) },
            { key: 'type', header: t('payment.eventType'), cell: (event) => <span class="mono">{event.type}</span> },
            { key: 'action', header: t('payment.eventAction'), cell: (event) => <span class="mono">{event.action}</span> },
          ]}
        />
      </Section>
      <Section title={t('payment.webhooks')} id="payment-webhooks">
        <Table<WebhookDelivery>
          caption={t('payment.webhooks')}
          captionHidden
          rows={props.answer.webhookAttempts ?? []}
          rowKey={(delivery) => delivery.deliveryId}
          empty={t('payment.noWebhooks')}
          columns={[
            { key: 'url', header: t('payment.webhookUrl'), cell: (delivery) => <span class="mono">{delivery.url}</span> },
            { key: 'status', header: t('payment.deliveryStatus'), cell: (delivery) => delivery.status },
            { key: 'attempts', header: t('payment.attempts'), cell: (delivery) => <Attempts delivery={delivery} /> },
          ]}
        />
      </Section>
      {props.answer.sent && (
        <Section title={t('payment.sent')} id="payment-sent">
          <p class="hint">{t('payment.sentIntro')}</p>
          <Table<SentItem>
            caption={t('payment.sent')}
            captionHidden
            rows={props.answer.sent}
            rowKey={(item) => `${item.kind}-${item.at}-${item.url ?? item.returnUrl ?? ''}`}
            empty={t('payment.noneSent')}
            columns={[
              { key: 'at', header: t('payment.at'), cell: (item) => formatDateTime(item.at) },
              { key: 'kind', header: t('payment.sentKind'), cell: (item) => t(`payment.sentKinds.${item.kind}`) },
              { key: 'to', header: t('payment.sentTo'), cell: (item) => <span class="mono">{item.url ?? item.returnUrl ?? ''}</span> },
              { key: 'what', header: t('payment.sentWhat'), cell: (item) => <SentWhat item={item} /> },
              { key: 'answer', header: t('payment.sentAnswer'), cell: (item) => sentAnswer(item) },
            ]}
          />
        </Section>
      )}
      <Section title={t('payment.operatorActions')} id="payment-operator-actions">
        <Table<OperatorAction>
          caption={t('payment.operatorActions')}
          captionHidden
          rows={props.answer.operatorActions ?? []}
          rowKey={(action) => `${action.at}-${action.who}-${action.action}`}
          empty={t('payment.noOperatorActions')}
          columns={[
            { key: 'at', header: t('payment.at'), cell: (action) => formatDateTime(action.at) },
            { key: 'who', header: t('payment.who'), cell: (action) => action.who },
            { key: 'action', header: t('payment.action'), cell: (action) => action.action },
            { key: 'detail', header: t('payment.detail'), cell: (action) => detailText(action.detail) },
            { key: 'result', header: t('payment.actionResult'), cell: (action) => <span class="mono">{action.resultCode ?? ''}</span> },
          ]}
        />
      </Section>
    </>
  );
}

function detailText(detail: OperatorAction['detail']): string {
  if (detail === undefined) return '';
  if (typeof detail === 'string') return detail;
  return factsOf(detail)
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ');
}

/** What was sent: a webhook's notification (its payload to unfold), a checkout's call, the page a shopper went to. */
function SentWhat(props: { readonly item: SentItem }) {
  const { item } = props;
  if (item.notification) {
    return (
      <details>
        <summary class="mono">
          {item.notification.type} {item.notification.action}
        </summary>
        <pre class="payload" tabIndex={0}>
          {JSON.stringify(item.notification.payload, null, 2)}
        </pre>
      </details>
    );
  }
  return <span class="mono">{item.call ?? item.page ?? ''}</span>;
}

/** The receiver's answer to a webhook attempt, a call's outcome, or how the shopper's page ended. */
function sentAnswer(item: SentItem): string {
  if (item.answer) return item.answer.httpStatus !== null ? `HTTP ${item.answer.httpStatus}` : (item.answer.error ?? '');
  if (item.kind === 'notification') return [item.outcome, item.lastError].filter(Boolean).join(': ');
  return item.outcome ?? t('payment.sentWaiting');
}

function Attempts(props: { readonly delivery: WebhookDelivery }) {
  const attempts = props.delivery.attempts ?? [];
  if (attempts.length === 0) return <>{t('payment.noAttempt')}</>;
  return (
    <ul class="plain-list">
      {attempts.map((attempt, index) => (
        <li key={index}>
          {attempt.httpStatus !== undefined
            ? t('payment.attemptShown', { at: formatDateTime(attempt.at), status: attempt.httpStatus })
            : t('payment.attemptFailed', { at: formatDateTime(attempt.at), error: attempt.error ?? '' })}
        </li>
      ))}
    </ul>
  );
}

function PaymentFields(props: { readonly payment: PaymentDetail }) {
  const { payment } = props;
  const rows: [string, ComponentChildren][] = [
    [t('payment.id'), <span class="mono">{payment.id}</span>],
    [t('payment.shortId'), <span class="mono">{payment.shortId}</span>],
    [t('payment.entity'), entityName(payment.entityId)],
    [t('payment.created'), formatDateTime(payment.createdAt)],
    [t('payment.type'), `${paymentTypeName(payment.paymentType)} (${payment.paymentType})`],
    [t('payment.brand'), payment.paymentBrand ?? ''],
    [t('payment.amount'), formatAmount(payment.amount, payment.currency)],
    [t('payment.status'), <StatusBadge status={payment.status} />],
    [t('payment.state'), <StatusBadge status={payment.state} />],
    [
      t('payment.result'),
      <>
        <span class="mono">{payment.result.code}</span> {payment.result.description}
      </>,
    ],
  ];
  if (payment.merchantTransactionId) rows.push([t('payment.reference'), payment.merchantTransactionId]);
  if (payment.descriptor) rows.push([t('payment.descriptor'), payment.descriptor]);
  if (typeof payment.acquirer === 'string') rows.push([t('payment.acquirer'), payment.acquirer]);
  if (typeof payment.source === 'string') rows.push([t('payment.source'), payment.source]);
  if (payment.card) rows.push([t('payment.card'), t('payment.cardShown', { bin: payment.card.bin, last4: payment.card.last4Digits })]);
  return (
    <dl class="facts">
      {rows.map(([name, value]) => (
        <div key={name} class="fact">
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The last answer to an action: the gateway's result (2xx) or what the client threw (a refusal, no answer). */
interface ActionOutcome {
  readonly action: BackOfficeAction;
  readonly result?: ResultInfo;
  readonly error?: unknown;
  readonly newId?: string;
  /** Counts answers, so the same answer twice is shown (and focused) again. */
  readonly serial: number;
}

function Actions(props: { readonly answer: PaymentDetailAnswer; readonly reload: () => void }) {
  const { payment } = props.answer;
  const allowed = ACTIONS.filter((action) => props.answer.actions?.[action]);
  const outcome = useSignal<ActionOutcome | undefined>(undefined);
  const message = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (outcome.value) message.current?.focus();
  }, [outcome.value?.serial]);
  return (
    <Section title={t('actions.title')} id="payment-actions">
      {outcome.value && (
        <div ref={message} tabIndex={-1} class="outcome">
          <ResultMessage title={`${t('actions.answer')}: ${t(`actions.${outcome.value.action}`)}`} result={outcome.value.result} error={outcome.value.error}>
            {outcome.value.newId && outcome.value.newId !== payment.id && (
              <p>
                <Link href={href(`/payments/${encodeURIComponent(outcome.value.newId)}`)}>{t('actions.newPayment', { id: outcome.value.newId })}</Link>
              </p>
            )}
          </ResultMessage>
        </div>
      )}
      {allowed.length === 0 ? (
        <p class="empty">{t('actions.none')}</p>
      ) : (
        <div class="action-list">
          {allowed.map((action) => (
            <ActionForm key={action} action={action} payment={payment} outcome={outcome} reload={props.reload} />
          ))}
        </div>
      )}
    </Section>
  );
}

function ActionForm(props: { readonly action: BackOfficeAction; readonly payment: PaymentDetail; readonly outcome: Signal<ActionOutcome | undefined>; readonly reload: () => void }) {
  const { action, payment } = props;
  const withAmount = action !== 'reverse';
  // What is left to capture or refund (the API's own rule): the amount offered, and the most the hint names.
  const left = action === 'capture' ? payment.capturableAmount : payment.refundableAmount;
  const amount = useSignal(left);
  const error = useSignal<string | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);
  const parsed = () => parseAmount(amount.value);

  const check = () => {
    if (!withAmount) return true;
    const result = parsed();
    error.value = result.ok ? undefined : t(`amount.${result.problem}`);
    if (!result.ok) input.current?.focus();
    return result.ok;
  };
  const question = () => {
    if (!withAmount) return t('actions.confirmReverse', { shortId: payment.shortId });
    const result = parsed();
    const shown = result.ok ? formatAmount(result.amount, payment.currency) : amount.value;
    return t(action === 'capture' ? 'actions.confirmCapture' : 'actions.confirmRefund', { amount: shown, shortId: payment.shortId });
  };
  const confirm = async () => {
    const serial = (props.outcome.peek()?.serial ?? 0) + 1;
    const result = parsed();
    try {
      const answer = await paymentsApi.act(payment.id, action, withAmount && result.ok ? result.amount : undefined);
      props.outcome.value = { action, result: answer.result, ...(answer.id ? { newId: answer.id } : {}), serial };
      props.reload();
    } catch (thrown) {
      props.outcome.value = { action, error: thrown, serial };
    }
  };

  return (
    <div class="action" role="group" aria-labelledby={`action-${action}`}>
      <h3 id={`action-${action}`}>{t(`actions.${action}`)}</h3>
      {withAmount ? (
        <Field label={t('actions.amount', { currency: payment.currency })} hint={t('actions.amountHint', { amount: formatAmount(left, payment.currency) })} error={error.value}>
          {(control) => (
            <input
              {...control}
              ref={input}
              name={`${action}-amount`}
              inputMode="decimal"
              autoComplete="off"
              value={amount.value}
              onInput={(event) => {
                amount.value = event.currentTarget.value;
                error.value = undefined;
              }}
            />
          )}
        </Field>
      ) : (
        <p class="hint">{t('actions.reverseHint')}</p>
      )}
      <ConfirmButton label={t(`actions.${action}`)} question={question} check={check} onConfirm={confirm} focusAfter="none" />
    </div>
  );
}
