import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { useSession } from '../account/session';
import { fieldErrors, FORM_FIELD, type FieldErrors } from '../api/errors';
import type { PayoutMethodFieldsFragment, ProviderPayoutsQuery as ProviderPayoutsResult } from '../gql/graphql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { ChoiceField, FieldErrorText, FormField } from '../ui/FormField';
import { Loading } from '../ui/Loading';
import { TimeSeriesChart } from '../ui/TimeSeriesChart';
import { formatChartUsdc, formatUsdc } from '../ui/usdc';
import { useNow } from '../ui/useNow';
import { ProviderPayoutsQuery, RequestPayoutMutation, SetPayoutMethodMutation } from './operations';
import { destinationOf, METHOD_FIELDS, methodInput, nextPayoutNotes, PAYOUT_SCHEDULES, weeksChart, type Destination, type MethodDraft } from './payout';
import './payouts.css';
import { PayoutsTable } from './PayoutsTable';
import { ForbiddenPage } from '../shell/ForbiddenPage';

/**
 * PAYOUTS_CONTEXT: a provider without payouts names no Payout typename in
 * urql's document cache; the query says it depends on them (and on the
 * method), so setPayoutMethod's answer reads it again, next payout included.
 */
const PAYOUTS_CONTEXT = { additionalTypenames: ['Payout', 'PayoutMethod'] };

type Provider = NonNullable<ProviderPayoutsResult['myProvider']>;

/**
 * PayoutsPage is the provider's Payouts tab: where and how often it is
 * paid (with a form to change it, the password asked again), the balance
 * and the next payout in plain words, what was paid each week as a chart,
 * and the payouts made.
 */
export function PayoutsPage() {
  const { user } = useSession();
  if (!user?.roles.includes('PROVIDER')) return <ForbiddenPage role="PROVIDER" />;
  return <ProviderPayouts />;
}

function ProviderPayouts() {
  const { t } = useTranslation();
  const [{ data, error }, reexecute] = useQuery({ query: ProviderPayoutsQuery, requestPolicy: 'cache-and-network', context: PAYOUTS_CONTEXT });
  const provider = data?.myProvider;
  const refresh = () => reexecute({ requestPolicy: 'network-only' });

  if (data === undefined && error) return <ErrorNotice error={error} onRetry={refresh} />;
  if (data === undefined) return <Loading />;
  if (!provider) return <ForbiddenPage role="PROVIDER" />;

  return (
    <section className="page payouts" data-testid="payouts-page">
      <header className="page-head">
        <h1>{t('payouts.title')}</h1>
        <p className="lead">{t('payouts.lead')}</p>
      </header>
      {error && <ErrorNotice error={error} />}
      <div className="two-columns">
        <MethodCard method={provider.payoutMethod ?? null} onSaved={refresh} />
        <NextPayoutCard provider={provider} onPaid={refresh} />
      </div>
      <WeeksCard weeks={provider.payoutWeeks} />
      <section className="card" aria-labelledby="payouts-history" data-testid="payouts-history">
        <h2 id="payouts-history">{t('payouts.history.title')}</h2>
        {provider.payouts.length === 0 ? (
          <p data-testid="payouts-none">{t('payouts.history.none')}</p>
        ) : (
          <PayoutsTable payouts={provider.payouts} caption={t('payouts.history.title')} testId="payouts-table" />
        )}
      </section>
    </section>
  );
}

