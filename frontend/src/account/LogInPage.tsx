import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { useMutation } from 'urql';
import { fieldErrors, FORM_FIELD, type FieldErrors } from '../api/errors';
import type { Role } from '../gql/graphql';
import { ErrorNotice } from '../shell/ErrorNotice';
import { FieldErrorText, FormField } from './FormField';
import { landingPath } from './landing';
import { LogInMutation } from './operations';
import { useSession } from './session';

const FIELDS = ['email', 'password'] as const;

// Only same-app paths are followed after log-in, never a full URL. Without
// one, a provider lands on their Overview and everyone else on the account.
function returnPath(state: unknown, roles: readonly Role[]): string {
  const from = (state as { from?: unknown } | null)?.from;
  if (typeof from === 'string' && from.startsWith('/') && !from.startsWith('//')) return from;
  return landingPath(roles);
}

/** LogInPage starts a session and returns the user where they were going. */
export function LogInPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const session = useSession();
  const [result, logIn] = useMutation(LogInMutation);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [values, setValues] = useState({ email: '', password: '' });

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const res = await logIn({ input: values });
    const payload = res.data?.logIn;
    if (!payload) return; // top-level error: shown by ErrorNotice below
    if (payload.userErrors.length > 0 || !payload.user) {
      setErrors(fieldErrors(payload.userErrors, FIELDS));
      return;
    }
    setErrors({});
    session.changed();
    navigate(returnPath(location.state, payload.user.roles), { replace: true });
  }

  const formErrors = errors[FORM_FIELD] ?? [];

  return (
    <section className="card auth-card" data-testid="login-page">
      <h1>{t('logIn.title')}</h1>
      <p className="lead">{t('logIn.lead')}</p>
      <form onSubmit={onSubmit} noValidate data-testid="login-form">
        <FieldErrorText name={FORM_FIELD} errors={formErrors} className="form-error" testId="form-error" />
        {result.error && <ErrorNotice error={result.error} />}
        <FormField
          name="email"
          type="email"
          label={t('form.email')}
          autoComplete="username"
          value={values.email}
          onChange={(e) => setValues({ ...values, email: e.target.value })}
          errors={errors.email}
        />
        <FormField
          name="password"
          type="password"
          label={t('form.password')}
          autoComplete="current-password"
          value={values.password}
          onChange={(e) => setValues({ ...values, password: e.target.value })}
          errors={errors.password}
        />
        <button type="submit" className="button primary" disabled={result.fetching} data-testid="login-submit">
          {result.fetching ? t('form.working') : t('logIn.submit')}
        </button>
      </form>
      <p className="switch">
        {t('logIn.noAccount')} <Link to="/signup">{t('logIn.signUpLink')}</Link>
      </p>
    </section>
  );
}
