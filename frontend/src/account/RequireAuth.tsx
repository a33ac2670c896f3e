import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import type { Role } from '../gql/graphql';
import { ForbiddenPage } from '../shell/ForbiddenPage';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Loading } from '../ui/Loading';
import { landingPath } from './landing';
import { useSession } from './session';

/**
 * RequireAuth renders its children for a signed-in user and sends everyone
 * else to /login, remembering where they wanted to go (path, query and hash).
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { user, loading, error, retry } = useSession();
  const location = useLocation();

  if (loading) return <Loading />;
  if (!user && error) return <ErrorNotice error={error} onRetry={retry} />;
  if (!user) {
    const from = location.pathname + location.search + location.hash;
    return <Navigate to="/login" replace state={{ from }} />;
  }
  return children;
}

/**
 * RedirectIfSignedIn keeps signed-in users off the sign-up and log-in pages:
 * a provider goes to their Overview, anyone else to their account.
 */
export function RedirectIfSignedIn({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (user) return <Navigate to={landingPath(user.roles)} replace />;
  return children;
}

/**
 * RequireRole renders its children for a user with role, and the one
 * "not for you" page (a heading, why, a way on and home) to anyone else (the
 * server refuses them anyway; this saves a round of FORBIDDEN errors). Use
 * it inside RequireAuth.
 */
export function RequireRole({ role, children }: { role: Role; children: ReactNode }) {
  const { user } = useSession();
  if (!user?.roles.includes(role)) return <ForbiddenPage role={role} />;
  return children;
}
