import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

/** NotFoundPage answers any path the SPA has no page for. */
export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <section className="card not-found" data-testid="not-found-page">
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.body')}</p>
      <Link to="/" className="button primary">
        {t('notFound.home')}
      </Link>
    </section>
  );
}
