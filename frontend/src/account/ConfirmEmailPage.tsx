import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { useMutation } from 'urql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Loading } from '../ui/Loading';
import { userErrorText } from '../ui/userErrorText';
import './account.css';
import { authOutcome, confirmationToken, confirmErrorCode, type AuthOutcome } from './authOutcome';
import { ACCOUNT_PATH } from './landing';
import { ConfirmEmailMutation } from './operations';
import { useSession } from './session';

/**
 * ConfirmEmailPage is where the sign-up email's link lands: it sends the
 * link's token to confirmEmail once, and on success the new user is signed
 * in (the session cookie) and goes on to their account, as sign-up used to
 * lead; otherwise it says why, by code, and offers to sign up again.
 */
export function ConfirmEmailPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const session = useSession();
  const [result, execute] = useMutation(ConfirmEmailMutation);
  const [outcome, setOutcome] = useState<AuthOutcome | null>(null);
  const token = confirmationToken(location.search);
  // The token works once: a second call (React's strict mode runs effects
  // twice in development) would refuse the link the first one used.
  const sent = useRef(false);

  useEffect(() => {
    if (!token || sent.current) return;
    sent.current = true;
    void execute({ token }).then((res) => {
      const answer = res.data?.confirmEmail;
      if (!answer) return; // top-level error: shown by ErrorNotice
      const next = authOutcome(answer, ['token']);
      setOutcome(next);
      if (next.kind === 'signedIn') {
        session.changed();
        navigate(ACCOUNT_PATH, { replace: true });
      }
    });
  }, [token, execute, session, navigate]);

  const failed = !token || outcome?.kind === 'errors';
  if (!failed && !result.error) return <Loading />;
  const code = confirmErrorCode(outcome);
  return (
    <section className="card auth-card" data-testid="confirm-email-page">
      <h1>{t('confirmEmail.title')}</h1>
      {result.error ? (
        <ErrorNotice error={result.error} />
      ) : (
        <p className="notice error" role="alert" data-testid="confirm-email-error" data-code={code}>
          {userErrorText(t, 'token', code)}
        </p>
      )}
      <p className="switch">
        <Link to="/signup" data-testid="confirm-email-signup">
          {t('confirmEmail.signUpAgain')}
        </Link>
      </p>
      <p className="switch">
        {t('signUp.haveAccount')} <Link to="/login">{t('signUp.logInLink')}</Link>
      </p>
    </section>
  );
}
