import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { useQuery } from 'urql';
import type { ApplicationStatus } from '../gql/graphql';
import { StatusBadge, TierBadge } from '../ui/Badge';
import { DataTable } from '../ui/DataTable';
import { ErrorNotice } from '../ui/ErrorNotice';
import { useFormat } from '../ui/format';
import { Loading } from '../ui/Loading';
import { FilterTabs } from '../ui/FilterTabs';
import './admin.css';
import { changesMembership, compareIds, fresher, useLiveMessages, type LoadedQueue, type QueueRow } from './live';
import { ApplicationCountsQuery, ApplicationQueueChangedSubscription, ApplicationQueueQuery } from './operations';

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

/** NO_VARIABLES are the queue subscription's (none), kept stable. */
const NO_VARIABLES = {};

/**
 * ApplicationQueuePage is the admins' review queue (where an admin lands):
 * applications newest first, filtered by status (tabs in the URL, so a
 * filter can be shared, each with how many applications it holds), paged
 * with the connection's cursor ("load more"), and live: a row changes as
 * its application does, new applications appear, and the counts follow,
 * without a reload. On a phone each application is a card (DataTable).
 */
export function ApplicationQueuePage() {
  const { t } = useTranslation();
  const f = useFormat();
  const [params, setParams] = useSearchParams();
  const tab = tabOf(params.get('status'));
  const [{ data: countData }, recount] = useQuery({ query: ApplicationCountsQuery, requestPolicy: 'cache-and-network', context: QUEUE_CONTEXT });
  const counts = new Map<Tab, number>();
  for (const c of countData?.providerApplicationCounts ?? []) counts.set(c.status, c.count);
  if (countData) counts.set('ALL', [...counts.values()].reduce((a, b) => a + b, 0));
  const onLiveChange = useCallback(() => recount({ requestPolicy: 'network-only' }), [recount]);

  return (
    <section className="page" data-testid="admin-queue-page">
      <header className="page-head">
        <h1>{t('admin.queue.title')}</h1>
        <p className="lead">{t('admin.queue.lead')}</p>
      </header>
      <FilterTabs
        label={t('admin.queue.filter')}
        tabs={STATUS_TABS}
        current={tab}
        onSelect={(s) => setParams(s === 'SUBMITTED' ? {} : { status: s })}
        tabLabel={(s) => (s === 'ALL' ? t('admin.queue.all') : t(`application.status.${s}`))}
        testId="queue-tab"
        tabProps={(s) => ({ 'data-count': counts.get(s) })}
        badge={(s) => {
          const n = counts.get(s);
          return (
            n !== undefined && (
              <span className="tab-count" data-testid={`queue-count-${s}`} aria-label={t('admin.queue.count', { count: n })}>
                {f.number(n)}
              </span>
            )
          );
        }}
      />
      {/* Keyed by the filter: a new filter starts again from the first page. */}
      <QueueList key={tab} status={tab === 'ALL' ? null : tab} onLiveChange={onLiveChange} />
    </section>
  );
}

/** LoadedPage is what one page of the queue read. */
interface LoadedPage {
  rows: readonly QueueRow[];
  hasNextPage: boolean;
  endCursor: string | null;
  totalCount: number;
}

/**
 * QueueList shows the pages it has loaded, one per cursor, as one table;
 * "load more" appends the last page's endCursor.
 *
 * It watches every application (providerApplicationChanged): each message
 * is a row as it is now, and the table shows the fresher of it and what the
 * pages read. A message that adds a row to this view or takes one out of it
 * (a new application, a status that enters or leaves the filter) makes the
 * loaded pages read again, so rows and the total follow. Messages that
 * arrive before the first page are held until it has loaded. Every live
 * change after the opening state is told to onLiveChange (the tabs' counts).
 */