/** WeeksCard charts what was paid each of the last twelve weeks, as bars, with their total. */
function WeeksCard({ weeks }: { weeks: Provider['payoutWeeks'] }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const chart = useMemo(() => weeksChart(weeks), [weeks]);
  const series = useMemo(() => [{ label: t('payouts.weeks.paid'), values: chart.values, bars: true }], [chart, t]);
  return (
    <section className="card" aria-labelledby="payouts-weeks" data-testid="payouts-weeks" data-total={chart.total} data-count={chart.count} data-this-week={weeks.at(-1)?.paid ?? '0.000000'}>
      <h2 id="payouts-weeks">{t('payouts.weeks.title')}</h2>
      <p data-testid="payouts-weeks-total">
        {chart.count === 0 ? t('payouts.weeks.none', { n: weeks.length }) : t('payouts.weeks.total', { n: chart.count, weeks: weeks.length, amount: isolate(formatUsdc(chart.total, lng)) })}
      </p>
      {chart.count > 0 && (
        <TimeSeriesChart
          title={t('payouts.weeks.chart')}
          xs={chart.xs}
          series={series}
          x={{ label: t('payouts.weeks.week'), time: true, atData: true }}
          y={{ label: t('payouts.weeks.usdc'), format: (v) => formatChartUsdc(v, lng) }}
          height={200}
          testId="payouts-weeks-chart"
        />
      )}
    </section>
  );
}

/** NextPayoutCard is the available balance and when it is paid, or why not yet, and a way to be paid it now. */
function NextPayoutCard({ provider, onPaid }: { provider: Provider; onPaid: () => void }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const f = useFormat();
  const now = useNow(60_000);
  const next = provider.nextPayout;
  return (
    <section className="card next-payout" aria-labelledby="payouts-next" data-testid="next-payout" data-due={next?.dueAt ?? ''} data-held-until={next?.heldUntil ?? ''} data-threshold-met={next?.thresholdMet ?? ''}>
      <h2 id="payouts-next">{t('payouts.next.title')}</h2>
      <p className="balance-figure" data-testid="payouts-available" data-amount={provider.earnings.availableBalance}>
        {t('common.usdc', { amount: isolate(formatUsdc(provider.earnings.availableBalance, lng)) })}
      </p>
      <p className="muted small">{t('payouts.next.available')}</p>
      {!next ? (
        <p className="notice info" data-testid="next-payout-no-method">
          {t('payouts.next.noMethod')}
        </p>
      ) : (
        nextPayoutNotes(next, now).map((note) => {
          switch (note.kind) {
            case 'DUE':
              return (
                <p key={note.kind} data-testid="next-payout-due">
                  {t('payouts.next.due', { date: f.date(note.at), start: f.date(next.periodStart) })}
                </p>
              );
            case 'BELOW_THRESHOLD':
              return (
                <p key={note.kind} className="notice warning" data-testid="next-payout-threshold">
                  {t('payouts.next.belowThreshold', { threshold: isolate(formatUsdc(next.threshold, lng)), available: isolate(formatUsdc(next.available, lng)) })}
                </p>
              );
            case 'HELD':
              return (
                <p key={note.kind} className="notice warning" data-testid="next-payout-held">
                  {t('payouts.next.held', { date: f.dateTime(note.until) })}
                </p>
              );
          }
        })
      )}
      {next && <PayNow onPaid={onPaid} />}
    </section>
  );
}

/** The fields requestPayout's userErrors are shown at. */
const PAY_NOW_FIELDS = ['method', 'amount'];

/**
 * PayNow asks for the available balance now (requestPayout): the payout
 * made is said in words, or why not (a destination cooling off, a payout
 * on its way, under the threshold).
 */
function PayNow({ onPaid }: { onPaid: () => void }) {
  const { t, i18n } = useTranslation();
  const [result, request] = useMutation(RequestPayoutMutation);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [paid, setPaid] = useState<string | null>(null);

  async function onClick() {
    setErrors({});
    setPaid(null);
    const res = await request({}, PAYOUTS_CONTEXT);
    const payload = res.data?.requestPayout;
    if (!payload) return;
    if (payload.userErrors.length > 0 || !payload.payout) {
      setErrors(fieldErrors(payload.userErrors, PAY_NOW_FIELDS));
      return;
    }
    setPaid(payload.payout.amount);
    onPaid();
  }

  return (
    <div className="pay-now" data-testid="pay-now">
      <button type="button" className="button" disabled={result.fetching} onClick={() => void onClick()} data-testid="pay-now-button">
        {t('payouts.now.button')}
      </button>
      <p className="muted small">{t('payouts.now.hint')}</p>
      {result.error && <ErrorNotice error={result.error} />}
      {PAY_NOW_FIELDS.map((name) => (
        <FieldErrorText key={name} name={name} errors={errors[name]} className="notice warning" testId={`pay-now-${name}-error`} />
      ))}
      <FieldErrorText name={FORM_FIELD} errors={errors[FORM_FIELD]} className="notice warning" testId="pay-now-error" />
      {paid && (
        <p className="notice success" role="status" data-testid="pay-now-done" data-amount={paid}>
          {t('payouts.now.done', { amount: isolate(formatUsdc(paid, i18n.language)) })}
        </p>
      )}
    </div>
  );
}

