import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { fieldErrors, FORM_FIELD, type FieldErrors } from '../api/errors';
import type {
  ApplicationFieldsFragment,
  ApplicationPayloadFieldsFragment,
  ApplicationReviewChangedSubscription as ReviewChange,
  ProviderTier,
} from '../gql/graphql';
import { AnswerChanges } from '../onboarding/AnswerChanges';
import { ApplicationRecord, ApplicationStatusLine } from '../onboarding/ApplicationDetails';
import { TierBadge } from '../ui/Badge';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { FieldErrorText, SelectField, TextAreaField } from '../ui/FormField';
import { Loading } from '../ui/Loading';
import { fresher, useLiveMessages } from './live';
import {
  ApplicationReviewChangedSubscription,
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
 * It is live: when the applicant resubmits or another admin decides, the
 * page shows the application as it now is, and says who changed it.
 */
export function ApplicationReviewPage() {
  const { id = '' } = useParams();
  // Keyed by id: another application starts with a clean page.
  return <ApplicationReview key={id} id={id} />;
}

/** Change is one live message: the application as it now is. */
type Change = ReviewChange['providerApplicationChanged'];

function ApplicationReview({ id }: { id: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [{ data, fetching, error }, reexecute] = useQuery({
    query: ApplicationReviewQuery,
    variables: { id },
    requestPolicy: 'cache-and-network',
  });
  const [change, setChange] = useState<Change | null>(null);
  const { live } = useLiveMessages(ApplicationReviewChangedSubscription, { id }, (d) => setChange(d.providerApplicationChanged));
  const [done, setDone] = useState<Decision | null>(null);
  // This page's own decisions: whether one is on its way, and the history
  // lengths they produced. Their live messages are not someone else's news.
  const [deciding, setDeciding] = useState(false);
  const [own, setOwn] = useState<ReadonlySet<number>>(() => new Set());

  if (fetching && !data && !change) return <Loading />;
  // The query and the live messages read the same fields; show the newer.
  const app = fresher(data?.providerApplication, change?.application);
  if (error && !app) return <ErrorNotice error={error} onRetry={() => reexecute({ requestPolicy: 'network-only' })} />;
  if (!app) {
    return (
      <section className="card narrow" data-testid="review-not-found">
        <h1>{t('notFound.title')}</h1>
        <p>{t('errors.codes.NOT_FOUND')}</p>
        <Link to="/admin/applications" className="button primary">
          {t('admin.review.back')}
        </Link>
      </section>
    );
  }

  // The latest step, when it happened while the page was open (a message
  // after the first) and was not this page's own decision.
  const news = change && !change.initial && !deciding && !own.has(change.application.history.length) ? change.application.history.at(-1) : undefined;

  function decided(decision: Decision, result: ApplicationFieldsFragment | null | undefined) {
    setDone(decision);
    if (result) setOwn((s) => new Set(s).add(result.history.length));
  }

  return (
    <section className="page" data-testid="admin-review-page" data-status={app.status} data-live={live}>
      <header className="page-head">
        <Link to="/admin/applications" className="back" data-testid="review-back">
          {t('admin.review.back')}
        </Link>
        <h1>{t('admin.review.title', { name: isolate(app.fullName) })}</h1>
        <ApplicationStatusLine app={app}>
          {app.tier && <TierBadge tier={app.tier} testId="review-tier" />}
        </ApplicationStatusLine>
      </header>
      {news ? (
        <p className="notice info" role="status" data-testid="review-live-change" data-action={news.action}>
          {t(`admin.review.live.${news.action}`, { name: isolate(news.actor.name), when: f.dateTime(news.at) })}
        </p>
      ) : (
        done && (
          <p className="notice success" role="status" data-testid="review-done" data-decision={done}>
            {t(`admin.review.done.${done}`)}
          </p>
        )
      )}
      <ApplicationRecord app={app} changesShownAt={latestAnswerOf(app.history)?.answer}>
        <LatestAnswer app={app} />
        {app.status === 'SUBMITTED' || app.status === 'INFO_REQUESTED' ? (
          // Keyed by status: a decision, or the resubmission that answers
          // one, starts the panel fresh; an edit while in review keeps what
          // the reviewer has typed.
          <DecisionPanel key={app.status} app={app} onDeciding={setDeciding} onDecided={decided} />
        ) : (
          <section className="card" data-testid="review-decided">
            <h2>{t('admin.review.decision')}</h2>
            <p>{t(`admin.review.decided.${app.status}`)}</p>
          </section>
        )}
      </ApplicationRecord>
    </section>
  );
}

type Decision = 'approve' | 'reject' | 'info';

/**
 * latestAnswerOf finds, in a history read oldest first, the latest request
 * for more information and the resubmission that answered it (indices in
 * history); null before any request was answered.
 */
function latestAnswerOf(history: ApplicationFieldsFragment['history']): { question: number; answer: number } | null {
  const lastOf = (action: string) => history.map((e) => e.action as string).lastIndexOf(action);
  const answer = lastOf('RESUBMITTED');
  const question = lastOf('INFO_REQUESTED');
  if (answer < 0 || question < 0 || question > answer) return null;
  return { question, answer };
}

/**
 * LatestAnswer shows, beside the decision, how the applicant answered the
 * latest request for more information: the question, their reply, and
 * field by field what they changed (which the history then leaves out).
 * Nothing before any request was answered.
 */
function LatestAnswer({ app }: { app: ApplicationFieldsFragment }) {
  const { t } = useTranslation();
  const f = useFormat();
  const latest = latestAnswerOf(app.history);
  const answer = latest && app.history[latest.answer];
  const question = latest && app.history[latest.question];
  if (!answer || !question) return null;
  return (
    <section className="card latest-answer" data-testid="review-latest-answer">
      <h2>{t('admin.review.answer.title')}</h2>
      <p className="muted small">{t('admin.review.answer.asked', { name: isolate(question.actor.name) })}</p>
      {question.message && (
        <blockquote className="prewrap" dir="auto" data-testid="review-question">
          {question.message}
        </blockquote>
      )}
      <p className="muted small">
        {t('admin.review.answer.replied', { name: isolate(answer.actor.name), when: f.dateTime(answer.at) })}
      </p>
      {answer.message ? (
        <blockquote className="prewrap reply" dir="auto" data-testid="review-reply">
          {answer.message}
        </blockquote>
      ) : (
        <p className="muted" data-testid="review-no-reply">
          {t('admin.review.answer.noReply')}
        </p>
      )}
      {answer.changes && (
        <>
          <h3>{t('admin.review.answer.changes')}</h3>
          <AnswerChanges changes={answer.changes} />
        </>
      )}
    </section>
  );
}

interface DecisionPanelProps {
  app: ApplicationFieldsFragment;
  /** onDeciding is told when a decision is sent and when its answer is back. */
  onDeciding: (deciding: boolean) => void;
  /** onDecided is told of a decision taken, with the application it left. */
  onDecided: (d: Decision, app: ApplicationFieldsFragment | null | undefined) => void;
}

/**
 * DecisionPanel holds the tier (suggested, may be overridden), one message
 * box (optional when approving, the reason when rejecting, the question when
 * asking for information) and the three decisions. Rejecting asks once more.
 * Until the reviewer picks a tier, the tier follows the suggestion, which an
 * edit of the answers may change.
 */
function DecisionPanel({ app, onDeciding, onDecided }: DecisionPanelProps) {
  const { t } = useTranslation();
  const [picked, setPicked] = useState<ProviderTier | null>(null);
  const tier = picked ?? app.suggestedTier.tier;
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
    onDeciding(true);
    try {
      // Approval's payload also names the provider; the panel reads what all three share.
      let payload: ApplicationPayloadFieldsFragment | undefined;
      if (decision === 'approve') {
        const res = await approve({ id: app.id, tier, message: message.trim() || null });
        payload = res.data?.approveProviderApplication;
      } else if (decision === 'reject') {
        const res = await reject({ id: app.id, reason: message });
        payload = res.data?.rejectProviderApplication;
      } else {
        const res = await requestInfo({ id: app.id, message });
        payload = res.data?.requestApplicationInfo;
      }
      setErrors(payload ? fieldErrors(payload.userErrors, DECISION_FIELDS) : {});
      if (payload && payload.userErrors.length === 0) onDecided(decision, payload.application);
    } finally {
      onDeciding(false);
    }
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
        onChange={(e) => setPicked(e.target.value as ProviderTier)}
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