function QueueList({ status, onLiveChange }: { status: ApplicationStatus | null; onLiveChange: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [refresh, setRefresh] = useState(0);
  const [live, setLive] = useState<ReadonlyMap<string, QueueRow>>(() => new Map());
  const [shown, setShown] = useState<ReadonlyMap<string | null, LoadedPage>>(() => new Map());
  // What each page read, by cursor, and the messages that came before the
  // first page; refs: the membership rule reads them between renders.
  const pages = useRef(new Map<string | null, LoadedPage>());
  const held = useRef<QueueRow[] | null>([]);

  const loaded = useCallback((): LoadedQueue | null => {
    if (!pages.current.has(null)) return null;
    const rows = new Map<string, QueueRow>();
    let oldestId: string | null = null;
    for (const page of pages.current.values()) {
      for (const row of page.rows) {
        rows.set(row.id, row);
        if (oldestId === null || compareIds(row.id, oldestId) < 0) oldestId = row.id;
      }
    }
    const last = pages.current.get(cursors[cursors.length - 1] ?? null);
    return { rows, oldestId, complete: last ? !last.hasNextPage : false };
  }, [cursors]);

  const reread = useCallback((apps: readonly QueueRow[]) => {
    const view = loaded();
    if (view && apps.some((app) => changesMembership(view, status, app))) setRefresh((r) => r + 1);
  }, [loaded, status]);

  const { live: isLive } = useLiveMessages(ApplicationQueueChangedSubscription, NO_VARIABLES, (data) => {
    const app = data.providerApplicationChanged.application;
    if (!data.providerApplicationChanged.initial) onLiveChange();
    setLive((known) => {
      if (fresher(app, known.get(app.id)) !== app) return known;
      const next = new Map(known);
      next.set(app.id, app);
      return next;
    });
    if (held.current) held.current.push(app);
    else reread([app]);
  });

  const onLoaded = useCallback((after: string | null, page: LoadedPage) => {
    pages.current.set(after, page);
    setShown(new Map(pages.current));
    if (after === null && held.current) {
      const early = held.current;
      held.current = null;
      reread(early);
    }
  }, [reread]);

  // The loaded pages in order, each application once (a page read again
  // may repeat a row of the next), each as fresh as known.
  const seen = new Set<string>();
  const rows: QueueRow[] = [];
  for (const after of cursors) {
    for (const node of shown.get(after)?.rows ?? []) {
      if (seen.has(node.id)) continue;
      seen.add(node.id);
      rows.push(fresher(node, live.get(node.id)) ?? node);
    }
  }
  const first = shown.get(null);
  const last = shown.get(cursors[cursors.length - 1] ?? null);
  const endCursor = last?.hasNextPage ? last.endCursor : null;

  return (
    <div className="card table-card queue-card">
      {first && (
        <p className="muted queue-total" data-testid="queue-total" data-total={first.totalCount}>
          {t('admin.queue.total', { total: f.number(first.totalCount) })}
        </p>
      )}
      {first && rows.length === 0 && (
        <p className="muted" data-testid="queue-empty">
          {t('admin.queue.empty')}
        </p>
      )}
      <DataTable
        caption={t('admin.queue.title')}
        className="queue"
        testId="queue-table"
        tableProps={{ 'data-live': isLive }}
        rows={rows}
        rowKey={(node) => node.id}
        rowProps={(node) => ({ 'data-testid': 'queue-row', 'data-id': node.id, 'data-status': node.status, 'data-email': node.email })}
        columns={[
          {
            key: 'applicant',
            header: t('admin.queue.applicant'),
            primary: true,
            cell: (node) => (
              <>
                <Link to={`/admin/applications/${node.id}`} dir="auto" data-testid="queue-open">
                  {node.fullName}
                </Link>
                <div className="muted small" dir="ltr">
                  {node.email}
                </div>
                {node.company && <div className="muted small">{node.company}</div>}
              </>
            ),
          },
          {
            key: 'gpus',
            header: t('admin.queue.gpus'),
            cell: (node) => (
              <ul className="plain">
                {node.gpus.map((g, i) => (
                  <li key={i}>
                    <bdi dir="ltr">
                      {f.number(g.quantity)} × {g.model?.name ?? g.otherModel}
                    </bdi>
                  </li>
                ))}
              </ul>
            ),
          },
          {
            key: 'tier',
            header: t('admin.queue.tier'),
            // The tier decided, once there is one; before, the suggestion, said to be one.
            cell: (node) =>
              node.tier ? (
                <TierBadge tier={node.tier} testId="queue-decided-tier" />
              ) : (
                <span className="queue-suggested" data-testid="queue-suggested-tier">
                  <TierBadge tier={node.suggestedTier.tier} /> <span className="muted small">{t('admin.queue.suggestedNote')}</span>
                </span>
              ),
          },
          { key: 'status', header: t('admin.queue.status'), cell: (node) => <StatusBadge status={node.status} /> },
          {
            key: 'updated',
            header: t('admin.queue.updated'),
            cell: (node) => <time dateTime={node.updatedAt}>{f.dateTime(node.updatedAt)}</time>,
          },
        ]}
      />
      {cursors.map((after) => (
        <QueuePage key={after ?? 'first'} status={status} after={after} refresh={refresh} onLoaded={onLoaded} />
      ))}
      {endCursor && (
        <button
          type="button"
          className="button"
          onClick={() => setCursors((list) => (list.includes(endCursor) ? list : [...list, endCursor]))}
          data-testid="queue-load-more"
        >
          {t('admin.queue.loadMore')}
        </button>
      )}
    </div>
  );
}

interface QueuePageProps {
  status: ApplicationStatus | null;
  after: string | null;
  refresh: number;
  onLoaded: (after: string | null, page: LoadedPage) => void;
}

/**
 * QueuePage reads one page of the queue and hands it to the list; it
 * shows only its loading state or its error.
 */
function QueuePage({ status, after, refresh, onLoaded }: QueuePageProps) {
  const [{ data, error }, reexecute] = useQuery({
    query: ApplicationQueueQuery,
    variables: { status, first: PAGE_SIZE, after },
    requestPolicy: 'cache-and-network',
    context: QUEUE_CONTEXT,
  });

  useEffect(() => {
    if (refresh > 0) reexecute({ requestPolicy: 'network-only' });
  }, [refresh, reexecute]);

  const conn = data?.providerApplications;
  useEffect(() => {
    if (conn) {
      onLoaded(after, {
        rows: conn.edges.map((e) => e.node),
        hasNextPage: conn.pageInfo.hasNextPage,
        endCursor: conn.pageInfo.endCursor ?? null,
        totalCount: conn.totalCount,
      });
    }
  }, [conn, after, onLoaded]);

  if (conn) return null;
  return error ? <ErrorNotice error={error} onRetry={() => reexecute({ requestPolicy: 'network-only' })} /> : <Loading />;
}
