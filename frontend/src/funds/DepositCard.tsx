import { QRCodeSVG } from 'qrcode.react';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, type CombinedError } from 'urql';
import { fieldErrors, FORM_FIELD, type FieldErrors } from '../api/errors';
import type { DepositsQuery as DepositsResult } from '../gql/graphql';
import { CopyButton } from '../ui/CopyButton';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { FieldErrorText, FormField } from '../ui/FormField';
import { formatUsdc, parseUsdcInput } from '../ui/usdc';
import { openDeposit, type Deposit } from './deposits';
import { CreateDepositMutation } from './operations';

/**
 * DepositCard is how a customer adds funds: an amount (or an open one)
 * makes a deposit request, shown as a Solana Pay QR code and link with the
 * address and amount to copy by hand; its state follows live as the
 * platform sees and credits the transfer.
 */
export function DepositCard({ terms, deposits, onMade }: { terms: DepositsResult['depositTerms']; deposits: Deposit[]; onMade: (d: Deposit) => void }) {
  const { t, i18n } = useTranslation();
  const [amount, setAmount] = useState('');
  const [open, setOpen] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<CombinedError | undefined>(undefined);
  const [result, create] = useMutation(CreateDepositMutation);
  const current = openDeposit(deposits);
  const lng = i18n.language;

  if (!terms.available) {
    return (
      <section className="card deposit" data-testid="deposit-unavailable">
        <h2>{t('deposit.title')}</h2>
        <p>{t('deposit.unavailable')}</p>
      </section>
    );
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    let value: string | undefined;
    if (!open) {
      const parsed = parseUsdcInput(amount);
      if (!parsed.ok) {
        setErrors({ amount: [parsed.problem === 'TOO_MANY_DECIMALS' ? 'INVALID' : parsed.problem] });
        return;
      }
      value = parsed.value;
    }
    setErrors({});
    const res = await create({ input: value === undefined ? {} : { amount: value } });
    setFailure(res.error);
    const payload = res.data?.createDeposit;
    if (!payload) return;
    if (payload.userErrors.length > 0) {
      setErrors(fieldErrors(payload.userErrors, ['amount']));
      return;
    }
    if (payload.deposit) onMade(payload.deposit);
    setAmount('');
  }

  return (
    <section className="card deposit" aria-labelledby="deposit-title" data-testid="deposit">
      <h2 id="deposit-title">{t('deposit.title')}</h2>
      <p className="muted">{t('deposit.lead', { min: isolate(formatUsdc(terms.minimum, lng)), minutes: Math.round(terms.expiresInSeconds / 60) })}</p>
      <form onSubmit={(e) => void onSubmit(e)} noValidate data-testid="deposit-form" className="deposit-form">
        <FieldErrorText name={FORM_FIELD} errors={errors[FORM_FIELD]} className="form-error" testId="deposit-form-error" />
        {failure && <ErrorNotice error={failure} />}
        {!open && (
          <FormField name="amount" label={t('deposit.amount')} inputMode="decimal" autoComplete="off" dir="ltr" value={amount} onChange={(e) => setAmount(e.target.value)} errors={errors.amount} />
        )}
        <div className="field">
          <label className="checkbox">
            <input type="checkbox" checked={open} onChange={(e) => setOpen(e.target.checked)} data-testid="deposit-open-amount" />
            {t('deposit.openAmount')}
          </label>
        </div>
        <button type="submit" className="button primary" disabled={result.fetching} data-testid="deposit-submit">
          {t('deposit.submit')}
        </button>
      </form>
      {current && <DepositRequest deposit={current} />}
    </section>
  );
}

/** DepositRequest shows how to pay one request and where it stands. */
function DepositRequest({ deposit: d }: { deposit: Deposit }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const lng = i18n.language;
  return (
    <div className="deposit-request" data-testid="deposit-request" data-id={d.id} data-state={d.state} data-reference={d.payment.reference}>
      <p className="deposit-state" role="status" aria-live="polite" data-testid="deposit-state">
        <DepositStateBadge state={d.state} /> {t(`deposit.stateLead.${d.state}`)}
      </p>
      <div className="deposit-pay">
        <a href={d.payment.url} className="deposit-qr" data-testid="deposit-qr" aria-label={t('deposit.qr')}>
          <QRCodeSVG value={d.payment.url} size={208} marginSize={2} title={t('deposit.qr')} />
        </a>
        <dl className="deposit-parts">
          <dt>{t('deposit.sendAmount')}</dt>
          <dd>
            {d.payment.amount ? (
              <>
                <span dir="ltr" className="mono" data-testid="deposit-amount">
                  {t('common.usdc', { amount: isolate(formatUsdc(d.payment.amount, lng)) })}
                </span>{' '}
                <CopyButton text={d.payment.amount} testId="deposit-copy-amount" />
              </>
            ) : (
              <span data-testid="deposit-amount">{t('deposit.anyAmount')}</span>
            )}
          </dd>
          <dt>{t('deposit.address')}</dt>
          <dd>
            <code dir="ltr" className="wrap-anywhere" data-testid="deposit-address">
              {d.payment.recipient}
            </code>{' '}
            <CopyButton text={d.payment.recipient} testId="deposit-copy-address" />
          </dd>
          <dt>{t('deposit.token')}</dt>
          <dd>
            <code dir="ltr" className="wrap-anywhere">
              {d.payment.mint}
            </code>
          </dd>
          <dt>{t('deposit.expires')}</dt>
          <dd>{f.dateTime(d.expiresAt)}</dd>
        </dl>
      </div>
      <p>
        <a href={d.payment.url} className="button" data-testid="deposit-open-wallet">
          {t('deposit.openWallet')}
        </a>
      </p>
      <p className="small muted">{t('deposit.byHand')}</p>
    </div>
  );
}

/** DepositStateBadge names a deposit request's state. */
export function DepositStateBadge({ state }: { state: Deposit['state'] }) {
  const { t } = useTranslation();
  return (
    <span className={`status deposit-${state.toLowerCase()}`} data-state={state}>
      {t(`deposit.state.${state}`)}
    </span>
  );
}
