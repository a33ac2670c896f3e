import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { useQuery } from 'urql';
import type { ApplicationStatus } from '../gql/graphql';
import { StatusBadge, TierBadge } from '../ui/Badge';
import { ErrorNotice } from '../ui/ErrorNotice';
import { useFormat } from '../ui/format';
import { Loading } from '../ui/Loading';
import '../ui/tabs.css';
import './admin.css';
import { changesMembership, compareIds, fresher, useLiveMessages, type LoadedQueue, type QueueRow } from './live';
import { ApplicationQueueChangedSubscription, ApplicationQueueQuery } from './operations';

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
 * ApplicationQueuePage is the admins' review queue: applications newest
 * first, filtered by status (tabs in the URL, so a filter can be shared),
 * paged with the connection's cursor ("load more"), and live: a row changes
 * as its application does, and new applications appear, without a reload.
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

/** LoadedPage is what one page of the queue read. */
interface LoadedPage {
  rows: readonly QueueRow[];
  hasNextPage: boolean;
}

/**
 * QueueList renders one QueuePage per cursor it has loaded; "load more"
 * appends the last page's endCursor.
 *
 * It watches every application (providerApplicationChanged): each message
 * is a row as it is now, and the pages show the fresher of it and what they
 * read. A message that adds a row to this view or takes one out of it (a new
 * application, a status that enters or leaves the filter) makes the loaded
 * pages read again, so rows and the total follow. Messages that arrive
 * before the first page are held until it has loaded.
 */
function QueueList({ status }: { status: ApplicationStatus | null }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [refresh, setRefresh] = useState(0);
  const [live, setLive] = useState<ReadonlyMap<string, QueueRow>>(() => new Map());
  // What each page read, by cursor, and the messages that came before the
  // first page; refs: the rule reads them, nothing renders them.
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
    if (after === null && held.current) {
      const early = held.current;
      held.current = null;
      reread(early);
    }
  }, [reread]);

  return (
    <div className="card table-card">
      <table className="data-table queue" data-testid="queue-table" data-live={isLive}>
        <QueueHead />
        {cursors.map((after, i) => (
          <QueuePage
            key={after ?? 'first'}
            status={status}
            after={after}
            first={i === 0}
            last={i === cursors.length - 1}
            refresh={refresh}
            live={live}
            onLoaded={onLoaded}
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
  /** live holds the latest message of each application that changed. */
  live: ReadonlyMap<string, QueueRow>;
  onLoaded: (after: string | null, page: LoadedPage) => void;
  onMore: (cursor: string) => void;
}

function QueuePage({ status, after, first, last, refresh, live, onLoaded, onMore }: QueuePageProps) {
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

  const conn = data?.providerApplications;
  useEffect(() => {
    if (conn) onLoaded(after, { rows: conn.edges.map((e) => e.node), hasNextPage: conn.pageInfo.hasNextPage });
  }, [conn, after, onLoaded]);

  if (!conn) {
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
      {conn.edges.map((edge) => fresher(edge.node, live.get(edge.node.id)) ?? edge.node).map((node) => (
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
