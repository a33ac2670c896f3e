import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { useQuery } from 'urql';
import type { ApplicationStatus } from '../gql/graphql';
import { useNotificationListener } from '../notifications/events';
import { StatusBadge, TierBadge } from '../onboarding/ApplicationDetails';
import { useFormat } from '../onboarding/format';
import { ErrorNotice } from '../shell/ErrorNotice';
import { Loading } from '../shell/Loading';
import { ApplicationQueueQuery } from './operations';

/** PAGE_SIZE is how many applications one "load more" fetches. */
const PAGE_SIZE = 20;

/**
 * QUEUE_CONTEXT tells urql's document cache that a page depends on
 * ProviderApplication even when it is empty and so names no typename: a
 * decision or a new application then refetches it. A constant, so the query
 * is not re-run on every render.
 */
const QUEUE_CONTEXT = { additionalTypenames: ['ProviderApplication'] };

/** STATUS_TABS filter the queue; ALL shows every status. */
const STATUS_TABS = ['ALL', 'SUBMITTED', 'INFO_REQUESTED', 'APPROVED', 'REJECTED'] as const;
type Tab = (typeof STATUS_TABS)[number];

function tabOf(value: string | null): Tab {
  return (STATUS_TABS as readonly string[]).includes(value ?? '') ? (value as Tab) : 'SUBMITTED';
}

/**
 * ApplicationQueuePage is the admins' review queue: applications newest
 * first, filtered by status (tabs in the URL, so a filter can be shared),
 * paged with the connection's cursor ("load more").
 */
export function ApplicationQueuePage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tab = tabOf(params.get('status'));

  return (
    <section className="page" data-testid="admin-queue-page">
      <header className="page-head">
        <h1>{t('admin.queue.title')}</h1>
        <p className="lead">{t('admin.queue.lead')}</p>
      </header>
      <div className="tabs" role="tablist" aria-label={t('admin.queue.filter')}>
        {STATUS_TABS.map((s) => (
          <button
            key={s}
            type="button"
            role="tab"
            aria-selected={tab === s}
            className={tab === s ? 'tab active' : 'tab'}
            onClick={() => setParams(s === 'SUBMITTED' ? {} : { status: s })}
            data-testid={`queue-tab-${s}`}
          >
            {s === 'ALL' ? t('admin.queue.all') : t(`application.status.${s}`)}
          </button>
        ))}
      </div>
      {/* Keyed by the filter: a new filter starts again from the first page. */}
      <QueueList key={tab} status={tab === 'ALL' ? null : tab} />
    </section>
  );
}

/**
 * QueueList renders one QueuePage per cursor it has loaded; "load more"
 * appends the last page's endCursor.
 */
function QueueList({ status }: { status: ApplicationStatus | null }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [refresh, setRefresh] = useState(0);

  // A new application or a resubmission puts the queue out of date.
  useNotificationListener((n) => {
    if (n.kind === 'APPLICATION_SUBMITTED') setRefresh((r) => r + 1);
  });

  return (
    <div className="card table-card">
      <table className="queue" data-testid="queue-table">
        <QueueHead />
        {cursors.map((after, i) => (
          <QueuePage
            key={after ?? 'first'}
            status={status}
            after={after}
            first={i === 0}
            last={i === cursors.length - 1}
            refresh={refresh}
            onMore={(cursor) => setCursors((list) => [...list, cursor])}
          />
        ))}
      </table>
    </div>
  );
}

function QueueHead() {
  const { t } = useTranslation();
  return (
    <thead>
      <tr>
        <th scope="col">{t('admin.queue.applicant')}</th>
        <th scope="col">{t('admin.queue.gpus')}</th>
        <th scope="col">{t('admin.queue.suggested')}</th>
        <th scope="col">{t('admin.queue.status')}</th>
        <th scope="col">{t('admin.queue.updated')}</th>
      </tr>
    </thead>
  );
}

interface QueuePageProps {
  status: ApplicationStatus | null;
  after: string | null;
  first: boolean;
  last: boolean;
  refresh: number;
  onMore: (cursor: string) => void;
}

function QueuePage({ status, after, first, last, refresh, onMore }: QueuePageProps) {
  const { t } = useTranslation();
  const f = useFormat();
  const [{ data, fetching, error }, reexecute] = useQuery({
    query: ApplicationQueueQuery,
    variables: { status, first: PAGE_SIZE, after },
    requestPolicy: 'cache-and-network',
    context: QUEUE_CONTEXT,
  });

  useEffect(() => {
    if (refresh > 0) reexecute({ requestPolicy: 'network-only' });
  }, [refresh, reexecute]);

  if (!data) {
    return (
      <tbody>
        <tr>
          <td colSpan={5}>
            {error ? <ErrorNotice error={error} onRetry={() => reexecute({ requestPolicy: 'network-only' })} /> : <Loading />}
          </td>
        </tr>
      </tbody>
    );
  }

  const conn = data.providerApplications;
  const endCursor = conn.pageInfo.endCursor;
  return (
    <tbody>
      {first && (
        <tr className="queue-total">
          <td colSpan={5} className="muted" data-testid="queue-total" data-total={conn.totalCount}>
            {t('admin.queue.total', { total: f.number(conn.totalCount) })}
          </td>
        </tr>
      )}
      {first && conn.edges.length === 0 && (
        <tr>
          <td colSpan={5} className="muted" data-testid="queue-empty">
            {t('admin.queue.empty')}
          </td>
        </tr>
      )}
      {conn.edges.map(({ node }) => (
        <tr key={node.id} data-testid="queue-row" data-id={node.id} data-status={node.status} data-email={node.email}>
          <td>
            <Link to={`/admin/applications/${node.id}`} dir="auto" data-testid="queue-open">
              {node.fullName}
            </Link>
            <div className="muted small" dir="ltr">
              {node.email}
            </div>
            {node.company && <div className="muted small">{node.company}</div>}
          </td>
          <td>
            <ul className="plain">
              {node.gpus.map((g, i) => (
                <li key={i}>
                  <bdi dir="ltr">
                    {f.number(g.quantity)} × {g.model?.name ?? g.otherModel}
                  </bdi>
                </li>
              ))}
            </ul>
          </td>
          <td>
            <TierBadge tier={node.suggestedTier.tier} />
          </td>
          <td>
            <StatusBadge status={node.status} />
            {node.tier && <TierBadge tier={node.tier} />}
          </td>
          <td>
            <time dateTime={node.updatedAt}>{f.dateTime(node.updatedAt)}</time>
          </td>
        </tr>
      ))}
      {last && conn.pageInfo.hasNextPage && endCursor && (
        <tr>
          <td colSpan={5}>
            <button type="button" className="button" onClick={() => onMore(endCursor)} disabled={fetching} data-testid="queue-load-more">
              {t('admin.queue.loadMore')}
            </button>
          </td>
        </tr>
      )}
    </tbody>
  );
}
