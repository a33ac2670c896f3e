import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useQuery } from 'urql';
import { useSession } from '../account/session';
import { StatusBadge } from '../ui/Badge';
import './onboarding.css';
import { MyApplicationQuery } from './operations';

/**
 * RolesPage explains what customers and providers do on GPUnex and where
 * the signed-in user stands: the provider card offers "Apply to provide
 * GPUs", the open application, or the agent tokens of an approved provider.
 */
export function RolesPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const [{ data }] = useQuery({ query: MyApplicationQuery, requestPolicy: 'cache-and-network' });

  if (!user) return null; // RequireAuth guards this page
  const roles = user.roles;
  const isProvider = roles.includes('PROVIDER');
  const app = data?.myApplication;
  const open = app && (app.status === 'SUBMITTED' || app.status === 'INFO_REQUESTED');

  return (
    <section className="page roles-page" data-testid="roles-page">
      <header className="page-head">
        <h1>{t('roles.title')}</h1>
        <p className="lead">{t('roles.lead')}</p>
        <p>
          {t('roles.yours')}{' '}
          {roles.length === 0 ? (
            <span className="muted">{t('account.noRoles')}</span>
          ) : (
            <span className="chips inline" data-testid="roles-yours">
              {roles.map((role) => (
                <span key={role} className="chip" data-role={role}>
                  {t(`roles.${role}`)}
                </span>
              ))}
            </span>
          )}
        </p>
      </header>
      <div className="tiles">
        <article className="card role-card" data-testid="role-customer">
          <h2>{t('roles.customer.title')}</h2>
          <p>{t('roles.customer.body')}</p>
          <ul className="ticks">
            <li>{t('roles.customer.point1')}</li>
            <li>{t('roles.customer.point2')}</li>
            <li>{t('roles.customer.point3')}</li>
          </ul>
          <p className="muted">{t('roles.customer.everyone')}</p>
        </article>
        <article className="card role-card" data-testid="role-provider">
          <h2>{t('roles.provider.title')}</h2>
          <p>{t('roles.provider.body')}</p>
          <ol className="steps">
            <li>{t('roles.provider.step1')}</li>
            <li>{t('roles.provider.step2')}</li>
            <li>{t('roles.provider.step3')}</li>
          </ol>
          <h3>{t('roles.provider.tiersTitle')}</h3>
          <dl className="tier-list">
            <dt>{t('tiers.ENTERPRISE.name')}</dt>
            <dd>{t('tiers.ENTERPRISE.description')}</dd>
            <dt>{t('tiers.COMMUNITY.name')}</dt>
            <dd>{t('tiers.COMMUNITY.description')}</dd>
          </dl>
          <div className="actions">
            {isProvider ? (
              <>
                <Link to="/provider/overview" className="button primary" data-testid="roles-overview">
                  {t('roles.openOverview')}
                </Link>
                <Link to="/provider/tokens" className="button" data-testid="roles-tokens">
                  {t('roles.manageTokens')}
                </Link>
              </>
            ) : open ? (
              <Link to="/provider/application" className="button primary" data-testid="roles-application">
                {t('roles.seeApplication')}
              </Link>
            ) : (
              <Link to="/provider/apply" className="button primary" data-testid="roles-apply">
                {t('roles.apply')}
              </Link>
            )}
            {app && (isProvider || !open) && (
              <Link to="/provider/application" className="button" data-testid="roles-application-status">
                {t('roles.applicationStatus')} <StatusBadge status={app.status} />
              </Link>
            )}
          </div>
        </article>
        {roles.includes('ADMIN') && (
          <article className="card role-card" data-testid="role-admin">
            <h2>{t('roles.admin.title')}</h2>
            <p>{t('roles.admin.body')}</p>
            <Link to="/admin/applications" className="button" data-testid="roles-review">
              {t('roles.admin.review')}
            </Link>
          </article>
        )}
      </div>
    </section>
  );
}
