import { useTranslation } from 'react-i18next';
import { Link, NavLink, Outlet } from 'react-router-dom';
import { useSession } from '../account/session';
import { useNotificationListener } from '../notifications/events';
import { NotificationBell } from '../notifications/NotificationBell';
import { LanguageSwitcher } from './LanguageSwitcher';
import './shell.css';

/** Layout is the frame of every page: header, main content, footer. */
export function Layout() {
  const { t } = useTranslation();
  const { user, loading, retry } = useSession();

  // Approval makes the user a provider: ask who they are again so the nav
  // (and every role check) shows it without a reload.
  useNotificationListener((n) => {
    if (n.kind === 'APPLICATION_APPROVED') retry();
  });

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="header" data-testid="header">
        <Link to="/" className="brand" data-testid="brand">
          <span className="brand-mark" aria-hidden="true" />
          {t('app.brand')}
        </Link>
        <nav aria-label={t('nav.label')} className="nav">
          <NavLink to="/" end data-testid="nav-home">
            {t('nav.home')}
          </NavLink>
          {/* Browsing the marketplace needs no account. */}
          <NavLink to="/marketplace" data-testid="nav-marketplace">
            {t('nav.marketplace')}
          </NavLink>
          {/* Until the server says who is signed in, show neither set of links. */}
          {loading ? null : user ? (
            <>
              {/* A provider's landing link: their fleet, live. */}
              {user.roles.includes('PROVIDER') && (
                <NavLink to="/provider/overview" data-testid="nav-overview">
                  {t('nav.overview')}
                </NavLink>
              )}
              <NavLink to="/rentals" data-testid="nav-rentals">
                {t('nav.rentals')}
              </NavLink>
              <NavLink to="/funds" data-testid="nav-funds">
                {t('nav.funds')}
              </NavLink>
              <NavLink to="/roles" data-testid="nav-roles">
                {t('nav.roles')}
              </NavLink>
              {user.roles.includes('PROVIDER') && (
                <NavLink to="/provider/benchmarks" data-testid="nav-benchmarks">
                  {t('nav.benchmarks')}
                </NavLink>
              )}
              {user.roles.includes('PROVIDER') && (
                <NavLink to="/provider/pricing" data-testid="nav-pricing">
                  {t('nav.pricing')}
                </NavLink>
              )}
              {user.roles.includes('PROVIDER') && (
                <NavLink to="/provider/earnings" data-testid="nav-earnings">
                  {t('nav.earnings')}
                </NavLink>
              )}
              {user.roles.includes('PROVIDER') && (
                <NavLink to="/provider/payouts" data-testid="nav-payouts">
                  {t('nav.payouts')}
                </NavLink>
              )}
              {user.roles.includes('PROVIDER') && (
                <NavLink to="/provider/performance" data-testid="nav-performance">
                  {t('nav.performance')}
                </NavLink>
              )}
              {user.roles.includes('PROVIDER') && (
                <NavLink to="/provider/tokens" data-testid="nav-tokens">
                  {t('nav.tokens')}
                </NavLink>
              )}
              {user.roles.includes('ADMIN') && (
                <NavLink to="/admin/applications" data-testid="nav-admin-applications">
                  {t('nav.review')}
                </NavLink>
              )}
              {user.roles.includes('ADMIN') && (
                <NavLink to="/admin/payouts" data-testid="nav-admin-payouts">
                  {t('nav.adminPayouts')}
                </NavLink>
              )}
              {user.roles.includes('ADMIN') && (
                <NavLink to="/admin/reliability" data-testid="nav-admin-reliability">
                  {t('nav.adminReliability')}
                </NavLink>
              )}
              <NavLink to="/account" data-testid="nav-account">
                {t('nav.account')}
              </NavLink>
            </>
          ) : (
            <>
              <NavLink to="/login" data-testid="nav-login">
                {t('nav.logIn')}
              </NavLink>
              <NavLink to="/signup" data-testid="nav-signup">
                {t('nav.signUp')}
              </NavLink>
            </>
          )}
        </nav>
        <div className="header-tools">
          {/* Keyed by user so a new session starts a fresh feed. */}
          {user && <NotificationBell key={user.id} />}
          <LanguageSwitcher />
        </div>
      </header>
      <main id="main" className="main">
        <Outlet />
      </main>
      <footer className="footer">
        <p>{t('app.footer')}</p>
      </footer>
    </div>
  );
}
