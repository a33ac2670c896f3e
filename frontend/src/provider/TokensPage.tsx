import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery } from 'urql';
import { fieldErrors, FORM_FIELD, type FieldErrors } from '../api/errors';
import type { AgentTokenFieldsFragment } from '../gql/graphql';
import { TierBadge } from '../ui/Badge';
import { CopyButton } from '../ui/CopyButton';
import { DataTable, type DataColumn } from '../ui/DataTable';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { FieldErrorText, FormField } from '../ui/FormField';
import { Loading } from '../ui/Loading';
import { CreateAgentTokenMutation, MyProviderTokensQuery, RevokeAgentTokenMutation } from './operations';
import './provider.css';
import { ForbiddenPage } from '../shell/ForbiddenPage';

/**
 * TOKENS_CONTEXT: an empty token list names no typename in urql's document
 * cache, so the page says it depends on AgentToken and a new token refetches
 * the list. A constant, so the query is not re-run on every render.
 */
const TOKENS_CONTEXT = { additionalTypenames: ['AgentToken'] };

/** NewToken is what createAgentToken returned, shown once. */
interface NewToken {
  name: string;
  secret: string;
  installCommand: string | null;
}

/**
 * TokensPage is where a provider manages the credentials of gpunex-agent:
 * the list (name, prefix, created, last used, machines, state; a card per
 * token on a phone), a form that creates a
 * token and shows its secret once with the install command, and revocation
 * after a confirmation.
 */
export function TokensPage() {
  const { t } = useTranslation();
  const [{ data, fetching, error }, reexecute] = useQuery({
    query: MyProviderTokensQuery,
    requestPolicy: 'cache-and-network',
    context: TOKENS_CONTEXT,
  });
  const [created, setCreated] = useState<NewToken | null>(null);

  if (fetching && !data) return <Loading />;
  if (error && !data) return <ErrorNotice error={error} onRetry={() => reexecute({ requestPolicy: 'network-only' })} />;
  const provider = data?.myProvider;
  if (!provider) return <ForbiddenPage role="PROVIDER" />;

  return (
    <section className="page" data-testid="tokens-page">
      <header className="page-head">
        <h1>{t('tokens.title')}</h1>
        <p className="status-line">
          <span>{provider.name}</span>
          <TierBadge tier={provider.tier} testId="tokens-tier" />
        </p>
        <p className="lead">{t('tokens.lead')}</p>
      </header>
      {created && <NewTokenPanel token={created} onDone={() => setCreated(null)} />}
      <CreateTokenForm onCreated={setCreated} />
      <TokenList tokens={provider.agentTokens} />
    </section>
  );
}

function CreateTokenForm({ onCreated }: { onCreated: (token: NewToken) => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [result, create] = useMutation(CreateAgentTokenMutation);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const res = await create({ name });
    const payload = res.data?.createAgentToken;
    if (!payload) return; // top-level error: ErrorNotice below
    setErrors(fieldErrors(payload.userErrors, ['name']));
    if (payload.userErrors.length > 0 || !payload.token) return;
    onCreated({ name: payload.agentToken?.name ?? name, secret: payload.token, installCommand: payload.installCommand });
    setName('');
  }

  const formErrors = errors[FORM_FIELD] ?? [];
  return (
    <form className="card token-form" onSubmit={onSubmit} noValidate data-testid="token-create-form">
      <h2>{t('tokens.create')}</h2>
      <FieldErrorText name={FORM_FIELD} errors={formErrors} className="form-error" testId="form-error" />
      {result.error && <ErrorNotice error={result.error} />}
      <div className="inline-form">
        <FormField
          name="name"
          label={t('tokens.name')}
          hint={t('tokens.nameHint')}
          value={name}
          onChange={(e) => setName(e.target.value)}
          errors={errors.name}
        />
        <button type="submit" className="button primary" disabled={result.fetching} data-testid="token-create">
          {result.fetching ? t('form.working') : t('tokens.createButton')}
        </button>
      </div>
    </form>
  );
}

/**
 * TOKEN_FILE_TAIL ends the install command on a host without a terminal:
 * the installer reads the token from the file (installer.TokenFileCommand
 * on the server builds the same command). Shell syntax, not translated.
 */
const TOKEN_FILE_TAIL = 'sudo sh -s -- --token-file /root/gpunex-token';

/**
 * NewTokenPanel shows a token's secret the one time the server returns it,
 * with the command that installs the agent. The command never holds the
 * token (a command line is visible to every user of the host and kept in
 * shell history): the installer asks for it, or reads it from a file.
 */
