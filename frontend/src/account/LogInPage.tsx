import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router-dom';
import type { Role } from '../gql/graphql';
import { FormField } from '../ui/FormField';
import { AuthCard } from './AuthCard';
import { landingPath } from './landing';
import { LogInMutation } from './operations';
import { useAuthForm } from './useAuthForm';

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
  const location = useLocation();
  const form = useAuthForm({
    mutation: LogInMutation,
    initial: { email: '', password: '' },
    payload: (data) => data.logIn,
    destination: (user) => returnPath(location.state, user.roles),
  });

  return (
    <AuthCard
      testId="login"
      title={t('logIn.title')}
      lead={t('logIn.lead')}
      submitLabel={t('logIn.submit')}
      form={form}
      other={{ prompt: t('logIn.noAccount'), to: '/signup', label: t('logIn.signUpLink') }}
    >
      <FormField type="email" label={t('form.email')} autoComplete="username" {...form.field('email')} />
      <FormField type="password" label={t('form.password')} autoComplete="current-password" {...form.field('password')} />
    </AuthCard>
  );
}
