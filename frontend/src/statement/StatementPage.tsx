import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useClient, useQuery } from 'urql';
import { DataTable } from '../ui/DataTable';
import { downloadText } from '../ui/download';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { Loading } from '../ui/Loading';
import { formatUsdc } from '../ui/usdc';
import { StatementCsvQuery, StatementQuery } from './operations';

/** PAGE is how many lines one page of the statement shows. */
const PAGE = 50;

/**
 * StatementPage lists every line of the customer's funds account (deposits,
 * rental charges and refunds, adjustments), oldest first, with the balance
 * after each, a page at a time, and downloads the whole statement as the
 * server's CSV (one CSV rule with the provider's earnings).
 */
export function StatementPage() {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const client = useClient();
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const [res, refetch] = useQuery({ query: StatementQuery, variables: { first: PAGE, after }, requestPolicy: 'cache-and-network' });
  const [downloading, setDownloading] = useState(false);

  async function onDownload() {
    setDownloading(true);
    const out = await client.query(StatementCsvQuery, {}, { requestPolicy: 'network-only' }).toPromise();
    setDownloading(false);
    const csv = out.data?.myStatementCsv;
    if (csv !== undefined) downloadText(csv, `gpunex-statement-${new Date().toISOString().slice(0, 10)}.csv`, 'text/csv;charset=utf-8');
  }

  if (res.error && !res.data) return <ErrorNotice error={res.error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  if (!res.data) return <Loading />;
  const st = res.data.myStatement;
  const lines = st.edges.map((e) => e.node);
  const kindOf = (kind: string, amount: string) => {
    if (kind === 'RENTAL_CHARGE') return amount.startsWith('-') ? t('statement.kind.CHARGE') : t('statement.kind.REFUND');
    if (kind === 'DEPOSIT' || kind === 'ADJUSTMENT') return t(`statement.kind.${kind}`);
    return kind;
  };
  return (
    <section className="page statement" data-testid="statement-page" data-lines={lines.length} data-balance={st.balance}>
      <header className="page-head">
        <h1>{t('statement.title')}</h1>
        <p className="lead">{t('statement.lead')}</p>
      </header>
      <p className="card" data-testid="statement-balance">
        {t('statement.balance', { amount: isolate(formatUsdc(st.balance, i18n.language)) })}{' '}
        <button type="button" className="button" onClick={() => void onDownload()} disabled={downloading} data-testid="statement-csv">
          {t('statement.csv')}
        </button>
      </p>
      {res.error && <ErrorNotice error={res.error} />}
      {lines.length === 0 ? (
        <p className="card" data-testid="statement-empty">
          {t('statement.empty')}
        </p>
      ) : (
        <DataTable
          className="statement-table"
          caption={t('statement.title')}
          rows={lines}
          rowKey={(l) => l.id}
          rowProps={(l) => ({ 'data-testid': 'statement-line', 'data-kind': l.kind, 'data-amount': l.amount, 'data-balance': l.balance })}
          columns={[
            { key: 'when', header: t('statement.field.when'), primary: true, cell: (l) => f.dateTime(l.postedAt) },
            { key: 'kind', header: t('statement.field.kind'), cell: (l) => kindOf(l.kind, l.amount) },
            {
              key: 'what',
              header: t('statement.field.reference'),
              className: 'wrap-anywhere',
              cell: (l) =>
                l.rentalId ? (
                  <Link to={`/rentals/${l.rentalId}`}>{t('statement.rental', { id: l.rentalId })}</Link>
                ) : (
                  <span dir="ltr">{l.reference}</span>
                ),
            },
            { key: 'amount', header: t('statement.field.amount'), cell: (l) => formatUsdc(l.amount, i18n.language) },
            { key: 'balance', header: t('statement.field.balance'), cell: (l) => formatUsdc(l.balance, i18n.language) },
          ]}
        />
      )}
      <div className="pager">
        {cursors.length > 1 && (
          <button type="button" className="button" onClick={() => setCursors((c) => c.slice(0, -1))} data-testid="statement-prev">
            {t('statement.prev')}
          </button>
        )}
        {st.pageInfo.hasNextPage && st.pageInfo.endCursor && (
          <button type="button" className="button" onClick={() => setCursors((c) => [...c, st.pageInfo.endCursor ?? null])} data-testid="statement-next">
            {t('statement.next')}
          </button>
        )}
      </div>
    </section>
  );
}
