import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../ui/format';
import { COMMITMENT_MONTHS } from './applicationForm';

/**
 * useCommitmentText names a commitment period ("12 months") in the current
 * language: one of the offered periods by its own words, any other number of
 * months (an application stored before the choices changed) generically.
 */
export function useCommitmentText(): (months: number) => string {
  const { t } = useTranslation();
  const f = useFormat();
  return useCallback(
    (months: number) =>
      (COMMITMENT_MONTHS as readonly number[]).includes(months)
        ? t(`apply.commitmentOptions.m${months as (typeof COMMITMENT_MONTHS)[number]}`)
        : t('apply.commitmentOther', { months: f.number(months) }),
    [t, f],
  );
}
