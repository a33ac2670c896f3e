import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApplicationFieldsFragment } from '../gql/graphql';
import { StatusBadge, TierBadge } from '../ui/Badge';
import { isolate, useFormat } from '../ui/format';
import { AnswerChanges } from './AnswerChanges';
import { useCommitmentText } from './commitment';
import './onboarding.css';
import { tierReasonText } from './tierReasons';
import { WindowText } from './WindowText';

type Application = ApplicationFieldsFragment;
type Gpu = Application['gpus'][number];

/**
 * TierView shows the tier: once decided, the tier the reviewer set, first
 * and plainly, with the system's suggestion after it as what it was (a
 * suggestion); before, the suggestion and why, saying the reviewer decides.
 */
function TierView({ decided, suggestion }: { decided: Application['tier']; suggestion: Application['suggestedTier'] }) {
  const { t } = useTranslation();
  return (
    <>
      {decided && (
        <div className="decided-tier" data-testid="decided-tier" data-tier={decided}>
          <p>
            {t('application.decidedTier')} <TierBadge tier={decided} />
          </p>
          <p className="muted">{t(`tiers.${decided}.description`)}</p>
        </div>
      )}
      <TierSuggestionView suggestion={suggestion} decided={decided != null} />
    </>
  );
}

/** TierSuggestionView shows the tier the system suggests and why. */
function TierSuggestionView({ suggestion, decided }: { suggestion: Application['suggestedTier']; decided: boolean }) {
  const { t } = useTranslation();
  return (
    <div className={decided ? 'suggestion past' : 'suggestion'} data-testid="tier-suggestion" data-tier={suggestion.tier}>
      <p className={decided ? 'muted' : undefined}>
        {decided ? t('application.suggestedTierWas') : t('application.suggestedTier')} <TierBadge tier={suggestion.tier} />
      </p>
      {decided ? null : <p className="muted">{t('application.suggestionOnly')}</p>}
      {decided ? null : <p className="muted">{t(`tiers.${suggestion.tier}.description`)}</p>}
      {suggestion.reasons.length > 0 && (
        <>
          <p className="muted">{t('application.suggestionReasons')}</p>
          <ul className="reasons" data-testid="tier-reasons">
            {suggestion.reasonCodes.map((code, i) => (
              <li key={code}>{tierReasonText(t, code, suggestion.reasons[i] ?? code)}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function GpuModelName({ gpu }: { gpu: Gpu }) {
  const { t } = useTranslation();
  const f = useFormat();
  // Quantity and model read as one left-to-right run ("8 × H100 SXM5 80GB")
  // whatever the page direction.
  return (
    <>
      <bdi dir="ltr">
        {f.number(gpu.quantity)} × {gpu.model ? gpu.model.name : gpu.otherModel}
      </bdi>
      {!gpu.model && <span className="muted"> {t('application.otherModelNote')}</span>}
    </>
  );
}

function Availability({ gpu }: { gpu: Gpu }) {
  const { t } = useTranslation();
  const a = gpu.availability;
  if (a.kind === 'ALWAYS') return <>{t('application.always')}</>;
  return (
    <>
      <ul className="windows-list">
        {a.windows.map((w, i) => (
          <li key={i}>
            <WindowText day={w.day} start={w.start} end={w.end} />
          </li>
        ))}
      </ul>
      <span className="muted">{t('application.inTimeZone', { zone: isolate(a.timeZone ?? '') })}</span>
    </>
  );
}

/** ApplicationAnswers shows every answer of an application, read-only. */
function ApplicationAnswers({ app }: { app: Application }) {
  const { t } = useTranslation();
  const f = useFormat();
  const commitmentText = useCommitmentText();
  const none = t('application.notGiven');
  return (
    <div className="answers" data-testid="application-answers">
      <dl className="facts">
        <dt>{t('apply.fullName')}</dt>
        <dd data-testid="answer-fullName" dir="auto">{app.fullName}</dd>
        <dt>{t('apply.email')}</dt>
        <dd data-testid="answer-email" dir="ltr">
          {app.email}
        </dd>
        <dt>{t('application.company')}</dt>
        <dd data-testid="answer-company" dir="auto">{app.company ?? none}</dd>
        <dt>{t('apply.ups')}</dt>
        <dd data-testid="answer-ups">{app.upsProtected ? t('common.yes') : t('common.no')}</dd>
        <dt>{t('apply.commitment')}</dt>
        <dd data-testid="answer-commitment">{commitmentText(app.commitmentMonths)}</dd>
        <dt>{t('apply.maintenanceNotes')}</dt>
        <dd data-testid="answer-notes" className="prewrap" dir="auto">
          {app.maintenanceNotes ?? none}
        </dd>
      </dl>
      <h3>{t('application.gpus')}</h3>
      <div className="gpu-answers">
        {app.gpus.map((gpu, i) => (
          <article key={i} className="gpu-answer" data-testid="answer-gpu">
            <h4>
              <GpuModelName gpu={gpu} />
            </h4>
            <dl className="facts compact">
              <dt>{t('apply.gpu.ramGb')}</dt>
              <dd dir="auto">{t('application.gb', { value: f.number(gpu.ramGb) })}</dd>
              <dt>{t('application.bandwidth')}</dt>
              <dd dir="auto">
                {t('application.upDown', {
                  up: f.number(gpu.uploadGbps),
                  down: f.number(gpu.downloadGbps),
                })}
              </dd>
              <dt>{t('apply.gpu.availability')}</dt>
              <dd data-testid="answer-availability" data-kind={gpu.availability.kind}>
                <Availability gpu={gpu} />
              </dd>
              <dt>{t('apply.gpu.location')}</dt>
              <dd dir="auto">
                {[gpu.location.city, gpu.location.country, gpu.location.region].filter(Boolean).join(' · ') || none}
              </dd>
            </dl>
          </article>
        ))}
      </div>
    </div>
  );
}

/**
 * ApplicationHistory lists every step: who, when, what they said (on a
 * resubmission, the applicant's reply), and for admins what a resubmission
 * changed, except on the step changesShownAt (its index in history), whose
 * changes the page already shows (the review page's latest answer).
 */
function ApplicationHistory({ history, changesShownAt }: { history: Application['history']; changesShownAt?: number }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <ol className="history" data-testid="application-history">
      {history.map((event, i) => (
        <li key={i} className="history-item" data-testid="history-item" data-action={event.action}>
          <p className="history-head">
            <strong>{t(`application.actions.${event.action}`)}</strong>
            {event.tier && <TierBadge tier={event.tier} />}
          </p>
          <p className="muted">
            {t('application.by', { name: isolate(event.actor.name) })}
            {event.actor.isAdmin && <span className="chip small">{t('application.team')}</span>}{' '}
            · <time dateTime={event.at}>{f.dateTime(event.at)}</time>
          </p>
          {event.message && (
            <>
              {event.action === 'RESUBMITTED' && <p className="muted small">{t('application.reply.title')}</p>}
              <blockquote className="history-message prewrap" dir="auto" data-testid="history-message">
                {event.message}
              </blockquote>
            </>
          )}
          {event.changes && i !== changesShownAt && <AnswerChanges changes={event.changes} />}
        </li>
      ))}
    </ol>
  );
}

/**
 * ApplicationStatusLine stands under an application's title: its status,
 * what children add (the review page shows the tier given), and when it was
 * submitted and last updated.
 */
export function ApplicationStatusLine({ app, children }: { app: Application; children?: ReactNode }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <p className="status-line">
      <StatusBadge status={app.status} />
      {children}
      <span className="muted">
        {t('application.submittedAt', { when: f.dateTime(app.submittedAt) })} ·{' '}
        {t('application.updatedAt', { when: f.dateTime(app.updatedAt) })}
      </span>
    </p>
  );
}

/**
 * ApplicationRecord is an application as the applicant and the reviewers
 * both read it: the answers beside the suggested tier, what children add
 * (the review page's decision), and the history. changesShownAt is the
 * index in the history of a step whose changes children already show: the
 * history leaves them out there, so the page shows them once.
 */
export function ApplicationRecord({ app, children, changesShownAt }: { app: Application; children?: ReactNode; changesShownAt?: number }) {
  const { t } = useTranslation();
  return (
    <div className="two-columns">
      <section className="card">
        <h2>{t('application.answers')}</h2>
        <ApplicationAnswers app={app} />
      </section>
      <div className="stack">
        <section className="card">
          <h2>{t('application.tier')}</h2>
          <TierView decided={app.tier} suggestion={app.suggestedTier} />
        </section>
        {children}
        <section className="card">
          <h2>{t('application.history')}</h2>
          <ApplicationHistory history={app.history} changesShownAt={changesShownAt} />
        </section>
      </div>
    </div>
  );
}

/**
 * latestReviewerMessage is what the last reviewer said, for the banner on an
 * application that awaits more information or was rejected.
 */
export function latestReviewerMessage(app: Application): string | null {
  for (let i = app.history.length - 1; i >= 0; i--) {
    const event = app.history[i];
    if (event?.actor.isAdmin) return event.message ?? null;
  }
  return null;
}
