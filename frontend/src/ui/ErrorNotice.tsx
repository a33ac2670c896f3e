import { useTranslation } from 'react-i18next';
import type { CombinedError } from 'urql';
import { errorCode } from '../api/errors';

/**
 * ErrorNotice tells the user, in their language, what went wrong with a
 * request, by the error's extensions.code; internals stay in the console.
 */
export function ErrorNotice({ error, onRetry }: { error: CombinedError; onRetry?: () => void }) {
  const { t } = useTranslation();
  const code = errorCode(error);
  return (
    <div className="notice error" role="alert" data-testid="error-notice" data-code={code}>
      <p>{t(`errors.codes.${code}`)}</p>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          {t('errors.retry')}
        </button>
      )}
    </div>
  );
}