/** MethodCard shows the payout method and the form that sets it. */
function MethodCard({ method: loaded, onSaved }: { method: PayoutMethodFieldsFragment | null; onSaved: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [editing, setEditing] = useState(loaded === null);
  const [saved, setSaved] = useState(false);
  // The method setPayoutMethod answered with: shown at once beside "Saved",
  // not the one the page loaded before, until the refreshed page is as new.
  const [justSaved, setJustSaved] = useState<PayoutMethodFieldsFragment | null>(null);
  const method = justSaved && (!loaded || justSaved.changedAt >= loaded.changedAt) ? justSaved : loaded;
  return (
    <section className="card" aria-labelledby="payouts-method" data-testid="payout-method" data-kind={method?.kind ?? ''} data-schedule={method?.schedule ?? ''}>
      <h2 id="payouts-method">{t('payouts.method.title')}</h2>
      {method ? (
        <dl className="facts compact" data-testid="payout-method-current">
          <dt>{t('payouts.method.schedule')}</dt>
          <dd data-testid="payout-method-schedule">{t(`payoutSchedule.${method.schedule}`)}</dd>
          <dt>{t('payouts.method.kind')}</dt>
          <dd>{t(`payoutKind.${method.kind}`)}</dd>
          {method.solanaAddress && (
            <>
              <dt>{t('payouts.method.solanaAddress')}</dt>
              <dd className="mono wrap-anywhere" dir="ltr" data-testid="payout-method-address">
                {method.solanaAddress}
              </dd>
            </>
          )}
          {method.ibanMasked && (
            <>
              <dt>{t('payouts.method.iban')}</dt>
              <dd className="mono wrap-anywhere" dir="ltr" data-testid="payout-method-iban">
                {method.ibanMasked}
              </dd>
            </>
          )}
          {method.bic && (
            <>
              <dt>{t('payouts.method.bic')}</dt>
              <dd className="mono" dir="ltr">
                {method.bic}
              </dd>
            </>
          )}
          {method.accountHolder && (
            <>
              <dt>{t('payouts.method.accountHolder')}</dt>
              <dd className="wrap-anywhere" dir="auto">
                {method.accountHolder}
              </dd>
            </>
          )}
          <dt>{t('payouts.method.changedAt')}</dt>
          <dd>{f.dateTime(method.changedAt)}</dd>
        </dl>
      ) : (
        <p data-testid="payout-method-none">{t('payouts.method.none')}</p>
      )}
      {saved && (
        <p className="notice success" role="status" data-testid="payout-method-saved">
          {t('payouts.method.saved')}
        </p>
      )}
      {editing ? (
        <MethodForm
          method={method}
          onSaved={(m) => {
            setJustSaved(m);
            setSaved(true);
            setEditing(false);
            onSaved();
          }}
          onCancel={method ? () => setEditing(false) : undefined}
        />
      ) : (
        <button
          type="button"
          className="button"
          onClick={() => {
            setSaved(false);
            setEditing(true);
          }}
          data-testid="payout-method-change"
        >
          {t('payouts.method.change')}
        </button>
      )}
    </section>
  );
}

/** The form's fields the server's userErrors are shown at; the password's name keeps its texts apart from log-in's. */
const KNOWN = METHOD_FIELDS.filter((f) => f !== 'password');

function MethodForm({
  method,
  onSaved,
  onCancel,
}: {
  method: PayoutMethodFieldsFragment | null;
  onSaved: (method: PayoutMethodFieldsFragment) => void;
  onCancel?: () => void;
}) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<MethodDraft>(() => ({
    schedule: method?.schedule ?? 'WEEKLY',
    destination: destinationOf(method?.kind),
    solanaAddress: '',
    iban: '',
    bic: '',
    accountHolder: method?.accountHolder ?? '',
    password: '',
  }));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<CombinedError | undefined>(undefined);
  const [result, setMethod] = useMutation(SetPayoutMethodMutation);
  const set = <K extends keyof MethodDraft>(key: K, value: MethodDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    const res = await setMethod({ input: methodInput(draft) });
    setFailure(res.error);
    const payload = res.data?.setPayoutMethod;
    if (!payload) return;
    if (payload.userErrors.length > 0 || !payload.method) {
      // Every problem at once, each at its field; the password's under its own name.
      const byField = fieldErrors(payload.userErrors, [...KNOWN, 'password']);
      const { password, ...rest } = byField;
      setErrors(password ? { ...rest, payoutPassword: password } : rest);
      return;
    }
    onSaved(payload.method);
  }

  const destinations: { value: Destination; label: string }[] = [
    { value: 'SOLANA', label: t('payouts.form.solana') },
    { value: 'BANK', label: t('payouts.form.bank') },
  ];
  return (
    <form className="payout-method-form" onSubmit={(e) => void onSubmit(e)} noValidate data-testid="payout-method-form">
      <FieldErrorText name={FORM_FIELD} errors={errors[FORM_FIELD]} className="form-error" testId="payout-method-form-error" />
      {failure && <ErrorNotice error={failure} />}
      <ChoiceField
        name="schedule"
        label={t('payouts.form.schedule')}
        hint={t('payouts.form.scheduleHint')}
        value={draft.schedule}
        choices={PAYOUT_SCHEDULES.map((s) => ({ value: s, label: t(`payoutSchedule.${s}`) }))}
        onChange={(v) => set('schedule', v)}
        errors={errors.schedule}
      />
      <ChoiceField name="destination" label={t('payouts.form.destination')} value={draft.destination} choices={destinations} onChange={(v) => set('destination', v)} />
      {draft.destination === 'SOLANA' ? (
        <FormField
          name="solanaAddress"
          label={t('payouts.form.solanaAddress')}
          hint={t('payouts.form.solanaHint')}
          autoComplete="off"
          spellCheck={false}
          dir="ltr"
          value={draft.solanaAddress}
          onChange={(e) => set('solanaAddress', e.target.value)}
          errors={errors.solanaAddress}
        />
      ) : (
        <>
          <FormField name="iban" label={t('payouts.form.iban')} hint={t('payouts.form.ibanHint')} autoComplete="off" spellCheck={false} dir="ltr" value={draft.iban} onChange={(e) => set('iban', e.target.value)} errors={errors.iban} />
          <FormField name="bic" label={t('payouts.form.bic')} autoComplete="off" spellCheck={false} dir="ltr" value={draft.bic} onChange={(e) => set('bic', e.target.value)} errors={errors.bic} />
          <FormField name="accountHolder" label={t('payouts.form.accountHolder')} hint={t('payouts.form.accountHolderHint')} autoComplete="name" dir="auto" value={draft.accountHolder} onChange={(e) => set('accountHolder', e.target.value)} errors={errors.accountHolder} />
        </>
      )}
      <FormField
        name="payoutPassword"
        type="password"
        label={t('payouts.form.password')}
        hint={t('payouts.form.passwordHint')}
        autoComplete="current-password"
        value={draft.password}
        onChange={(e) => set('password', e.target.value)}
        errors={errors.payoutPassword}
      />
      <div className="actions">
        <button type="submit" className="button primary" disabled={result.fetching} data-testid="payout-method-save">
          {t('payouts.form.save')}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            {t('common.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
