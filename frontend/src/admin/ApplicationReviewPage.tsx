import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { FieldErrorText, SelectField, TextAreaField } from '../account/FormField';
import { fieldErrors, FORM_FIELD, type FieldErrors, type UserErrorLike } from '../api/errors';
import type { ApplicationFieldsFragment, ProviderTier } from '../gql/graphql';
import {
  ApplicationAnswers,
  ApplicationHistory,
  StatusBadge,
  TierBadge,
  TierSuggestionView,
} from '../onboarding/ApplicationDetails';
import { isolate, useFormat } from '../onboarding/format';
import { ErrorNotice } from '../shell/ErrorNotice';
import { Loading } from '../shell/Loading';
import {
  ApplicationReviewQuery,
  ApproveApplicationMutation,
  RejectApplicationMutation,
  RequestApplicationInfoMutation,
} from './operations';

const TIERS: readonly ProviderTier[] = ['COMMUNITY', 'ENTERPRISE'];

/** DECISION_FIELDS are the argument names the decision mutations report errors on. */
const DECISION_FIELDS = ['tier', 'message', 'reason'] as const;

/**
 * ApplicationReviewPage is one application as an admin reviews it: every
 * answer, the suggested tier and why, the history, and the decision panel.
 */
export function ApplicationReviewPage() {
  const { id = '' } = useParams();
  // Keyed by id: another application starts with a clean page.
  return <ApplicationReview key={id} id={id} />;
}

