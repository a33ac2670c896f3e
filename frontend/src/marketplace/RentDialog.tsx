import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { useMutation, type CombinedError } from 'urql';
import { useSession } from '../account/session';
import { errorsByPath, FORM_FIELD, type PathErrors } from '../api/errors';
import { FundsSummary } from '../funds/FundsSummary';
import { useFunds } from '../funds/useFunds';
import type { ListingFieldsFragment } from '../gql/graphql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { FieldErrorText, FormField, TextAreaField } from '../ui/FormField';
import { newKey } from '../ui/schedule';
import { formatUsdc } from '../ui/usdc';
import { envPathOfRow, newRentDraft, rentInput, type RentDraft } from './filters';
import { placeOf } from './ListingsTable';
import { StartRentalMutation } from './operations';

/** FIELDS are the input's fields the dialog shows errors at; others go to the top. */
const FIELDS = new Set(['gpuCount', 'image', 'command', 'endBy']);

/**
 * RentDialog rents GPUs of one listing: how many (up to the listing's free
 * GPUs), the container image, its command, environment variables, and,
 * when the machine has maintenance planned, the customer's consent to end
 * before it. Problems found here and the server's userErrors are shown at
 * their fields; a started rental opens its page. An anonymous visitor is
 * asked to sign in first and comes back here.
 */
export function RentDialog({ listing, onClose }: { listing: ListingFieldsFragment; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const { user } = useSession();
  const location = useLocation();
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    return () => el?.close();
  }, []);

  return (
    <dialog ref={dialog} className="rent-dialog card" aria-labelledby="rent-title" onCancel={onClose} data-testid="rent-dialog" data-listing={listing.id}>
      <h2 id="rent-title">{t('marketplace.rent.title', { model: isolate(listing.model?.name ?? listing.modelKey) })}</h2>
      <p className="muted">
        {t('marketplace.rent.summary', {
          price: isolate(formatUsdc(listing.pricePerHour, i18n.language)),
          free: listing.gpuCount,
          place: isolate(placeOf(listing.location) || '—'),
        })}
      </p>
      {user ? (
        <RentForm listing={listing} onClose={onClose} />
      ) : (
        <div data-testid="rent-sign-in">
          <p>{t('marketplace.rent.signIn')}</p>
          <div className="actions">
            <Link to="/login" state={{ from: location.pathname + location.search }} className="button primary" data-testid="rent-login">
              {t('nav.logIn')}
            </Link>
            <Link to="/signup" className="button">
              {t('nav.signUp')}
            </Link>
            <button type="button" className="button" onClick={onClose}>
              {t('common.cancel')}
            </button>
          </div>
        </div>
      )}
    </dialog>
  );
}

