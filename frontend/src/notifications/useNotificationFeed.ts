import { useCallback, useEffect, useReducer, useState } from 'react';
import { useClient, useMutation, useQuery, type CombinedError } from 'urql';
import { emitNotification } from './events';
import { emptyFeed, feedReducer, resumeAfter, type Feed } from './feed';
import {
  MarkNotificationsReadMutation,
  NotificationAddedSubscription,
  NotificationsQuery,
} from './operations';

const PAGE_SIZE = 20;

interface NotificationFeed extends Feed {
  error: CombinedError | undefined;
  markAllRead: () => Promise<void>;
  marking: boolean;
}

/**
 * useNotificationFeed loads the first page of notifications, then keeps it
 * live with notificationAdded, resuming after the newest notification it
 * already has so nothing is missed between the query and the subscription.
 */
export function useNotificationFeed(): NotificationFeed {
  const client = useClient();
  const [feed, dispatch] = useReducer(feedReducer, emptyFeed);
  const [afterId, setAfterId] = useState<string | undefined>(undefined);
  const [{ data, error }] = useQuery({
    query: NotificationsQuery,
    variables: { first: PAGE_SIZE },
    requestPolicy: 'network-only',
  });
  const [marking, markRead] = useMutation(MarkNotificationsReadMutation);

  useEffect(() => {
    if (!data) return;
    const items = data.notifications.edges.map((edge) => edge.node);
    dispatch({ type: 'loaded', items, unread: data.notifications.unreadCount });
    setAfterId(resumeAfter(items));
  }, [data]);

  // Subscribe once the first page is in (afterId !== undefined). Each event
  // goes straight to the reducer, so a burst of events loses none, and to
  // the pages listening for what it changed.
  useEffect(() => {
    if (afterId === undefined) return;
    const { unsubscribe } = client
      .subscription(NotificationAddedSubscription, { afterId })
      .subscribe((result) => {
        const notification = result.data?.notificationAdded;
        if (!notification) return;
        dispatch({ type: 'added', notification });
        emitNotification(notification);
      });
    return unsubscribe;
  }, [client, afterId]);

  // Omitting ids marks every notification read, not just the first page.
  const markAllRead = useCallback(async () => {
    const res = await markRead({});
    const payload = res.data?.markNotificationsRead;
    if (!payload || payload.userErrors.length > 0) return;
    dispatch({ type: 'allRead', unread: payload.unreadCount, readAt: new Date().toISOString() });
  }, [markRead]);

  return { ...feed, error: error ?? marking.error, markAllRead, marking: marking.fetching };
}
