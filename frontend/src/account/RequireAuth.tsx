import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { ErrorNotice } from '../shell/ErrorNotice';
import { Loading } from '../shell/Loading';
import { useSession } from './session';

/**
 * RequireAuth renders its children for a signed-in user and sends everyone
 * else to /login, remembering where they wanted to go.
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { user, loading, error, retry } = useSession();
  const location = useLocation();

  if (loading) return <Loading />;
  if (!user && error) return <ErrorNotice error={error} onRetry={retry} />;
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return children;
}

/**
 * RedirectIfSignedIn keeps signed-in users off the sign-up and log-in pages.
 */
export function RedirectIfSignedIn({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (user) return <Navigate to="/account" replace />;
  return children;
}
