import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { useMutation } from 'urql';
import { fieldErrors, FORM_FIELD, type FieldErrors } from '../api/errors';
import { ErrorNotice } from '../shell/ErrorNotice';
import { FieldErrorText, FormField } from './FormField';
import { SignUpMutation } from './operations';
import { useSession } from './session';

const FIELDS = ['name', 'email', 'password'] as const;

/** SignUpPage creates an account; the server signs the new user in. */
export function SignUpPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const session = useSession();
  const [result, signUp] = useMutation(SignUpMutation);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [values, setValues] = useState({ name: '', email: '', password: '' });

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const res = await signUp({ input: values });
    const payload = res.data?.signUp;
    if (!payload) return; // top-level error: shown by ErrorNotice below
    if (payload.userErrors.length > 0 || !payload.user) {
      setErrors(fieldErrors(payload.userErrors, FIELDS));
      return;
    }
    setErrors({});
    session.changed();
    navigate('/account', { replace: true });
  }

  const formErrors = errors[FORM_FIELD] ?? [];

  return (
    <section className="card auth-card" data-testid="signup-page">
      <h1>{t('signUp.title')}</h1>
      <p className="lead">{t('signUp.lead')}</p>
      <form onSubmit={onSubmit} noValidate data-testid="signup-form">
        <FieldErrorText name={FORM_FIELD} errors={formErrors} className="form-error" testId="form-error" />
        {result.error && <ErrorNotice error={result.error} />}
        <FormField
          name="name"
          label={t('form.name')}
          autoComplete="name"
          value={values.name}
          onChange={(e) => setValues({ ...values, name: e.target.value })}
          errors={errors.name}
        />
        <FormField
          name="email"
          type="email"
          label={t('form.email')}
          autoComplete="email"
          value={values.email}
          onChange={(e) => setValues({ ...values, email: e.target.value })}
          errors={errors.email}
        />
        <FormField
          name="password"
          type="password"
          label={t('form.password')}
          hint={t('form.passwordHint')}
          autoComplete="new-password"
          value={values.password}
          onChange={(e) => setValues({ ...values, password: e.target.value })}
          errors={errors.password}
        />
        <button type="submit" className="button primary" disabled={result.fetching} data-testid="signup-submit">
          {result.fetching ? t('form.working') : t('signUp.submit')}
        </button>
      </form>
      <p className="switch">
        {t('signUp.haveAccount')} <Link to="/login">{t('signUp.logInLink')}</Link>
      </p>
    </section>
  );
}
