import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { Provider as UrqlProvider } from 'urql';
import { createApiClient, type ApiClient } from './client';

interface ApiContextValue {
  /**
   * reconnect throws away the client (cache and WebSocket) and builds a new
   * one; call it whenever the session cookie changed hands.
   */
  reconnect: () => void;
}

const ApiContext = createContext<ApiContextValue | null>(null);

/**
 * ApiProvider owns the one urql client of the SPA and swaps it for a fresh one
 * on reconnect, so every query re-runs and every subscription re-opens as the
 * user the cookie now names.
 */
export function ApiProvider({ children }: { children: ReactNode }) {
  const [api, setApi] = useState<ApiClient>(() => createApiClient());
  const current = useRef(api);

  const reconnect = useCallback(() => {
    current.current.dispose();
    const next = createApiClient();
    current.current = next;
    setApi(next);
  }, []);

  const value = useMemo(() => ({ reconnect }), [reconnect]);

  return (
    <ApiContext.Provider value={value}>
      <UrqlProvider value={api.urql}>{children}</UrqlProvider>
    </ApiContext.Provider>
  );
}

/** useApi gives access to reconnect; it must be used under ApiProvider. */
export function useApi(): ApiContextValue {
  const value = useContext(ApiContext);
  if (!value) throw new Error('useApi must be used inside ApiProvider');
  return value;
}
