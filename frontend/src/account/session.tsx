import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import { useQuery, type CombinedError } from 'urql';
import { useApi } from '../api/ApiProvider';
import type { UserFieldsFragment as User } from '../gql/graphql';
import { MeQuery } from './operations';

/** SessionUser is the signed-in user as the SPA knows it. */
export type SessionUser = User;

interface SessionValue {
  /** user is the signed-in user, or null when signed out or still loading. */
  user: SessionUser | null;
  /** loading is true until the server has said who (if anyone) is signed in. */
  loading: boolean;
  error: CombinedError | undefined;
  /**
   * changed must be called after a mutation that set or cleared the session
   * cookie (signUp, logIn, logOut): it rebuilds the API client so `me`, every
   * query and the WebSocket run as the new user.
   */
  changed: () => void;
  retry: () => void;
}

const SessionContext = createContext<SessionValue | null>(null);

/** SessionProvider asks the server who is signed in and shares the answer. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const { reconnect } = useApi();
  const [{ data, fetching, error }, reexecute] = useQuery({ query: MeQuery });
  const retry = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);

  const value = useMemo<SessionValue>(
    () => ({
      user: data?.me ?? null,
      loading: fetching && !data,
      error,
      changed: reconnect,
      retry,
    }),
    [data, fetching, error, reconnect, retry],
  );

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** useSession reads the session; it must be used under SessionProvider. */
export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession must be used inside SessionProvider');
  return value;
}
