import { useTranslation } from 'react-i18next';
import { useQuery } from 'urql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { useFormat } from '../ui/format';
import { Loading } from '../ui/Loading';
import '../reliability/reliability.css';
import './admin.css';
import { ProvidersByReliabilityQuery } from './operations';

/** PAGE_SIZE is how many providers the page lists, lowest score first. */
const PAGE_SIZE = 200;

/**
 * FLOOR is the score under which the page highlights a provider. The
 * server's floor (reliability.Config.Floor, 70 unless configured) is not
 * part of ProviderReliability, so the admins' list cannot read it; this is
 * the server's default, to be replaced by the field once the schema has it.
 */
const FLOOR = 70;

/**
 * ReliabilityAdminPage is the admins' fleet by reliability: every scored
 * provider, lowest score first, those under the floor highlighted.
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

  return (
    <section className="page admin-reliability" data-testid="admin-reliability-page" data-count={providers?.length ?? ''}>
      <header className="page-head">
        <h1>{t('admin.reliability.title')}</h1>
        <p className="lead">{t('admin.reliability.lead', { floor: f.number(FLOOR) })}</p>
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
          <table className="data-table stacked-table" data-testid="admin-reliability-table">
            <caption className="visually-hidden">{t('admin.reliability.list')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('admin.reliability.provider')}</th>
                <th scope="col">{t('admin.reliability.score')}</th>
              </tr>
            </thead>
            <tbody>
              {providers.map((p) => {
                const below = p.score < FLOOR;
                return (
                  <tr key={p.providerId} className={below ? 'below-floor-row' : undefined} data-testid="admin-reliability-row" data-provider={p.providerId} data-name={p.name} data-score={p.score} data-below-floor={below}>
                    <th scope="row" data-label={t('admin.reliability.provider')} className="wrap-anywhere">
                      <bdi>{p.name}</bdi>
                    </th>
                    <td data-label={t('admin.reliability.score')}>
                      <strong>{f.number(p.score)}</strong>
                      {below && <span className="status below-floor-tag">{t('admin.reliability.belowFloor')}</span>}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
    </section>
  );
}
