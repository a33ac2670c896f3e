import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { useMutation } from 'urql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { useFormat } from '../ui/format';
import './account.css';
import { LogOutMutation } from './operations';
import { useSession } from './session';

/** AccountPage shows who is signed in and lets them log out. */
export function AccountPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const navigate = useNavigate();
  const { user, changed } = useSession();
  const [result, logOut] = useMutation(LogOutMutation);

  if (!user) return null; // RequireAuth guards this page

  async function onLogOut() {
    const res = await logOut({});
    if (res.error) return;
    changed();
    navigate('/login', { replace: true });
  }

  return (
    <section className="card account" data-testid="account-page">
      <h1 data-testid="account-title">{t('account.title')}</h1>
      <dl className="facts">
        <dt>{t('account.name')}</dt>
        <dd data-testid="account-name">{user.name}</dd>
        <dt>{t('account.email')}</dt>
        <dd data-testid="account-email" dir="ltr">
          {user.email}
        </dd>
        <dt>{t('account.roles')}</dt>
        <dd data-testid="account-roles">
          {user.roles.length === 0 ? (
            t('account.noRoles')
          ) : (
            <ul className="chips">
              {user.roles.map((role) => (
                <li key={role} className="chip" data-role={role}>
                  {t(`roles.${role}`)}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>{t('account.memberSince')}</dt>
        <dd data-testid="account-member-since">
          <time dateTime={user.createdAt}>{f.date(user.createdAt)}</time>
        </dd>
      </dl>
      {result.error && <ErrorNotice error={result.error} />}
      <button
        type="button"
        className="button"
        onClick={onLogOut}
        disabled={result.fetching}
        data-testid="logout-button"
      >
        {result.fetching ? t('form.working') : t('account.logOut')}
      </button>
    </section>
  );
}
