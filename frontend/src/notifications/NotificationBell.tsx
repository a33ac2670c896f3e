import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { ErrorNotice } from '../ui/ErrorNotice';
import { useDismiss } from '../ui/useDismiss';
import { useFormat } from '../ui/format';
import { linkOf, paramsOf, type Notification } from './feed';
import './notifications.css';
import { useNotificationFeed } from './useNotificationFeed';
import { formatUsdc } from '../ui/usdc';

/**
 * NotificationBell shows the unread count live and opens a list of the
 * newest notifications with a "mark all as read" action.
 */
export function NotificationBell() {
  const { t } = useTranslation();
  const feed = useNotificationFeed();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);

  useDismiss(open, root, () => setOpen(false));

  return (
    <div className="bell" ref={root}>
      <button
        type="button"
        className="bell-button"
        aria-haspopup="true"
        aria-expanded={open}
        aria-label={t('notifications.open', { unread: feed.unread })}
        onClick={() => setOpen(!open)}
        data-testid="notification-bell"
      >
        <BellIcon />
        {feed.unread > 0 && (
          <span className="bell-count" data-testid="notification-unread-count">
            {feed.unread}
          </span>
        )}
      </button>
      {open && (
        <div className="bell-panel" role="region" aria-label={t('notifications.title')} data-testid="notification-panel">
          <div className="bell-panel-head">
            <h2>{t('notifications.title')}</h2>
            <button
              type="button"
              className="link-button"
              onClick={() => void feed.markAllRead()}
              disabled={feed.unread === 0 || feed.marking}
              data-testid="notifications-mark-all-read"
            >
              {t('notifications.markAllRead')}
            </button>
          </div>
          {feed.error && <ErrorNotice error={feed.error} />}
          {!feed.loaded && !feed.error && <p className="muted">{t('common.loading')}</p>}
          {feed.loaded && feed.items.length === 0 && (
            <p className="muted" data-testid="notifications-empty">
              {t('notifications.empty')}
            </p>
          )}
          {feed.items.length > 0 && (
            <ul className="bell-list" data-testid="notification-list">
              {feed.items.map((n) => (
                <NotificationItem key={n.id} notification={n} onOpen={() => setOpen(false)} />
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

function NotificationItem({ notification: n, onOpen }: { notification: Notification; onOpen: () => void }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  // A tier arrives as its enum value (COMMUNITY) and is shown by its name;
  // a benchmark's metrics and guidance arrive as lists of enum values
  // (FP32_TFLOPS,MEMORY_READ_GBS) and are shown by their names.
  const params = paramsOf(n, (key, value) => {
    if (key === 'tier' && (value === 'ENTERPRISE' || value === 'COMMUNITY')) return t(`tiers.${value}.name`);
    if (key === 'metrics') return namesOf(value, (m) => t(`benchmarks.metrics.${m}` as 'benchmarks.title', { defaultValue: m }));
    if (key === 'guidance') return namesOf(value, (g) => t(`benchmarks.guidanceTitle.${g}` as 'benchmarks.title', { defaultValue: g }));
    // Money in USDC, a payout method's kind and schedule, and a time arrive
    // as the API writes them and are shown as the page writes them.
    if (key === 'balance' || key === 'perHour' || key === 'amount' || key === 'asked') return formatUsdc(value, i18n.language);
    if (key === 'kind') return t(`payoutKind.${value}` as 'notifications.title', { defaultValue: value });
    if (key === 'schedule') return t(`payoutSchedule.${value}` as 'notifications.title', { defaultValue: value });
    if (key === 'holdUntil' || key === 'claimed' || key === 'billed') return f.dateTime(value);
    if (key === 'what' && (value === 'start' || value === 'end')) return t(`notifications.reportPart.${value}`);
    return value;
  });
  // kind is a stable key; an unknown kind falls back to the server's English.
  const title = t(`notifications.kinds.${n.kind}.title` as 'notifications.title', { ...params, defaultValue: n.title });
  const body = t(`notifications.kinds.${n.kind}.body` as 'notifications.title', { ...params, defaultValue: n.body });
  const when = f.dateTime(n.createdAt);
  const unread = !n.readAt;
  const link = linkOf(n);

  return (
    <li
      className={unread ? 'bell-item unread' : 'bell-item'}
      data-testid="notification-item"
      data-kind={n.kind}
      data-unread={unread}
    >
      <p className="bell-item-title">
        {unread && <span className="dot" aria-label={t('notifications.unread')} />}
        {link ? (
          <Link to={link} onClick={onOpen} data-testid="notification-link">
            {title}
          </Link>
        ) : (
          title
        )}
      </p>
      <p className="bell-item-body">{body}</p>
      <time className="muted" dateTime={n.createdAt}>
        {when}
      </time>
    </li>
  );
}

/** namesOf names each value of a comma-separated list ("A,B" → "Name A, Name B"). */
function namesOf(list: string, name: (value: string) => string): string {
  return list
    .split(',')
    .filter((v) => v !== '')
    .map(name)
    .join(', ');
}

function BellIcon() {
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z"
      />
    </svg>
  );
}
