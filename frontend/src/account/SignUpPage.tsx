import { useTranslation } from 'react-i18next';
import { FormField } from '../ui/FormField';
import { AuthCard } from './AuthCard';
import { ACCOUNT_PATH } from './landing';
import { SignUpMutation } from './operations';
import { useAuthForm } from './useAuthForm';

/** SignUpPage creates an account; the server signs the new user in. */
export function SignUpPage() {
  const { t } = useTranslation();
  const form = useAuthForm({
    mutation: SignUpMutation,
    initial: { name: '', email: '', password: '' },
    payload: (data) => data.signUp,
    destination: () => ACCOUNT_PATH,
  });

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
