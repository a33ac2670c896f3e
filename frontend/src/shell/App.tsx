import { lazy, Suspense, type ReactNode } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router-dom';
import { AccountPage } from '../account/AccountPage';
import { ConfirmEmailPage } from '../account/ConfirmEmailPage';
import { LogInPage } from '../account/LogInPage';
import { RedirectIfSignedIn, RequireAuth, RequireRole } from '../account/RequireAuth';
import { SessionProvider } from '../account/session';
import { SignUpPage } from '../account/SignUpPage';
import { ApiProvider } from '../api/ApiProvider';
import { Loading } from '../ui/Loading';
import { HomePage } from './HomePage';
import { Layout } from './Layout';
import { NotFoundPage } from './NotFoundPage';

// The dashboard areas load on first visit, so the home, sign-up and log-in
// pages do not wait for code most visitors never run.
const RolesPage = lazy(() => import('../onboarding/RolesPage').then((m) => ({ default: m.RolesPage })));
const ApplyPage = lazy(() => import('../onboarding/ApplyPage').then((m) => ({ default: m.ApplyPage })));
const ApplicationStatusPage = lazy(() =>
  import('../onboarding/ApplicationStatusPage').then((m) => ({ default: m.ApplicationStatusPage })),
);
const OverviewPage = lazy(() => import('../overview/OverviewPage').then((m) => ({ default: m.OverviewPage })));
const BenchmarksPage = lazy(() => import('../benchmarks/BenchmarksPage').then((m) => ({ default: m.BenchmarksPage })));
const PricingPage = lazy(() => import('../pricing/PricingPage').then((m) => ({ default: m.PricingPage })));
const ProviderRentalsPage = lazy(() => import('../providerrentals/ProviderRentalsPage').then((m) => ({ default: m.ProviderRentalsPage })));
const EarningsPage = lazy(() => import('../earnings/EarningsPage').then((m) => ({ default: m.EarningsPage })));
const PayoutsPage = lazy(() => import('../payouts/PayoutsPage').then((m) => ({ default: m.PayoutsPage })));
const MarketplacePage = lazy(() => import('../marketplace/MarketplacePage').then((m) => ({ default: m.MarketplacePage })));
const RentalsPage = lazy(() => import('../rentals/RentalsPage').then((m) => ({ default: m.RentalsPage })));
const FundsPage = lazy(() => import('../funds/FundsPage').then((m) => ({ default: m.FundsPage })));
const RentalPage = lazy(() => import('../rentals/RentalPage').then((m) => ({ default: m.RentalPage })));
const ReceiptPage = lazy(() => import('../rentals/ReceiptPage').then((m) => ({ default: m.ReceiptPage })));
const StatementPage = lazy(() => import('../statement/StatementPage').then((m) => ({ default: m.StatementPage })));
const TokensPage = lazy(() => import('../provider/TokensPage').then((m) => ({ default: m.TokensPage })));
const ApplicationQueuePage = lazy(() =>
  import('../admin/ApplicationQueuePage').then((m) => ({ default: m.ApplicationQueuePage })),
);
const PerformancePage = lazy(() => import('../reliability/PerformancePage').then((m) => ({ default: m.PerformancePage })));
const ReliabilityAdminPage = lazy(() =>
  import('../admin/ReliabilityAdminPage').then((m) => ({ default: m.ReliabilityAdminPage })),
);
const PayoutsAdminPage = lazy(() => import('../admin/PayoutsAdminPage').then((m) => ({ default: m.PayoutsAdminPage })));
const ApplicationReviewPage = lazy(() =>
  import('../admin/ApplicationReviewPage').then((m) => ({ default: m.ApplicationReviewPage })),
);

/** Area wraps a lazily loaded page: signed in, and a placeholder while it loads. */
function Area({ children }: { children: ReactNode }) {
  return (
    <RequireAuth>
      <Suspense fallback={<Loading />}>{children}</Suspense>
    </RequireAuth>
  );
}

