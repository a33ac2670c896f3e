import { Client, cacheExchange, fetchExchange, subscriptionExchange } from 'urql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { followAgain } from './resubscribe';

/** GRAPHQL_PATH is where the server answers GraphQL over HTTP and WebSocket. */
export const GRAPHQL_PATH = '/graphql';

/**
 * CSRF_HEADER must be on every HTTP request: the server honours the session
 * cookie only on requests that carry it, which a cross-site form cannot send.
 */
export const CSRF_HEADER = { 'X-GPUnex-CSRF': '1' } as const;

/** ApiClient pairs the urql client with the WebSocket client it owns. */
export interface ApiClient {
  urql: Client;
  dispose: () => void;
}

function webSocketUrl(): string {
  const url = new URL(GRAPHQL_PATH, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/**
 * createApiClient builds a fresh urql client with its own cache and its own
 * graphql-ws connection. The session lives in an HttpOnly cookie that the
 * server reads on the WebSocket upgrade, so whenever the user changes (log in,
 * sign up, log out) the caller disposes the old pair and creates a new one:
 * the subscriptions then run as the new user and no cached data leaks across.
 */
export function createApiClient(): ApiClient {
  let disposed = false;
  const ws: WsClient = createWsClient({
    url: webSocketUrl(),
    lazy: true,
    // The cookie authenticates the upgrade; the payload stays empty.
    connectionParams: {},
    // Reconnect after network blips; the notification subscription replays
    // what it missed from its afterId, so a reconnect loses nothing.
    retryAttempts: 20,
  });

  const urql = new Client({
    url: GRAPHQL_PATH,
    preferGetMethod: false,
    fetchOptions: () => ({
      credentials: 'same-origin',
      headers: { ...CSRF_HEADER },
    }),
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query ?? '' };
          return {
            subscribe(sink) {
              // The server ends a subscription early when it may have lost
              // events: follow again, from the current state.
              const unsubscribe = followAgain((inner) => ws.subscribe(input, inner), sink, undefined, () => !disposed);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });

  return {
    urql,
    dispose: () => {
      disposed = true;
      // graphql-ws's dispose waits for a connection attempt in progress
      // and rejects with that attempt's failure (a close event, or a plain
      // { code: 1000, reason: 'All Subscriptions Gone' } when a retry
      // finds no subscription left). The client is being thrown away, so
      // the failure is expected: without this catch it was an unhandled
      // rejection in the page after log-in and log-out.
      Promise.resolve(ws.dispose()).catch(() => undefined);
    },
  };
}
