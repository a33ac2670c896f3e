import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { useSession } from '../account/session';
import { StatusBadge } from '../ui/Badge';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Loading } from '../ui/Loading';
import { latestReviewerMessage } from './ApplicationDetails';
import { ApplicationForm } from './ApplicationForm';
import { draftFromApplication, emptyDraft } from './applicationForm';
import { MyApplicationQuery, SubmitProviderApplicationMutation } from './operations';

/**
 * ApplyPage is "Apply to provide GPUs". A user whose application is open or
 * approved is sent to it instead: there is one open application per user,
 * and a rejected applicant may apply again, starting from the answers of
 * the rejected application (with the reviewer's reason above the form).
 */
export function ApplyPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { user } = useSession();
  const [{ data, fetching, error }, reexecute] = useQuery({ query: MyApplicationQuery, requestPolicy: 'network-only' });
  const [submitResult, submitApplication] = useMutation(SubmitProviderApplicationMutation);

  if (fetching && !data) return <Loading />;
  if (error && !data) return <ErrorNotice error={error} onRetry={() => reexecute({ requestPolicy: 'network-only' })} />;

  const existing = data?.myApplication;
  if (existing && existing.status !== 'REJECTED') {
    return (
      <section className="card narrow" data-testid="apply-existing">
        <h1>{t('apply.title')}</h1>
        <p>
          {t('apply.alreadyApplied')} <StatusBadge status={existing.status} />
        </p>
        <Link to="/provider/application" className="button primary" data-testid="apply-see-application">
          {t('apply.seeApplication')}
        </Link>
      </section>
    );
  }

  const reason = existing?.status === 'REJECTED' ? latestReviewerMessage(existing) : null;

  return (
    <section className="page" data-testid="apply-page" data-prefilled={existing?.status === 'REJECTED'}>
      <header className="page-head">
        <h1>{t('apply.title')}</h1>
        <p className="lead">{t('apply.lead')}</p>
        {existing?.status === 'REJECTED' && (
          <div className="notice info" data-testid="apply-reapply">
            <p>{t('apply.reapplyPrefilled')}</p>
            {reason && (
              <>
                <p className="muted">{t('apply.rejectedBecause')}</p>
                <blockquote className="prewrap" dir="auto" data-testid="apply-rejection-reason">
                  {reason}
                </blockquote>
              </>
            )}
          </div>
        )}
      </header>
      <ApplicationForm
        initial={existing?.status === 'REJECTED' ? draftFromApplication(existing) : emptyDraft(user)}
        submitLabel={t('apply.submit')}
        fetching={submitResult.fetching}
        error={submitResult.error}
        submit={async (input) => {
          const res = await submitApplication({ input });
          const payload = res.data?.submitProviderApplication;
          if (!payload) return null;
          if (payload.userErrors.length === 0 && payload.application) {
            navigate('/provider/application', { state: { submitted: true } });
          }
          return payload.userErrors;
        }}
      />
    </section>
  );
}
