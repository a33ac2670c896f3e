import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * isolate wraps a value in Unicode first-strong isolates (U+2068..U+2069), so
 * a Latin name or a date inside an Arabic sentence (or the reverse) keeps its
 * own direction and does not reorder the punctuation around it.
 */
export function isolate(value: string): string {
  return `\u2068${value}\u2069`;
}

/** Format holds the formatters of the current language. */
export interface Format {
  number: (value: number) => string;
  /**
   * dateTime is a medium date and short time, as in the notification bell;
   * dates are isolated (see isolate) as they are often interpolated.
   */
  dateTime: (iso: string) => string;
  /** date is a long date ("March 4, 2026"), isolated as dateTime is. */
  date: (iso: string) => string;
}

/**
 * useFormat formats numbers and dates for the current language with Intl, so
 * digits and date order follow the reader. Every area formats through it
 * (areas add their own units on top, as the Overview's useReadings does).
 */
export function useFormat(): Format {
  const { i18n } = useTranslation();
  const lng = i18n.language;
  return useMemo(() => {
    const number = new Intl.NumberFormat(lng, { maximumFractionDigits: 2 });
    const dateTime = new Intl.DateTimeFormat(lng, { dateStyle: 'medium', timeStyle: 'short' });
    const date = new Intl.DateTimeFormat(lng, { dateStyle: 'long' });
    return {
      number: (value) => number.format(value),
      dateTime: (iso) => isolate(dateTime.format(new Date(iso))),
      date: (iso) => isolate(date.format(new Date(iso))),
    };
  }, [lng]);
}