function NewTokenPanel({ token, onDone }: { token: NewToken; onDone: () => void }) {
  const { t } = useTranslation();
  return (
    <section className="card secret-panel" role="region" aria-label={t('tokens.secretTitle', { name: isolate(token.name) })} data-testid="token-secret-panel">
      <h2>{t('tokens.secretTitle', { name: isolate(token.name) })}</h2>
      <p className="notice warning">{t('tokens.secretOnce')}</p>
      <div className="copy-row">
        <code className="secret" dir="ltr" data-testid="token-secret">
          {token.secret}
        </code>
        <CopyButton text={token.secret} testId="token-copy" />
      </div>
      {token.installCommand && (
        <>
          <h3>{t('tokens.installTitle')}</h3>
          <p className="muted">{t('tokens.installLead')}</p>
          <div className="copy-row">
            <pre className="command" dir="ltr">
              <code data-testid="token-install-command">{token.installCommand}</code>
            </pre>
            <CopyButton text={token.installCommand} testId="token-install-copy" />
          </div>
          <p data-testid="token-install-prompt">{t('tokens.installPrompt')}</p>
          <p className="muted" data-testid="token-install-file">
            {t('tokens.installNoTerminal')}{' '}
            <code dir="ltr">{TOKEN_FILE_TAIL}</code>
          </p>
          <p className="muted">{t('tokens.installCheck')}</p>
        </>
      )}
      <button type="button" className="button" onClick={onDone} data-testid="token-secret-done">
        {t('tokens.secretDone')}
      </button>
    </section>
  );
}

function TokenList({ tokens }: { tokens: readonly AgentTokenFieldsFragment[] }) {
  const { t } = useTranslation();
  const f = useFormat();
  const columns: DataColumn<AgentTokenFieldsFragment>[] = [
    { key: 'name', header: t('tokens.name'), primary: true, cell: (token) => <span dir="auto">{token.name}</span> },
    {
      key: 'prefix',
      header: t('tokens.prefix'),
      cell: (token) => (
        <code dir="ltr" data-testid="token-prefix">
          {token.prefix}…
        </code>
      ),
    },
    { key: 'created', header: t('tokens.created'), cell: (token) => <time dateTime={token.createdAt}>{f.dateTime(token.createdAt)}</time> },
    {
      key: 'lastUsed',
      header: t('tokens.lastUsed'),
      cellProps: (token) => ({ 'data-testid': 'token-last-used', 'data-at': token.lastUsedAt ?? '' }),
      cell: (token) =>
        token.lastUsedAt ? (
          <time dateTime={token.lastUsedAt} title={t('tokens.lastUsedHint')}>
            {f.dateTime(token.lastUsedAt)}
          </time>
        ) : (
          <span className="muted">{t('tokens.never')}</span>
        ),
    },
    {
      key: 'machines',
      header: t('tokens.machines'),
      align: 'end',
      cellProps: (token) => ({ 'data-testid': 'token-machines', 'data-count': token.machineCount }),
      cell: (token) => f.number(token.machineCount),
    },
    {
      key: 'state',
      header: t('tokens.state'),
      cellProps: () => ({ 'data-testid': 'token-state' }),
      cell: (token) =>
        token.revokedAt ? (
          <span className="status status-rejected">{t('tokens.revokedAt', { when: f.dateTime(token.revokedAt) })}</span>
        ) : (
          <span className="status status-approved">{t('tokens.active')}</span>
        ),
    },
    { key: 'actions', header: t('common.actions'), actions: true, cell: (token) => <RevokeToken token={token} /> },
  ];
  return (
    <section className="card">
      <h2>{t('tokens.listTitle')}</h2>
      <DataTable
        caption={t('tokens.listTitle')}
        columns={columns}
        rows={tokens}
        rowKey={(token) => token.id}
        rowProps={(token) => ({ 'data-testid': 'token-row', 'data-id': token.id, 'data-name': token.name, 'data-revoked': Boolean(token.revokedAt) })}
        rowClassName={(token) => (token.revokedAt ? 'revoked' : undefined)}
        className="tokens"
        testId="token-table"
        empty={
          <p className="muted" data-testid="tokens-empty">
            {t('tokens.empty')}
          </p>
        }
      />
    </section>
  );
}

/** RevokeToken revokes an active token after a confirmation; a revoked one has nothing to do. */
function RevokeToken({ token }: { token: AgentTokenFieldsFragment }) {
  const { t } = useTranslation();
  const [confirming, setConfirming] = useState(false);
  const [result, revoke] = useMutation(RevokeAgentTokenMutation);
  if (token.revokedAt) return null;

  async function onRevoke() {
    const res = await revoke({ id: token.id });
    if (!res.error) setConfirming(false);
  }

  return (
    <>
      {result.error && <ErrorNotice error={result.error} />}
      {confirming ? (
        <span className="confirm" role="group" aria-label={t('tokens.confirmRevoke', { name: isolate(token.name) })}>
          <span>{t('tokens.confirmRevoke', { name: isolate(token.name) })}</span>
          <button type="button" className="button danger small" onClick={() => void onRevoke()} disabled={result.fetching} data-testid="token-revoke-confirm">
            {t('tokens.revokeYes')}
          </button>
          <button type="button" className="button small" onClick={() => setConfirming(false)} data-testid="token-revoke-cancel">
            {t('common.cancel')}
          </button>
        </span>
      ) : (
        <button type="button" className="button danger-outline small" onClick={() => setConfirming(true)} data-testid="token-revoke">
          {t('tokens.revoke')}
        </button>
      )}
    </>
  );
}
