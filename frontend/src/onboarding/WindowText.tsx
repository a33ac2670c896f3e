import { useTranslation } from 'react-i18next';
import type { Weekday } from '../gql/graphql';
import { crossesMidnight } from '../ui/schedule';

/**
 * WindowText writes one weekly window, "Monday 20:00–08:00", adding "(next
 * day)" when it ends on the day after it starts.
 */
export function WindowText({ day, start, end }: { day: Weekday; start: string; end: string }) {
  const { t } = useTranslation();
  const crosses = crossesMidnight({ start, end });
  return (
    <span data-testid="window-text" data-crosses-midnight={crosses}>
      <bdi dir="auto">{t('application.window', { day: t(`weekdays.${day}`), start, end })}</bdi>
      {crosses && <span className="muted"> {t('application.nextDay')}</span>}
    </span>
  );
}
