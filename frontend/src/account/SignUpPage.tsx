import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { apiLanguage, currentLanguage } from '../i18n';
import { FormField } from '../ui/FormField';
import { AuthCard } from './AuthCard';
import { ACCOUNT_PATH } from './landing';
import { SignUpMutation } from './operations';
import { useAuthForm } from './useAuthForm';

/**
 * SignUpPage starts a sign-up. The server mails the address a link (see
 * ConfirmEmailPage) and answers the same whether or not it has an account,
 * so the page then says the same thing in both cases: check your email.
 */
export function SignUpPage() {
  const { t } = useTranslation();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const form = useAuthForm({
    mutation: SignUpMutation,
    initial: { name: '', email: '', password: '' },
    // The confirmation email is written in the page's language, and the
    // account starts in it.
    send: (values) => ({ ...values, language: apiLanguage(currentLanguage()) }),
    payload: (data) => data.signUp,
    destination: () => ACCOUNT_PATH,
    onSent: (values) => setSentTo((values.email ?? '').trim()),
  });

  if (sentTo !== null) {
    return (
      <section className="card auth-card" data-testid="signup-sent" role="status">
        <h1>{t('signUp.sentTitle')}</h1>
        <p className="lead" data-testid="signup-sent-body">
          {t('signUp.sentBody', { email: sentTo })}
        </p>
        <p>{t('signUp.sentHint')}</p>
        <p className="switch">
          {t('signUp.haveAccount')} <Link to="/login">{t('signUp.logInLink')}</Link>
        </p>
      </section>
    );
  }

  return (
    <AuthCard
      testId="signup"
      title={t('signUp.title')}
      lead={t('signUp.lead')}
      submitLabel={t('signUp.submit')}
      form={form}
      other={{ prompt: t('signUp.haveAccount'), to: '/login', label: t('signUp.logInLink') }}
    >
      <FormField label={t('form.name')} autoComplete="name" {...form.field('name')} />
      <FormField type="email" label={t('form.email')} autoComplete="email" {...form.field('email')} />
      <FormField
        type="password"
        label={t('form.password')}
        hint={t('form.passwordHint')}
        autoComplete="new-password"
        {...form.field('password')}
      />
    </AuthCard>
  );
}
