import { currentEntityId, EntityPicker } from '../components/EntityPicker.tsx';
import { Loadable, Page, Section } from '../components/Page.tsx';
import { Table, type Column } from '../components/Table.tsx';
import { formatDateTime, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { settingsApi, type IntegrationFinding } from '../settingsApi.ts';

/**
 * An entity's integration report: what its integration leans on that a live provider may refuse or has retired, what
 * its tests never tried, its failing webhook receivers — each finding with how often and when it was seen, examples
 * and what to do — and how often each path a shop should test was taken. The gateway's own words (titles, advice)
 * are shown as it gives them, as the API's result descriptions are.
 */

export function IntegrationPage() {
  const entityId = currentEntityId();
  return (
    <Page title={t('integration.title')}>
      <p>{t('integration.intro')}</p>
      <EntityPicker />
      {entityId ? <Report key={entityId} entityId={entityId} /> : <p class="empty">{t('settings.noEntity')}</p>}
    </Page>
  );
}

function Report(props: { readonly entityId: string }) {
  const { loaded, reload } = useLoad((signal) => settingsApi.integrationReport(props.entityId, signal), [props.entityId]);
  return (
    <Loadable loaded={loaded} reload={reload}>
      {({ report }) => (
        <>
          <p class="hint">{t('integration.window', { since: formatDateTime(report.since), payments: report.payments })}</p>
          <Section title={t('integration.findings')} id="integration-findings">
            <Table caption={t('integration.findings')} captionHidden columns={findingColumns()} rows={report.findings} rowKey={(finding) => finding.id} empty={t('integration.clean')} />
          </Section>
          <Section title={t('integration.coverage')} id="integration-coverage">
            <Table
              caption={t('integration.coverage')}
              captionHidden
              columns={coverageColumns()}
              rows={Object.entries(report.coverage).map(([scenario, count]) => ({ scenario, count }))}
              rowKey={(row) => row.scenario}
              empty=""
            />
          </Section>
        </>
      )}
    </Loadable>
  );
}

/** The columns, made at render: their headers in the language shown. */
const findingColumns = (): readonly Column<IntegrationFinding>[] => [
  { key: 'severity', header: t('integration.column.severity'), cell: (finding) => <span class={`severity severity-${finding.severity}`}>{t(`integration.severity.${finding.severity}`)}</span> },
  {
    key: 'finding',
    header: t('integration.column.finding'),
    cell: (finding) => (
      <>
        <strong>{finding.title}</strong>
        {finding.details && finding.details.length > 0 && (
          <ul class="details">
            {finding.details.map((detail) => (
              <li key={detail.name}>
                <span class="mono">{detail.name}</span>: {detail.count}
              </li>
            ))}
          </ul>
        )}
        <p class="hint">{finding.advice}</p>
      </>
    ),
  },
  { key: 'count', header: t('integration.column.count'), numeric: true, cell: (finding) => String(finding.count) },
  { key: 'last', header: t('integration.column.lastSeen'), cell: (finding) => (finding.lastSeen ? formatDateTime(finding.lastSeen) : '') },
  { key: 'examples', header: t('integration.column.examples'), cell: (finding) => <span class="mono">{finding.examples.join(', ')}</span> },
];

const coverageColumns = (): readonly Column<{ readonly scenario: string; readonly count: number }>[] => [
  { key: 'scenario', header: t('integration.column.path'), cell: (row) => t(`integration.scenario.${row.scenario}`) },
  { key: 'count', header: t('integration.column.taken'), numeric: true, cell: (row) => String(row.count) },
];
