import { useTranslation } from 'react-i18next';
import { isolate, useFormat } from '../ui/format';
import { formatUsdc } from '../ui/usdc';
import { DepositStateBadge } from './DepositCard';
import type { Deposit } from './deposits';

/**
 * DepositHistory lists the customer's latest deposit requests, each with
 * the transfers found for it: credited (and whether late or of another
 * amount) or refused, and why.
 */
export function DepositHistory({ deposits }: { deposits: Deposit[] }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const lng = i18n.language;
  if (deposits.length === 0) return null;
  return (
    <section className="card" aria-labelledby="deposits-title" data-testid="deposits">
      <h2 id="deposits-title">{t('deposit.history')}</h2>
      <ul className="deposit-list">
        {deposits.map((d) => (
          <li key={d.id} data-testid="deposit-row" data-id={d.id} data-state={d.state} data-credited={d.credited}>
            <p>
              <DepositStateBadge state={d.state} />{' '}
              {d.amount
                ? t('deposit.asked', { amount: isolate(formatUsdc(d.amount, lng)), at: f.dateTime(d.createdAt) })
                : t('deposit.askedOpen', { at: f.dateTime(d.createdAt) })}{' '}
              {d.state === 'CREDITED' && <strong>{t('deposit.creditedTotal', { amount: isolate(formatUsdc(d.credited, lng)) })}</strong>}
            </p>
            {d.transfers.length > 0 && (
              <ul className="deposit-transfers">
                {d.transfers.map((tr) => (
                  <li key={tr.signature} data-testid="deposit-transfer" data-state={tr.state} data-issue={tr.issue ?? ''} data-late={tr.late}>
                    {t(`deposit.transfer.${tr.state}`, { amount: isolate(formatUsdc(tr.amount, lng)) })}
                    {tr.issue && <> {t(`deposit.issue.${tr.issue}`)}</>}
                    {tr.late && <> {t('deposit.late')}</>}{' '}
                    <a href={tr.explorerUrl} target="_blank" rel="noreferrer" dir="ltr">
                      {t('deposit.explorer')}
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
