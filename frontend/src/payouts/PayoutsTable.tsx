import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { PayoutFieldsFragment, PayoutState } from '../gql/graphql';
import { DataTable } from '../ui/DataTable';
import { isolate, useFormat } from '../ui/format';
import { formatUsdc } from '../ui/usdc';
import { lastMoment, payoutStateTone } from './payout';
import './payouts.css';

/** PayoutStateBadge names a payout's state in a coloured pill. */
export function PayoutStateBadge({ state }: { state: PayoutState }) {
  const { t } = useTranslation();
  return (
    <span className={`status payout-${payoutStateTone(state)}`} data-testid="payout-state" data-state={state}>
      {t(`payoutState.${state}`)}
    </span>
  );
}

interface PayoutsTableProps {
  payouts: readonly PayoutFieldsFragment[];
  caption: string;
  testId: string;
  /** actions renders a last column per row (the admins' settle forms); no column without it. */
  actions?: (p: PayoutFieldsFragment) => ReactNode;
}

/**
 * PayoutsTable lists payouts: the period, the amount, how and where it is
 * sent, its state, its own reference, the transaction (a link to the
 * explorer) or the bank's reference, and why it failed. The provider's
 * Payouts and Earnings tabs and the admins' page show the same columns;
 * the admins' rows name the provider first, linked to its application.
 */
export function PayoutsTable({ payouts, caption, testId, actions }: PayoutsTableProps) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  // The admins' list names each row's provider: then the provider names the row.
  const named = payouts.some((p) => p.provider);
  return (
    <DataTable
      className="payouts-table"
      testId={testId}
      caption={caption}
      rows={payouts}
      rowKey={(p) => p.id}
      rowProps={(p) => ({ 'data-testid': 'payout-row', 'data-id': p.id, 'data-state': p.state, 'data-kind': p.kind, 'data-amount': p.amount })}
      columns={[
        ...(named
          ? [
              {
                key: 'provider',
                header: t('payouts.table.provider'),
                primary: true,
                cell: (p: PayoutFieldsFragment) =>
                  p.provider ? (
                    <Link to={`/admin/applications/${p.provider.applicationId}`} dir="auto" data-testid="payout-provider" data-provider-id={p.provider.id}>
                      {p.provider.name}
                    </Link>
                  ) : null,
              },
            ]
          : []),
        {
          key: 'period',
          header: t('payouts.table.period'),
          primary: !named,
          cell: (p) => t('payouts.table.periodRange', { start: f.date(p.periodStart), end: f.date(lastMoment(p.periodEnd)) }),
        },
        {
          key: 'amount',
          header: t('payouts.table.amount'),
          align: 'end',
          className: 'amount',
          cell: (p) => t('common.usdc', { amount: isolate(formatUsdc(p.amount, i18n.language)) }),
        },
        {
          key: 'destination',
          header: t('payouts.table.destination'),
          cell: (p) => (
            <>
              {t(`payoutKind.${p.kind}`)}
              <span className="mono small destination" dir="ltr" title={p.destination} data-testid="payout-destination" data-destination={p.destination}>
                <span aria-hidden="true">{shortDestination(p.destination)}</span>
                <span className="visually-hidden">{p.destination}</span>
              </span>
            </>
          ),
        },
        { key: 'state', header: t('payouts.table.state'), cell: (p) => <PayoutStateBadge state={p.state} /> },
        {
          key: 'reference',
          header: t('payouts.table.reference'),
          className: 'mono wrap-anywhere small',
          cell: (p) => <span dir="ltr">{p.reference}</span>,
        },
        { key: 'details', header: t('payouts.table.details'), className: 'wrap-anywhere', cell: (p) => <PayoutDetails payout={p} /> },
        ...(actions ? [{ key: 'actions', header: t('payouts.table.actions'), actions: true, cell: actions }] : []),
      ]}
    />
  );
}

/**
 * shortDestination writes a long wallet address or account as its first
 * and last six characters ("7HB3RW…2p6MBBM"): enough to recognise it in a
 * list, one line instead of three. The whole value stays on hover (title)
 * and for screen readers.
 */
export function shortDestination(s: string): string {
  return s.length > 16 ? `${s.slice(0, 6)}…${s.slice(-6)}` : s;
}

/** PayoutDetails is what happened to a payout: paid when and how, the transaction, or why it failed. */
function PayoutDetails({ payout: p }: { payout: PayoutFieldsFragment }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <>
      {p.transactionUrl && (
        <a href={p.transactionUrl} target="_blank" rel="noreferrer noopener" data-testid="payout-transaction">
          {t('payouts.table.transaction')}
        </a>
      )}
      {p.paidAt && <span className="block">{t('payouts.table.paidAt', { at: f.dateTime(p.paidAt) })}</span>}
      {p.paidReference && (
        <span className="block" data-testid="payout-paid-reference">
          {t('payouts.table.paidReference', { reference: isolate(p.paidReference) })}
        </span>
      )}
      {p.failure && (
        <span className="block failure" data-testid="payout-failure">
          {t('payouts.table.failure', { reason: isolate(p.failure) })}
        </span>
      )}
      {!p.transactionUrl && !p.paidAt && !p.paidReference && !p.failure && <span className="muted">{t('payouts.table.created', { at: f.dateTime(p.createdAt) })}</span>}
    </>
  );
}
