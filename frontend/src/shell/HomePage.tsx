import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { landingPath, OVERVIEW_PATH, REVIEW_QUEUE_PATH } from '../account/landing';
import { useSession } from '../account/session';
import './home.css';

/** HomePage says what GPUnex is and where to start. */
export function HomePage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const landing = user ? landingPath(user.roles) : null;

  return (
    <div className="home" data-testid="home-page">
      <section className="hero">
        <h1>{t('home.title')}</h1>
        <p className="lead">{t('home.lead')}</p>
        <div className="actions">
          {landing === OVERVIEW_PATH ? (
            <Link to={landing} className="button primary" data-testid="home-overview">
              {t('roles.openOverview')}
            </Link>
          ) : landing === REVIEW_QUEUE_PATH ? (
            <Link to={landing} className="button primary" data-testid="home-review">
              {t('roles.admin.review')}
            </Link>
          ) : landing ? (
            <Link to={landing} className="button primary" data-testid="home-account">
              {t('home.openAccount')}
            </Link>
          ) : (
            <>
              <Link to="/signup" className="button primary" data-testid="home-signup">
                {t('home.getStarted')}
              </Link>
              <Link to="/login" className="button" data-testid="home-login">
                {t('home.logIn')}
              </Link>
            </>
          )}
        </div>
      </section>
      <section className="tiles">
        <article className="card">
          <h2>{t('home.providers.title')}</h2>
          <p>{t('home.providers.body')}</p>
        </article>
        <article className="card">
          <h2>{t('home.customers.title')}</h2>
          <p>{t('home.customers.body')}</p>
        </article>
        <article className="card">
          <h2>{t('home.platform.title')}</h2>
          <p>{t('home.platform.body')}</p>
        </article>
      </section>
    </div>
  );
}
