import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useQuery } from 'urql';
import { DataTable } from '../ui/DataTable';
import { ErrorNotice } from '../ui/ErrorNotice';
import { useFormat } from '../ui/format';
import { Loading } from '../ui/Loading';
import '../reliability/reliability.css';
import './admin.css';
import { percent } from '../reliability/reliability';
import { ProvidersByReliabilityQuery } from './operations';

/** PARTS are a score's parts, in the order the score weighs them. */
const PARTS = ['uptime', 'completion', 'consistency'] as const;

/** PAGE_SIZE is how many providers the page lists, lowest score first. */
const PAGE_SIZE = 200;

/**
 * ReliabilityAdminPage is the admins' fleet by reliability: every scored
 * provider (linked to its application), lowest score first, with the
 * score's parts, those under the floor highlighted. The floor
 * and each provider's flag are the server's (serve --reliability-floor): the
 * page never assumes the default.
 */
export function ReliabilityAdminPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const [{ data, error, fetching }, reexecute] = useQuery({
    query: ProvidersByReliabilityQuery,
    variables: { first: PAGE_SIZE },
    requestPolicy: 'cache-and-network',
  });
  const refresh = () => reexecute({ requestPolicy: 'network-only' });
  const providers = data?.providersByReliability;
  // Every row carries the same floor, the one in effect on the server.
  const floor = providers?.[0]?.floor;

  return (
    <section className="page admin-reliability" data-testid="admin-reliability-page" data-count={providers?.length ?? ''}>
      <header className="page-head">
        <h1>{t('admin.reliability.title')}</h1>
        <p className="lead" data-testid="admin-reliability-lead" data-floor={floor ?? ''}>
          {floor === undefined ? t('admin.reliability.leadNoFloor') : t('admin.reliability.lead', { floor: f.number(floor) })}
        </p>
      </header>
      <section className="card" aria-labelledby="admin-reliability-list">
        <div className="reliability-head">
          <h2 id="admin-reliability-list">{t('admin.reliability.list')}</h2>
          <button type="button" className="button small" onClick={refresh} data-testid="admin-reliability-refresh">
            {t('admin.reliability.refresh')}
          </button>
        </div>
        {error && <ErrorNotice error={error} onRetry={refresh} />}
        {!providers ? (
          fetching && <Loading />
        ) : providers.length === 0 ? (
          <p data-testid="admin-reliability-none">{t('admin.reliability.none')}</p>
        ) : (
          <DataTable
            testId="admin-reliability-table"
            caption={t('admin.reliability.list')}
            rows={providers}
            rowKey={(p) => p.providerId}
            rowClassName={(p) => (p.belowFloor ? 'below-floor-row' : undefined)}
            rowProps={(p) => ({ 'data-testid': 'admin-reliability-row', 'data-provider': p.providerId, 'data-name': p.name, 'data-score': p.score, 'data-floor': p.floor, 'data-below-floor': p.belowFloor })}
            columns={[
              {
                key: 'provider',
                header: t('admin.reliability.provider'),
                primary: true,
                className: 'wrap-anywhere',
                cell: (p) => (
                  <Link to={`/admin/applications/${p.applicationId}`} dir="auto" data-testid="admin-reliability-provider">
                    {p.name}
                  </Link>
                ),
              },
              {
                key: 'score',
                header: t('admin.reliability.score'),
                cell: (p) => (
                  <>
                    <strong>{f.number(p.score)}</strong>
                    {p.belowFloor && <span className="status below-floor-tag">{t('admin.reliability.belowFloor')}</span>}
                  </>
                ),
              },
              ...PARTS.map((part) => ({
                key: part,
                header: t(`reliability.components.${part}.name`),
                align: 'end' as const,
                cellProps: () => ({ 'data-testid': `admin-reliability-${part}` }),
                cell: (p: (typeof providers)[number]) => (p.components ? t('reliability.percent', { value: f.number(percent(p.components[part])) }) : <span className="muted">{t('admin.reliability.noParts')}</span>),
              })),
            ]}
          />
        )}
      </section>
    </section>
  );
}
