import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { isolate } from '../ui/format';

/** ZonedDates writes dates as the provider's time zone has them. */
export interface ZonedDates {
  /**
   * date is a long date; with exclusiveEnd, the day before an end that is
   * the next period's first instant (a week ending Monday 00:00 ends on
   * Sunday). Isolated, as useFormat's dates are.
   */
  date: (iso: string, exclusiveEnd?: boolean) => string;
}

/**
 * useZonedDates formats in the reader's language and the provider's time
 * zone: a period starts at the provider's midnight, which in the reader's
 * own zone may fall on the day before.
 */
export function useZonedDates(timeZone: string): ZonedDates {
  const { i18n } = useTranslation();
  const lng = i18n.language;
  return useMemo(() => {
    let format: Intl.DateTimeFormat;
    try {
      format = new Intl.DateTimeFormat(lng, { dateStyle: 'long', timeZone });
    } catch {
      format = new Intl.DateTimeFormat(lng, { dateStyle: 'long', timeZone: 'UTC' });
    }
    return {
      date: (iso, exclusiveEnd = false) => isolate(format.format(Date.parse(iso) - (exclusiveEnd ? 1 : 0))),
    };
  }, [lng, timeZone]);
}
