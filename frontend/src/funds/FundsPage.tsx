import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Loading } from '../ui/Loading';
import { DepositCard } from './DepositCard';
import { DepositHistory } from './DepositHistory';
import { FundsSummary } from './FundsSummary';
import { useDeposits } from './useDeposits';
import { useFunds } from './useFunds';

/**
 * FundsPage is the customer's prepaid balance and how to add to it: a
 * deposit in USDC on Solana, followed live from waiting to seen to
 * credited, and the latest deposits.
 */
export function FundsPage() {
  const { t } = useTranslation();
  const funds = useFunds();
  const view = useDeposits(funds.refresh);

  if (!view.loaded && view.error) return <ErrorNotice error={view.error} />;
  if (!view.loaded || !view.terms) return <Loading />;

  return (
    <section className="page funds-page" data-testid="funds-page" data-live={view.live}>
      <header className="page-head">
        <h1>{t('deposit.pageTitle')}</h1>
        <p className="lead">{t('deposit.pageLead')}</p>
      </header>
      <FundsSummary view={funds} />
      <p>
        <Link to="/statement" data-testid="funds-statement-link">
          {t('statement.open')}
        </Link>
      </p>
      {view.error && <ErrorNotice error={view.error} />}
      <DepositCard terms={view.terms} deposits={view.deposits} onMade={view.add} />
      <DepositHistory deposits={view.deposits} />
    </section>
  );
}
