import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { fieldErrors, FORM_FIELD, type FieldErrors } from '../api/errors';
import type { PayoutFieldsFragment, UserErrorCode } from '../gql/graphql';
import { bankFileName, PAYOUT_STATES, settleable } from '../payouts/payout';
import { PayoutsTable } from '../payouts/PayoutsTable';
import { downloadText } from '../ui/download';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate } from '../ui/format';
import { FieldErrorText, FormField } from '../ui/FormField';
import { Loading } from '../ui/Loading';
import { FilterTabs } from '../ui/FilterTabs';
import { formatUsdc, parseUsdcInput } from '../ui/usdc';
import './admin.css';
import { AdminPayoutsQuery, CreateBankPayoutFileMutation, CreditFundsMutation, MarkPayoutFailedMutation, MarkPayoutPaidMutation } from './operations';

/** PAGE_SIZE is how many payouts the page lists, newest first. */
const PAGE_SIZE = 100;

/** PAYOUTS_CONTEXT: an empty list names no Payout typename; a settled payout or a bank file reads the list again. */
const PAYOUTS_CONTEXT = { additionalTypenames: ['Payout'] };

const TABS = ['ALL', ...PAYOUT_STATES] as const;
type Tab = (typeof TABS)[number];

function tabOf(value: string | null): Tab {
  return (TABS as readonly string[]).includes(value ?? '') ? (value as Tab) : 'ALL';
}

/**
 * PayoutsAdminPage is the admins' payouts: every provider's payouts by
 * state (tabs in the URL), a bank or manual payout marked paid with its
 * reference or failed with the reason, the bank file of the pending bank
 * payouts (downloaded as XML), and a form crediting a customer's funds.
 */
export function PayoutsAdminPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tab = tabOf(params.get('state'));
  const state = tab === 'ALL' ? null : tab;
  const [{ data, error, fetching, operation }, reexecute] = useQuery({
    query: AdminPayoutsQuery,
    variables: { state, first: PAGE_SIZE },
    requestPolicy: 'cache-and-network',
    context: PAYOUTS_CONTEXT,
  });
  // urql keeps the last tab's answer while the new tab's loads: its rows
  // are not this tab's, so the table waits for the tab's own answer.
  const rowsOfTab = data && (operation?.variables.state ?? null) === state ? data.payouts : undefined;
  const refresh = () => reexecute({ requestPolicy: 'network-only' });

  return (
    <section className="page admin-payouts" data-testid="admin-payouts-page">
      <header className="page-head">
        <h1>{t('admin.payouts.title')}</h1>
        <p className="lead">{t('admin.payouts.lead')}</p>
      </header>
      <BankFileCard onDone={refresh} />
      <section className="card" aria-labelledby="admin-payouts-list">
        <h2 id="admin-payouts-list">{t('admin.payouts.list')}</h2>
        <FilterTabs
          label={t('admin.payouts.filter')}
          tabs={TABS}
          current={tab}
          onSelect={(s) => setParams(s === 'ALL' ? {} : { state: s })}
          tabLabel={(s) => {
            const label = s === 'ALL' ? t('admin.payouts.all') : t(`payoutState.${s}`);
            const total = s === 'ALL' ? undefined : data?.payoutTotals.find((x) => x.state === s);
            return total ? t('admin.payouts.tabCount', { state: label, count: total.count }) : label;
          }}
          testId="payouts-tab"
        />
        {data && <PayoutTotals totals={data.payoutTotals} />}
        {error && <ErrorNotice error={error} onRetry={refresh} />}
        {!rowsOfTab ? (
          fetching && <Loading />
        ) : rowsOfTab.length === 0 ? (
          <p data-testid="admin-payouts-none">{t('admin.payouts.none')}</p>
        ) : tab === 'ALL' ? (
          <GroupedPayouts payouts={rowsOfTab} />
        ) : (
          <PayoutsTable
            payouts={rowsOfTab}
            caption={t('admin.payouts.list')}
            testId="admin-payouts-table"
            actions={settleActions}
          />
        )}
      </section>
      <CreditFundsCard />
    </section>
  );
}

/** settleActions are a row's settle forms, for the payouts an admin settles by hand. */
function settleActions(p: PayoutFieldsFragment) {
  return settleable(p) ? <SettleForms payout={p} /> : null;
}

/**
 * GroupedPayouts is the All tab: the payouts grouped by state in the order
 * a payout goes through them, what waits for an admin first, each group
 * headed by its state and count.
 */
