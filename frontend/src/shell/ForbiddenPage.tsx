import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useQuery } from 'urql';
import type { Role } from '../gql/graphql';
import { MyApplicationQuery } from '../onboarding/operations';
import { StatusBadge } from '../ui/Badge';

/**
 * ForbiddenPage is the one page a signed-in user meets on a page their
 * roles do not open: a heading that says whose page it is, why, and ways
 * on. A provider's page offers the user's application when they have one,
 * and "Apply to provide GPUs" when they have none (never "Your
 * application" to someone without one); every variant links home.
 */
export function ForbiddenPage({ role }: { role: Role }) {
  const { t } = useTranslation();
  return (
    <section className="card narrow forbidden-page" data-testid="forbidden" data-code="FORBIDDEN" data-role={role}>
      <h1>{t(role === 'PROVIDER' ? 'forbidden.provider.title' : role === 'ADMIN' ? 'forbidden.admin.title' : 'forbidden.title')}</h1>
      <p>{t(role === 'PROVIDER' ? 'forbidden.provider.body' : role === 'ADMIN' ? 'forbidden.admin.body' : 'forbidden.body')}</p>
      <div className="actions">
        {role === 'PROVIDER' && <ProviderWayOn />}
        <Link to="/" className={role === 'PROVIDER' ? 'button' : 'button primary'} data-testid="forbidden-home">
          {t('notFound.home')}
        </Link>
      </div>
    </section>
  );
}

/** ProviderWayOn is the way to become a provider: the application as it stands, or applying. */
function ProviderWayOn() {
  const { t } = useTranslation();
  const [{ data, fetching }] = useQuery({ query: MyApplicationQuery, requestPolicy: 'cache-and-network' });
  if (fetching && !data) return null;
  const app = data?.myApplication;
  if (app && app.status !== 'REJECTED') {
    return (
      <Link to="/provider/application" className="button primary" data-testid="forbidden-application">
        {t('roles.applicationStatus')} <StatusBadge status={app.status} />
      </Link>
    );
  }
  return (
    <Link to="/provider/apply" className="button primary" data-testid="forbidden-apply">
      {t(app ? 'application.applyAgain' : 'roles.apply')}
    </Link>
  );
}
