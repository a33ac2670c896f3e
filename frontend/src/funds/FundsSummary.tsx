import { useTranslation } from 'react-i18next';
import { isolate, useFormat } from '../ui/format';
import { formatUsdc, toMicros } from '../ui/usdc';
import './funds.css';
import type { FundsView } from './useFunds';

/**
 * FundsSummary is a customer's prepaid balance where they rent: the
 * balance, what the running rentals cost per hour, and when the balance
 * runs out at that rate. A balance of zero says how to add funds.
 */
export function FundsSummary({ view, compact = false }: { view: FundsView; compact?: boolean }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const { funds } = view;
  if (!funds) return null;
  const lng = i18n.language;
  const empty = toMicros(funds.balance) <= 0n;
  return (
    <section className={compact ? 'funds compact' : 'funds card'} aria-label={t('funds.title')} data-testid="funds" data-balance={funds.balance} data-per-hour={funds.perHour} data-runs-out-at={funds.runsOutAt ?? ''}>
      <p className="funds-balance">
        <span className="muted">{t('funds.balance')}</span> <strong data-testid="funds-balance">{t('common.usdc', { amount: isolate(formatUsdc(funds.balance, lng)) })}</strong>
      </p>
      {funds.runsOutAt ? (
        <p className="small" data-testid="funds-running">
          {t('funds.running', { perHour: isolate(formatUsdc(funds.perHour, lng)), at: f.dateTime(funds.runsOutAt) })}
        </p>
      ) : (
        <p className="small muted" data-testid="funds-idle">
          {t('funds.idle')}
        </p>
      )}
      {empty && (
        <p className="small" data-testid="funds-empty">
          {t('funds.addFunds')}
        </p>
      )}
    </section>
  );
}
