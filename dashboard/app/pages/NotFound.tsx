import { Link } from '../components/Link.tsx';
import { Page } from '../components/Page.tsx';
import { t } from '../i18n.ts';
import { href } from '../router.ts';

export function NotFoundPage() {
  return (
    <Page title={t('app.notFound')}>
      <p>{t('app.notFoundText')}</p>
      <p>
        <Link href={href('/payments')}>{t('app.toPayments')}</Link>
      </p>
    </Page>
  );
}
