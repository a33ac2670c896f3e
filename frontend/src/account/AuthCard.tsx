import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { FORM_FIELD } from '../api/errors';
import { ErrorNotice } from '../ui/ErrorNotice';
import { FieldErrorText } from '../ui/FormField';
import './account.css';
import type { AuthForm } from './useAuthForm';

interface AuthCardProps {
  /** testId names the page's test ids: {testId}-page, -form and -submit. */
  testId: string;
  title: string;
  lead: string;
  submitLabel: string;
  form: Pick<AuthForm<Record<string, string>>, 'onSubmit' | 'formErrors' | 'fetching' | 'error'>;
  /** other offers the other form ("No account yet? Sign up"). */
  other: { prompt: string; to: string; label: string };
  /** children are the form's fields. */
  children: ReactNode;
}

/**
 * AuthCard is the frame of the sign-up and log-in pages: title, lead, the
 * form's own and top-level errors, the fields, the submit button, and a link
 * to the other page.
 */
export function AuthCard({ testId, title, lead, submitLabel, form, other, children }: AuthCardProps) {
  const { t } = useTranslation();
  return (
    <section className="card auth-card" data-testid={`${testId}-page`}>
      <h1>{title}</h1>
      <p className="lead">{lead}</p>
      <form onSubmit={form.onSubmit} noValidate data-testid={`${testId}-form`}>
        <FieldErrorText name={FORM_FIELD} errors={form.formErrors} className="form-error" testId="form-error" />
        {form.error && <ErrorNotice error={form.error} />}
        {children}
        <button type="submit" className="button primary" disabled={form.fetching} data-testid={`${testId}-submit`}>
          {form.fetching ? t('form.working') : submitLabel}
        </button>
      </form>
      <p className="switch">
        {other.prompt} <Link to={other.to}>{other.label}</Link>
      </p>
    </section>
  );
}