function RentForm({ listing, onClose }: { listing: ListingFieldsFragment; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const navigate = useNavigate();
  const [draft, setDraft] = useState<RentDraft>(newRentDraft);
  const [errors, setErrors] = useState<PathErrors>({});
  const [failure, setFailure] = useState<CombinedError | undefined>(undefined);
  const [result, start] = useMutation(StartRentalMutation);
  const funds = useFunds();
  const set = <K extends keyof RentDraft>(key: K, value: RentDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const req = rentInput(listing, draft);
    if (!req.ok) {
      setErrors(rowErrors(req.errors, draft));
      return;
    }
    setErrors({});
    const res = await start({ input: req.input });
    setFailure(res.error);
    const payload = res.data?.startRental;
    if (!payload) return;
    if (payload.userErrors.length > 0 || !payload.rental) {
      setErrors(rowErrors(errorsByPath(payload.userErrors), draft));
      if (payload.userErrors.some((u) => u.code === 'INSUFFICIENT_FUNDS')) funds.refresh();
      return;
    }
    navigate(`/rentals/${payload.rental.id}`);
  }

  // Funds that do not cover the rental get a notice of their own, with the
  // balance, rather than a line among the form's errors.
  const formErrors = errors[FORM_FIELD] ?? [];
  const insufficient = formErrors.includes('INSUFFICIENT_FUNDS');
  const otherFormErrors = formErrors.filter((c) => c !== 'INSUFFICIENT_FUNDS');
  const setEnv = (i: number, patch: Partial<RentDraft['env'][number]>) => set('env', draft.env.map((row, j) => (j === i ? { ...row, ...patch } : row)));

  return (
    <form onSubmit={(e) => void onSubmit(e)} noValidate data-testid="rent-form">
      <FundsSummary view={funds} compact />
      {insufficient && (
        <div className="notice error" role="alert" data-testid="rent-insufficient-funds">
          <p>{t('marketplace.rent.insufficientFunds')}</p>
          <p>{t('marketplace.rent.addFunds')}</p>
        </div>
      )}
      <FieldErrorText name={FORM_FIELD} errors={otherFormErrors} className="form-error" testId="rent-form-error" />
      {failure && <ErrorNotice error={failure} />}
      <FormField
        name="gpuCount"
        type="number"
        inputMode="numeric"
        min={1}
        max={listing.gpuCount}
        step={1}
        label={t('marketplace.rent.gpuCount', { max: listing.gpuCount })}
        value={draft.gpuCount}
        onChange={(e) => set('gpuCount', e.target.value)}
        errors={errors.gpuCount}
      />
      <FormField
        name="image"
        label={t('marketplace.rent.image')}
        hint={t('marketplace.rent.imageHint')}
        autoComplete="off"
        spellCheck={false}
        dir="ltr"
        className="mono-field"
        value={draft.image}
        onChange={(e) => set('image', e.target.value)}
        errors={errors.image}
      />
      <TextAreaField
        name="command"
        label={t('marketplace.rent.command')}
        hint={t('marketplace.rent.commandHint')}
        rows={2}
        spellCheck={false}
        dir="ltr"
        className="mono-field"
        value={draft.command}
        onChange={(e) => set('command', e.target.value)}
        errors={errors.command}
      />
      <fieldset className="subsection env" data-testid="rent-env">
        <legend>{t('marketplace.rent.env')}</legend>
        <p className="field-hint">{t('marketplace.rent.envHint')}</p>
        {draft.env.map((row, i) => (
          <div className="env-row" key={row.key} data-testid="env-row">
            <FormField
              name={`env.${i}.name`}
              label={t('marketplace.rent.envName', { number: i + 1 })}
              autoComplete="off"
              spellCheck={false}
              dir="ltr"
              value={row.name}
              onChange={(e) => setEnv(i, { name: e.target.value })}
              errors={errors[`env.${i}.name`]}
            />
            <FormField
              name={`env.${i}.value`}
              label={t('marketplace.rent.envValue', { number: i + 1 })}
              autoComplete="off"
              spellCheck={false}
              dir="ltr"
              value={row.value}
              onChange={(e) => setEnv(i, { value: e.target.value })}
              errors={errors[`env.${i}.value`]}
            />
            <button
              type="button"
              className="link-button"
              onClick={() => set('env', draft.env.filter((_, j) => j !== i))}
              aria-label={t('marketplace.rent.envRemove', { number: i + 1 })}
              data-testid="env-remove"
            >
              {t('common.remove')}
            </button>
          </div>
        ))}
        <button type="button" className="button small" onClick={() => set('env', [...draft.env, { key: newKey('e'), name: '', value: '' }])} data-testid="env-add">
          {t('marketplace.rent.envAdd')}
        </button>
      </fieldset>
      {listing.nextMaintenanceAt && (
        <div className="field">
          <label className="checkbox">
            <input type="checkbox" checked={draft.acceptEndBy} onChange={(e) => set('acceptEndBy', e.target.checked)} data-testid="field-endBy" aria-invalid={errors.endBy ? true : undefined} />
            {t('marketplace.rent.endBy', { at: f.dateTime(listing.nextMaintenanceAt) })}
          </label>
          <FieldErrorText name="endBy" errors={errors.endBy} />
        </div>
      )}
      <div className="actions">
        <button type="submit" className="button primary" disabled={result.fetching} data-testid="rent-submit">
          {t('marketplace.rent.submit')}
        </button>
        <button type="button" className="button" onClick={onClose} data-testid="rent-cancel">
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}

/**
 * rowErrors places errors at the dialog's fields: the input's env indexes
 * become the rows' (empty rows are not sent), paths the dialog has no
 * field for go to the top, so no error goes unseen.
 */
function rowErrors(errors: PathErrors, draft: RentDraft): PathErrors {
  const rows = envPathOfRow(draft);
  const out: PathErrors = {};
  for (const [path, codes] of Object.entries(errors)) {
    const env = /^(env\.\d+)\.(name|value)$/.exec(path);
    let key: string = FORM_FIELD;
    if (FIELDS.has(path)) key = path;
    else if (/^command\.\d+$/.test(path)) key = 'command';
    else if (env) {
      const row = rows.get(env[1] ?? '');
      // rentInput and the server both index the env rows as sent.
      key = row !== undefined ? `env.${row}.${env[2]}` : path;
    }
    (out[key] ??= []).push(...codes);
  }
  return out;
}
