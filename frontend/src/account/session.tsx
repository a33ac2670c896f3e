import { createContext, useCallback, useContext, useEffect, useMemo, useRef, type ReactNode } from 'react';
import { useQuery, type CombinedError } from 'urql';
import { useApi } from '../api/ApiProvider';
import type { UserFieldsFragment as User } from '../gql/graphql';
import { changeLanguage, currentLanguage, fromApiLanguage, markLanguageUnsaved, storedLanguage, unsavedLanguage } from '../i18n';
import { MeQuery } from './operations';
import { useStoreLanguage } from './useStoreLanguage';

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
  useAccountLanguage(data ? (data.me ?? null) : undefined);

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

/**
 * useAccountLanguage switches the SPA to the language stored on the account
 * when a user signs in on this page (log-in, sign-up, confirmed email): the
 * choice made on another device, or at sign-up, follows the user. A page
 * that loads already signed in keeps this browser's own choice when it has
 * one (the user chose it here, or it was adopted at the last sign-in), so
 * a reload never switches language under the user; a browser without a
 * choice adopts the account's. Later changes go from the LanguageSwitcher
 * to the account.
 *
 * user is undefined until the server has answered, null when signed out.
 */
function useAccountLanguage(user: User | null | undefined) {
  const adopted = useRef<string | null>(null);
  const signedOutSeen = useRef(false);
  const storeLanguage = useStoreLanguage();
  useEffect(() => {
    if (user === undefined) return;
    if (user === null) {
      // Signed out: the next sign-in, even as the same user, adopts again.
      adopted.current = null;
      signedOutSeen.current = true;
      return;
    }
    if (adopted.current === user.id) return;
    adopted.current = user.id;
    // A choice this browser made that the account has not stored yet (the
    // page was reloaded before setLanguage answered) is newer: keep it and
    // finish storing it.
    const unsaved = unsavedLanguage(user.id);
    if (unsaved) {
      if (unsaved !== currentLanguage()) void changeLanguage(unsaved);
      if (fromApiLanguage(user.language) !== unsaved) void storeLanguage(user.id, unsaved);
      else markLanguageUnsaved(user.id, null);
      return;
    }
    if (!signedOutSeen.current && storedLanguage() !== null) return;
    const lng = fromApiLanguage(user.language);
    if (lng && lng !== currentLanguage()) void changeLanguage(lng);
  }, [user, storeLanguage]);
}

/** useSession reads the session; it must be used under SessionProvider. */
export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession must be used inside SessionProvider');
  return value;
}
