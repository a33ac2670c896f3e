import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { useNotificationListener } from '../notifications/events';
import { TierBadge } from '../ui/Badge';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Loading } from '../ui/Loading';
import { ApplicationRecord, ApplicationStatusLine, latestReviewerMessage } from './ApplicationDetails';
import { ApplicationForm } from './ApplicationForm';
import { draftFromApplication } from './applicationForm';
import { applicantMarks } from './progress';
import { ProgressTracker, ProviderProgress } from './ProgressTracker';
import './onboarding.css';
import { MyApplicationQuery, UpdateProviderApplicationMutation } from './operations';

/** APPLICATION_KINDS are the notifications that change the applicant's page. */
const APPLICATION_KINDS = new Set(['APPLICATION_APPROVED', 'APPLICATION_REJECTED', 'APPLICATION_INFO_REQUESTED']);

/**
 * ApplicationStatusPage is where an applicant follows their application:
 * status, suggested tier, the reviewers' messages, and, when more
 * information is asked for, the same form prefilled to edit and resubmit.
 * A decision arriving as a live notification refreshes the page.
 */
export function ApplicationStatusPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const [{ data, fetching, error }, reexecute] = useQuery({ query: MyApplicationQuery, requestPolicy: 'network-only' });
  const [updateResult, update] = useMutation(UpdateProviderApplicationMutation);
  const [editing, setEditing] = useState(false);
  const [resubmitted, setResubmitted] = useState(false);
  const [reply, setReply] = useState('');

  useNotificationListener((n) => {
    if (APPLICATION_KINDS.has(n.kind)) reexecute({ requestPolicy: 'network-only' });
  });

  if (fetching && !data) return <Loading />;
  if (error && !data) return <ErrorNotice error={error} onRetry={() => reexecute({ requestPolicy: 'network-only' })} />;

  const app = data?.myApplication;
  if (!app) {
    return (
      <section className="card narrow" data-testid="application-none">
        <h1>{t('application.title')}</h1>
        <p>{t('application.none')}</p>
        <Link to="/provider/apply" className="button primary">
          {t('roles.apply')}
        </Link>
      </section>
    );
  }

  const editable = app.status === 'SUBMITTED' || app.status === 'INFO_REQUESTED';
  const reviewerMessage = latestReviewerMessage(app);

  if (editing && editable) {
    return (
      <section className="page" data-testid="application-edit">
        <header className="page-head">
          <h1>{t('application.editTitle')}</h1>
        </header>
        <ApplicationForm
          initial={draftFromApplication(app)}
          submitLabel={t('application.resubmit')}
          fetching={updateResult.fetching}
          error={updateResult.error}
          onCancel={() => setEditing(false)}
          // Asked for more information, the applicant answers the question
          // in words as well as by editing answers.
          reply={app.status === 'INFO_REQUESTED' ? { value: reply, onChange: setReply, question: reviewerMessage } : undefined}
          submit={async (input) => {
            const text = app.status === 'INFO_REQUESTED' ? reply.trim() : '';
            const res = await update({ id: app.id, input, reply: text === '' ? null : text });
            const payload = res.data?.updateProviderApplication;
            if (!payload) return null;
            if (payload.userErrors.length === 0) {
              setEditing(false);
              setResubmitted(true);
              setReply('');
              // No refetch here: the mutation returns the application, so
              // urql's cacheExchange refetches MyApplication by itself.
            }
            return payload.userErrors;
          }}
        />
      </section>
    );
  }

  const justSubmitted = (location.state as { submitted?: boolean } | null)?.submitted;

  return (
    <section className="page" data-testid="application-page" data-status={app.status}>
      <header className="page-head">
        <h1>{t('application.title')}</h1>
        <ApplicationStatusLine app={app} />
      </header>

      {(justSubmitted || resubmitted) && app.status === 'SUBMITTED' && (
        <p className="notice success" role="status" data-testid="application-submitted-notice">
          {resubmitted ? t('application.resubmittedNotice') : t('application.submittedNotice')}
        </p>
      )}

      <div className="card status-card">
        <p data-testid="application-status-explanation">{t(`application.explain.${app.status}`)}</p>
        {(app.status === 'INFO_REQUESTED' || app.status === 'REJECTED') && reviewerMessage && (
          <blockquote className="prewrap" dir="auto" data-testid="application-reviewer-message">
            {reviewerMessage}
          </blockquote>
        )}
        {app.status === 'INFO_REQUESTED' && (
          <button type="button" className="button primary" onClick={() => setEditing(true)} data-testid="application-edit-button">
            {t('application.editAndResubmit')}
          </button>
        )}
        {app.status === 'SUBMITTED' && (
          <button type="button" className="button" onClick={() => setEditing(true)} data-testid="application-edit-button">
            {t('application.edit')}
          </button>
        )}
        {app.status === 'REJECTED' && (
          <Link to="/provider/apply" className="button">
            {t('application.applyAgain')}
          </Link>
        )}
        {app.status === 'APPROVED' && (
          <>
            {app.tier && (
              <p>
                {t('application.approvedAs')} <TierBadge tier={app.tier} testId="application-tier" />
              </p>
            )}
            <Link to="/provider/tokens" className="button primary" data-testid="application-tokens-link">
              {t('application.goToTokens')}
            </Link>
          </>
        )}
      </div>

      {app.status === 'APPROVED' ? <ProviderProgress always /> : app.status !== 'REJECTED' && <ProgressTracker marks={applicantMarks(app.submittedAt)} />}

      <ApplicationRecord app={app} />
    </section>
  );
}