function GroupedPayouts({ payouts }: { payouts: readonly PayoutFieldsFragment[] }) {
  const { t } = useTranslation();
  return (
    <>
      {PAYOUT_STATES.map((state) => {
        const rows = payouts.filter((p) => p.state === state);
        if (rows.length === 0) return null;
        const label = t(`payoutState.${state}`);
        return (
          <section key={state} className="payout-group" aria-labelledby={`payout-group-${state}`} data-testid="payout-group" data-state={state}>
            <h3 id={`payout-group-${state}`}>{t('admin.payouts.tabCount', { state: label, count: rows.length })}</h3>
            <PayoutsTable payouts={rows} caption={label} testId="admin-payouts-table" actions={settleActions} />
          </section>
        );
      })}
    </>
  );
}

/** BankFileCard makes the bank file of every pending bank payout and downloads it. */
function BankFileCard({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [result, create] = useMutation(CreateBankPayoutFileMutation);
  const [errors, setErrors] = useState<UserErrorCode[]>([]);
  const [failure, setFailure] = useState<CombinedError | undefined>(undefined);
  const [made, setMade] = useState<number | null>(null);

  async function onClick() {
    setErrors([]);
    setMade(null);
    const res = await create({});
    setFailure(res.error);
    const payload = res.data?.createBankPayoutFile;
    if (!payload) return;
    if (payload.userErrors.length > 0 || !payload.file) {
      setErrors(payload.userErrors.map((e) => e.code));
      return;
    }
    downloadText(payload.file, bankFileName(Date.now()), 'application/xml');
    setMade(payload.payouts.length);
    onDone();
  }

  return (
    <section className="card" aria-labelledby="admin-bank-file" data-testid="admin-bank-file">
      <h2 id="admin-bank-file">{t('admin.payouts.bankFile.title')}</h2>
      <p className="muted">{t('admin.payouts.bankFile.lead')}</p>
      <button type="button" className="button primary" onClick={() => void onClick()} disabled={result.fetching} data-testid="bank-file">
        {t('admin.payouts.bankFile.button')}
      </button>
      <FieldErrorText name="bankFile" errors={errors} className="form-error" testId="bank-file-error" />
      {failure && <ErrorNotice error={failure} />}
      {made !== null && (
        <p className="notice success" role="status" data-testid="bank-file-made">
          {t('admin.payouts.bankFile.made', { count: made })}
        </p>
      )}
    </section>
  );
}

/** SettleForms mark one bank or manual payout paid (with the payment's reference) or failed (with why). */
function SettleForms({ payout }: { payout: PayoutFieldsFragment }) {
  const { t } = useTranslation();
  return (
    <details className="settle" data-testid="settle">
      <summary>{t('admin.payouts.settle.open')}</summary>
      <SettleForm payout={payout} outcome="paid" />
      <SettleForm payout={payout} outcome="failed" />
    </details>
  );
}

function SettleForm({ payout, outcome }: { payout: PayoutFieldsFragment; outcome: 'paid' | 'failed' }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<CombinedError | undefined>(undefined);
  const [paidResult, markPaid] = useMutation(MarkPayoutPaidMutation);
  const [failedResult, markFailed] = useMutation(MarkPayoutFailedMutation);
  // The server names the text input.reference when paid, input.reason when
  // failed; the field's own name keeps its texts apart from other forms'.
  const field = outcome === 'paid' ? 'paidReference' : 'failureReason';

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    const input = { id: payout.id, reference: text.trim() };
    const res = outcome === 'paid' ? await markPaid({ input }) : await markFailed({ input });
    setFailure(res.error);
    const payload = res.data && ('markPayoutPaid' in res.data ? res.data.markPayoutPaid : res.data.markPayoutFailed);
    if (payload && payload.userErrors.length > 0) {
      const byField = fieldErrors(payload.userErrors, ['reference', 'reason']);
      const own = [...(byField.reference ?? []), ...(byField.reason ?? [])];
      setErrors({ ...(own.length > 0 && { [field]: own }), ...(byField[FORM_FIELD] && { settle: byField[FORM_FIELD] }) });
    }
  }

  const fetching = paidResult.fetching || failedResult.fetching;
  return (
    <form className="settle-form" onSubmit={(e) => void onSubmit(e)} noValidate data-testid={`settle-${outcome}`}>
      <FormField
        name={field}
        label={t(`admin.payouts.settle.${outcome}Label`)}
        autoComplete="off"
        value={text}
        onChange={(e) => setText(e.target.value)}
        errors={errors[field]}
      />
      <FieldErrorText name="settle" errors={errors.settle} className="form-error" testId={`settle-${outcome}-error`} />
      {failure && <ErrorNotice error={failure} />}
      <button type="submit" className={outcome === 'paid' ? 'button primary small' : 'button danger small'} disabled={fetching} data-testid={`settle-${outcome}-submit`}>
        {t(`admin.payouts.settle.${outcome}`)}
      </button>
    </form>
  );
}

