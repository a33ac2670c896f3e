import { useTranslation } from 'react-i18next';
import { Link, Outlet } from 'react-router-dom';
import { useSession } from '../account/session';
import { useNotificationListener } from '../notifications/events';
import { NotificationBell } from '../notifications/NotificationBell';
import { LanguageSwitcher } from './LanguageSwitcher';
import { Nav } from './Nav';
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
          <span className="brand-name">{t('app.brand')}</span>
        </Link>
        <Nav user={user} loading={loading} />
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
