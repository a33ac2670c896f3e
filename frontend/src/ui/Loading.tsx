import { useTranslation } from 'react-i18next';

/** Loading is the placeholder shown while a page waits for the server. */
export function Loading() {
  const { t } = useTranslation();
  return (
    <p className="loading" role="status" aria-live="polite" data-testid="loading">
      {t('common.loading')}
    </p>
  );
}