/**
 * CreditFundsCard credits a customer's prepaid balance with a bank transfer:
 * the customer by email, the transfer's reference and why.
 */
function CreditFundsCard() {
  const { t, i18n } = useTranslation();
  const [email, setEmail] = useState('');
  const [reason, setReason] = useState('');
  const [amount, setAmount] = useState('');
  const [reference, setReference] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<CombinedError | undefined>(undefined);
  const [balance, setBalance] = useState<string | null>(null);
  const [result, credit] = useMutation(CreditFundsMutation);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setBalance(null);
    const parsed = parseUsdcInput(amount);
    const local: FieldErrors = {};
    if (email.trim() === '') local.email = ['REQUIRED'];
    if (reason.trim() === '') local.reason = ['REQUIRED'];
    if (!parsed.ok) local.amount = [parsed.problem === 'TOO_MANY_DECIMALS' ? 'INVALID' : parsed.problem];
    setErrors(local);
    if (!parsed.ok || Object.keys(local).length > 0) return;
    const res = await credit({ input: { email: email.trim(), amount: parsed.value, reference: reference.trim(), reason: reason.trim() } });
    setFailure(res.error);
    const payload = res.data?.creditFunds;
    if (!payload) return;
    if (payload.userErrors.length > 0) {
      setErrors(fieldErrors(payload.userErrors, ['email', 'amount', 'reference', 'reason']));
      return;
    }
    setBalance(payload.balance ?? null);
    setAmount('');
    setReference('');
    setReason('');
  }

  return (
    <section className="card narrow-card" aria-labelledby="admin-credit" data-testid="admin-credit-funds">
      <h2 id="admin-credit">{t('admin.payouts.credit.title')}</h2>
      <p className="muted">{t('admin.payouts.credit.lead')}</p>
      <form onSubmit={(e) => void onSubmit(e)} noValidate data-testid="credit-form">
        <FieldErrorText name={FORM_FIELD} errors={errors[FORM_FIELD]} className="form-error" testId="credit-form-error" />
        {failure && <ErrorNotice error={failure} />}
        <FormField name="email" type="email" label={t('admin.payouts.credit.email')} hint={t('admin.payouts.credit.emailHint')} autoComplete="off" dir="ltr" value={email} onChange={(e) => setEmail(e.target.value)} errors={errors.email} />
        <FormField name="amount" label={t('admin.payouts.credit.amount')} inputMode="decimal" autoComplete="off" dir="ltr" value={amount} onChange={(e) => setAmount(e.target.value)} errors={errors.amount} />
        <FormField name="reference" label={t('admin.payouts.credit.reference')} hint={t('admin.payouts.credit.referenceHint')} autoComplete="off" dir="ltr" value={reference} onChange={(e) => setReference(e.target.value)} errors={errors.reference} />
        <FormField name="reason" label={t('admin.payouts.credit.reason')} hint={t('admin.payouts.credit.reasonHint')} autoComplete="off" value={reason} onChange={(e) => setReason(e.target.value)} errors={errors.reason} />
        <button type="submit" className="button primary" disabled={result.fetching} data-testid="credit-submit">
          {t('admin.payouts.credit.submit')}
        </button>
      </form>
      {balance !== null && (
        <p className="notice success" role="status" data-testid="credit-done">
          {t('admin.payouts.credit.done', { balance: isolate(formatUsdc(balance, i18n.language)) })}
        </p>
      )}
    </section>
  );
}

/** PayoutTotals is every state's count and amount, all providers together. */
function PayoutTotals({ totals }: { totals: readonly { state: PayoutFieldsFragment['state']; count: number; amount: string }[] }) {
  const { t, i18n } = useTranslation();
  return (
    <dl className="payout-totals" data-testid="payout-totals">
      {totals.map((x) => (
        <div key={x.state} className="payout-total" data-testid="payout-total" data-state={x.state} data-count={x.count} data-amount={x.amount}>
          <dt>{t(`payoutState.${x.state}`)}</dt>
          <dd>{t('admin.payouts.total', { count: x.count, amount: isolate(formatUsdc(x.amount, i18n.language)) })}</dd>
        </div>
      ))}
    </dl>
  );
}