function ApplicationReview({ id }: { id: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [{ data, fetching, error }, reexecute] = useQuery({
    query: ApplicationReviewQuery,
    variables: { id },
    requestPolicy: 'cache-and-network',
  });
  const [done, setDone] = useState<Decision | null>(null);

  if (fetching && !data) return <Loading />;
  if (error && !data) return <ErrorNotice error={error} onRetry={() => reexecute({ requestPolicy: 'network-only' })} />;
  const app = data?.providerApplication;
  if (!app) {
    return (
      <section className="card narrow" data-testid="review-not-found">
        <p>{t('errors.codes.NOT_FOUND')}</p>
        <Link to="/admin/applications">{t('admin.review.back')}</Link>
      </section>
    );
  }

  return (
    <section className="page" data-testid="admin-review-page" data-status={app.status}>
      <header className="page-head">
        <Link to="/admin/applications" className="back" data-testid="review-back">
          {t('admin.review.back')}
        </Link>
        <h1>{t('admin.review.title', { name: isolate(app.fullName) })}</h1>
        <p className="status-line">
          <StatusBadge status={app.status} />
          {app.tier && <TierBadge tier={app.tier} testId="review-tier" />}
          <span className="muted">
            {t('application.submittedAt', { when: f.dateTime(app.submittedAt) })} ·{' '}
            {t('application.updatedAt', { when: f.dateTime(app.updatedAt) })}
          </span>
        </p>
      </header>
      {done && (
        <p className="notice success" role="status" data-testid="review-done" data-decision={done}>
          {t(`admin.review.done.${done}`)}
        </p>
      )}
      <div className="two-columns">
        <section className="card">
          <h2>{t('application.answers')}</h2>
          <ApplicationAnswers app={app} />
        </section>
        <div className="stack">
          <section className="card">
            <h2>{t('application.tier')}</h2>
            <TierSuggestionView suggestion={app.suggestedTier} />
          </section>
          {app.status === 'SUBMITTED' || app.status === 'INFO_REQUESTED' ? (
            // Keyed by status and update time: after a resubmission the panel starts fresh.
            <DecisionPanel key={`${app.status}-${app.updatedAt}`} app={app} onDecided={setDone} />
          ) : (
            <section className="card" data-testid="review-decided">
              <h2>{t('admin.review.decision')}</h2>
              <p>{t(`admin.review.decided.${app.status}`)}</p>
            </section>
          )}
          <section className="card">
            <h2>{t('application.history')}</h2>
            <ApplicationHistory history={app.history} />
          </section>
        </div>
      </div>
    </section>
  );
}

type Decision = 'approve' | 'reject' | 'info';

/**
 * DecisionPanel holds the tier (suggested, may be overridden), one message
 * box (optional when approving, the reason when rejecting, the question when
 * asking for information) and the three decisions. Rejecting asks once more.
 */
function DecisionPanel({ app, onDecided }: { app: ApplicationFieldsFragment; onDecided: (d: Decision) => void }) {
  const { t } = useTranslation();
  const [tier, setTier] = useState<ProviderTier>(app.suggestedTier.tier);
  const [message, setMessage] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [confirmReject, setConfirmReject] = useState(false);
  const [approveResult, approve] = useMutation(ApproveApplicationMutation);
  const [rejectResult, reject] = useMutation(RejectApplicationMutation);
  const [infoResult, requestInfo] = useMutation(RequestApplicationInfoMutation);
  const fetching = approveResult.fetching || rejectResult.fetching || infoResult.fetching;
  const [last, setLast] = useState<Decision | null>(null);
  const lastError = last === 'approve' ? approveResult.error : last === 'reject' ? rejectResult.error : last === 'info' ? infoResult.error : undefined;

  async function decide(decision: Decision) {
    setLast(decision);
    setConfirmReject(false);
    let userErrors: readonly UserErrorLike[] | undefined;
    if (decision === 'approve') {
      const res = await approve({ id: app.id, tier, message: message.trim() || null });
      userErrors = res.data?.approveProviderApplication.userErrors;
    } else if (decision === 'reject') {
      const res = await reject({ id: app.id, reason: message });
      userErrors = res.data?.rejectProviderApplication.userErrors;
    } else {
      const res = await requestInfo({ id: app.id, message });
      userErrors = res.data?.requestApplicationInfo.userErrors;
    }
    setErrors(userErrors ? fieldErrors(userErrors, DECISION_FIELDS) : {});
    if (userErrors && userErrors.length === 0) onDecided(decision);
  }

  const formErrors = errors[FORM_FIELD] ?? [];

  return (
    <section className="card decision" data-testid="review-decision">
      <h2>{t('admin.review.decision')}</h2>
      <FieldErrorText name={FORM_FIELD} errors={formErrors} className="form-error" testId="form-error" />
      {lastError && <ErrorNotice error={lastError} />}
      <SelectField
        name="tier"
        label={t('admin.review.tier')}
        hint={
          tier === app.suggestedTier.tier
            ? t('admin.review.tierSuggested')
            : t('admin.review.tierOverride', { suggested: t(`tiers.${app.suggestedTier.tier}.name`) })
        }
        value={tier}
        onChange={(e) => setTier(e.target.value as ProviderTier)}
        errors={errors.tier}
      >
        {TIERS.map((x) => (
          <option key={x} value={x}>
            {t(`tiers.${x}.name`)}
          </option>
        ))}
      </SelectField>
      <TextAreaField
        name="message"
        label={t('admin.review.message')}
        hint={t('admin.review.messageHint')}
        rows={4}
        value={message}
        onChange={(e) => setMessage(e.target.value)}
        errors={errors.message}
      />
      <FieldErrorText name="reason" errors={errors.reason} />
      <div className="actions">
        <button type="button" className="button primary" onClick={() => void decide('approve')} disabled={fetching} data-testid="review-approve">
          {t('admin.review.approveAs', { tier: t(`tiers.${tier}.name`) })}
        </button>
        <button type="button" className="button" onClick={() => void decide('info')} disabled={fetching} data-testid="review-request-info">
          {t('admin.review.requestInfo')}
        </button>
        {confirmReject ? (
          <span className="confirm" role="group" aria-label={t('admin.review.confirmReject')}>
            <span>{t('admin.review.confirmReject')}</span>
            <button type="button" className="button danger" onClick={() => void decide('reject')} disabled={fetching} data-testid="review-reject-confirm">
              {t('admin.review.rejectYes')}
            </button>
            <button type="button" className="button" onClick={() => setConfirmReject(false)} data-testid="review-reject-cancel">
              {t('common.cancel')}
            </button>
          </span>
        ) : (
          <button type="button" className="button danger-outline" onClick={() => setConfirmReject(true)} disabled={fetching} data-testid="review-reject">
            {t('admin.review.reject')}
          </button>
        )}
      </div>
    </section>
  );
}