/**
 * App wires the API client, the session and the routes. Later dashboard areas
 * add their routes here, each page living in its own area folder. A page for
 * a role (a provider's, an admin's) is wrapped in RequireRole, so whoever
 * lacks the role meets the one ForbiddenPage.
 */
export function App() {
  return (
    <ApiProvider>
      <SessionProvider>
        <BrowserRouter>
          <Routes>
            <Route element={<Layout />}>
              <Route index element={<HomePage />} />
              <Route
                path="signup"
                element={
                  <RedirectIfSignedIn>
                    <SignUpPage />
                  </RedirectIfSignedIn>
                }
              />
              <Route path="confirm-email" element={<ConfirmEmailPage />} />
              <Route
                path="login"
                element={
                  <RedirectIfSignedIn>
                    <LogInPage />
                  </RedirectIfSignedIn>
                }
              />
              <Route
                path="account"
                element={
                  <RequireAuth>
                    <AccountPage />
                  </RequireAuth>
                }
              />
              <Route
                path="roles"
                element={
                  <Area>
                    <RolesPage />
                  </Area>
                }
              />
              <Route
                path="provider/apply"
                element={
                  <Area>
                    <ApplyPage />
                  </Area>
                }
              />
              <Route
                path="provider/application"
                element={
                  <Area>
                    <ApplicationStatusPage />
                  </Area>
                }
              />
              <Route
                path="provider/overview"
                element={
                  <Area>
                    <RequireRole role="PROVIDER">
                      <OverviewPage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route
                path="provider/benchmarks"
                element={
                  <Area>
                    <RequireRole role="PROVIDER">
                      <BenchmarksPage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route
                path="provider/pricing"
                element={
                  <Area>
                    <RequireRole role="PROVIDER">
                      <PricingPage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route
                path="provider/earnings"
                element={
                  <Area>
                    <RequireRole role="PROVIDER">
                      <EarningsPage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route
                path="provider/payouts"
                element={
                  <Area>
                    <RequireRole role="PROVIDER">
                      <PayoutsPage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route
                path="provider/performance"
                element={
                  <Area>
                    <RequireRole role="PROVIDER">
                      <PerformancePage />
                    </RequireRole>
                  </Area>
                }
              />
              {/* Anyone may browse the marketplace; renting asks to sign in. */}
              <Route
                path="marketplace"
                element={
                  <Suspense fallback={<Loading />}>
                    <MarketplacePage />
                  </Suspense>
                }
              />
              <Route
                path="rentals"
                element={
                  <Area>
                    <RentalsPage />
                  </Area>
                }
              />
              <Route
                path="funds"
                element={
                  <Area>
                    <FundsPage />
                  </Area>
                }
              />
              <Route
                path="rentals/:id"
                element={
                  <Area>
                    <RentalPage />
                  </Area>
                }
              />
              <Route
                path="rentals/:id/receipt"
                element={
                  <Area>
                    <ReceiptPage />
                  </Area>
                }
              />
              <Route
                path="statement"
                element={
                  <Area>
                    <StatementPage />
                  </Area>
                }
              />
              <Route
                path="provider/rentals"
                element={
                  <Area>
                    <RequireRole role="PROVIDER">
                      <ProviderRentalsPage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route
                path="provider/tokens"
                element={
                  <Area>
                    <RequireRole role="PROVIDER">
                      <TokensPage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route
                path="admin/applications"
                element={
                  <Area>
                    <RequireRole role="ADMIN">
                      <ApplicationQueuePage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route
                path="admin/applications/:id"
                element={
                  <Area>
                    <RequireRole role="ADMIN">
                      <ApplicationReviewPage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route
                path="admin/payouts"
                element={
                  <Area>
                    <RequireRole role="ADMIN">
                      <PayoutsAdminPage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route
                path="admin/reliability"
                element={
                  <Area>
                    <RequireRole role="ADMIN">
                      <ReliabilityAdminPage />
                    </RequireRole>
                  </Area>
                }
              />
              <Route path="*" element={<NotFoundPage />} />
            </Route>
          </Routes>
        </BrowserRouter>
      </SessionProvider>
    </ApiProvider>
  );
}
