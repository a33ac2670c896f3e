import { BrowserRouter, Route, Routes } from 'react-router-dom';
import { AccountPage } from '../account/AccountPage';
import { LogInPage } from '../account/LogInPage';
import { RedirectIfSignedIn, RequireAuth } from '../account/RequireAuth';
import { SessionProvider } from '../account/session';
import { SignUpPage } from '../account/SignUpPage';
import { ApiProvider } from '../api/ApiProvider';
import { HomePage } from './HomePage';
import { Layout } from './Layout';
import { NotFoundPage } from './NotFoundPage';

/**
 * App wires the API client, the session and the routes. Later dashboard areas
 * add their routes here, each page living in its own area folder.
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
              <Route path="*" element={<NotFoundPage />} />
            </Route>
          </Routes>
        </BrowserRouter>
      </SessionProvider>
    </ApiProvider>
  );
}
