import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery, type CombinedError } from 'urql';
import { errorsByPath, FORM_FIELD, splitByKnown, type PathErrors, type UserErrorLike } from '../api/errors';
import type { ProviderApplicationInput } from '../gql/graphql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { ChoiceField, FieldErrorText, FormField, SelectField, TextAreaField } from '../ui/FormField';
import {
  COMMITMENT_MONTHS,
  fieldPaths,
  newGpu,
  toInput,
  type ApplicationDraft,
  type GpuDraft,
} from './applicationForm';
import { useCommitmentText } from './commitment';
import { GpuEntryFields } from './GpuEntryFields';
import './onboarding.css';
import { SupportedGpuModelsQuery } from './operations';

interface ApplicationFormProps {
  initial: ApplicationDraft;
  submitLabel: string;
  /**
   * submit sends the input; it resolves with the payload's userErrors (empty
   * on success), or null when the request failed (error says why).
   */
  submit: (input: ProviderApplicationInput) => Promise<readonly UserErrorLike[] | null>;
  fetching: boolean;
  error: CombinedError | undefined;
  onCancel?: () => void;
  /**
   * reply, when given, adds a box for the applicant's answer to the
   * reviewer's question (sent with the resubmission), at the top of the form;
   * its errors come back on the path "reply".
   */
  reply?: { value: string; onChange: (value: string) => void; question: string | null };
}

/**
 * ApplicationForm is the provider application, for a first submission and
 * for edit-and-resubmit alike: applicant, repeatable GPU entries (each with
 * its schedule and location), infrastructure. Every error the server returns
 * is shown at the field its path names; the rest at the top.
 */
export function ApplicationForm({ initial, submitLabel, submit, fetching, error, onCancel, reply }: ApplicationFormProps) {
  const { t } = useTranslation();
  const commitmentText = useCommitmentText();
  const [draft, setDraft] = useState<ApplicationDraft>(initial);
  const [errors, setErrors] = useState<PathErrors>({});
  const [shown, setShown] = useState(0);
  const form = useRef<HTMLFormElement>(null);
  const [{ data: modelsData, error: modelsError }] = useQuery({ query: SupportedGpuModelsQuery });
  const models = useMemo(() => modelsData?.supportedGpuModels ?? [], [modelsData]);

  // After a rejected submission, bring the first problem into view and put
  // the cursor there, so a long form never fails silently below the fold.
  useEffect(() => {
    if (shown === 0) return;
    const root = form.current;
    if (!root) return;
    const invalid = root.querySelector<HTMLElement>(
      'input[aria-invalid="true"], select[aria-invalid="true"], textarea[aria-invalid="true"], [role="alert"]',
    );
    invalid?.scrollIntoView({ block: 'center' });
    if (invalid && invalid.matches('input, select, textarea')) invalid.focus({ preventScroll: true });
  }, [shown]);

  function set<K extends keyof ApplicationDraft>(key: K, value: ApplicationDraft[K]) {
    setDraft((d) => ({ ...d, [key]: value }));
  }

  function setGpu(index: number, gpu: GpuDraft) {
    setDraft((d) => ({ ...d, gpus: d.gpus.map((g, i) => (i === index ? gpu : g)) }));
  }

  // Adding or removing rows renumbers the paths, so old errors would point
  // at the wrong entries: they are cleared.
  function addGpu() {
    setDraft((d) => ({ ...d, gpus: [...d.gpus, newGpu()] }));
    setErrors({});
  }

  function removeGpu(index: number) {
    setDraft((d) => ({ ...d, gpus: d.gpus.filter((_, i) => i !== index) }));
    setErrors({});
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // One request, one answer with every problem (an unanswered UPS
    // question included), each shown at its field.
    const userErrors = await submit(toInput(draft));
    if (userErrors === null) return; // top-level error: ErrorNotice below
    const known = fieldPaths(draft);
    if (reply) known.add('reply');
    setErrors(splitByKnown(errorsByPath(userErrors), known));
    if (userErrors.length > 0) setShown((n) => n + 1);
  }

  const at = (path: string) => errors[path];
  const formErrors = errors[FORM_FIELD] ?? [];
  const hasFieldErrors = Object.keys(errors).some((k) => k !== FORM_FIELD);
  const commitmentChoices: number[] = [...COMMITMENT_MONTHS];
  const storedCommitment = Number(draft.commitmentMonths);
  if (draft.commitmentMonths && !commitmentChoices.includes(storedCommitment)) commitmentChoices.push(storedCommitment);

  return (
    <form ref={form} onSubmit={onSubmit} noValidate className="application-form" data-testid="application-form">
      <FieldErrorText name={FORM_FIELD} errors={formErrors} className="form-error" testId="form-error" />
      {hasFieldErrors && (
        <p className="form-error" data-testid="form-has-field-errors">
          {t('apply.fixFields')}
        </p>
      )}
      {error && <ErrorNotice error={error} />}

      {reply && (
        <fieldset className="form-section reply-section" data-testid="application-reply">
          <legend>{t('application.reply.legend')}</legend>
          {reply.question && (
            <blockquote className="prewrap" dir="auto" data-testid="application-reply-question">
              {reply.question}
            </blockquote>
          )}
          <TextAreaField
            name="reply"
            label={t('application.reply.label')}
            hint={t('application.reply.hint')}
            rows={4}
            value={reply.value}
            onChange={(e) => reply.onChange(e.target.value)}
            errors={at('reply')}
          />
        </fieldset>
      )}

      <fieldset className="form-section">
        <legend>{t('apply.sections.applicant')}</legend>
        <div className="grid-2">
          <FormField
            name="fullName"
            label={t('apply.fullName')}
            autoComplete="name"
            value={draft.fullName}
            onChange={(e) => set('fullName', e.target.value)}
            errors={at('fullName')}
          />
          <FormField
            name="email"
            type="email"
            label={t('apply.email')}
            autoComplete="email"
            value={draft.email}
            onChange={(e) => set('email', e.target.value)}
            errors={at('email')}
          />
          <FormField
            name="company"
            label={t('apply.company')}
            hint={t('apply.companyHint')}
            autoComplete="organization"
            value={draft.company}
            onChange={(e) => set('company', e.target.value)}
            errors={at('company')}
          />
        </div>
      </fieldset>

      <fieldset className="form-section">
        <legend>{t('apply.sections.gpus')}</legend>
        <p className="muted">{t('apply.gpusLead')}</p>
        <FieldErrorText name="gpus" errors={at('gpus')} />
        {modelsError && <ErrorNotice error={modelsError} />}
        {draft.gpus.map((gpu, i) => (
          <GpuEntryFields
            key={gpu.key}
            index={i}
            gpu={gpu}
            models={models}
            onChange={(g) => setGpu(i, g)}
            onRemove={draft.gpus.length > 1 ? () => removeGpu(i) : undefined}
            onRowsChanged={() => setErrors({})}
            errors={errors}
          />
        ))}
        <button type="button" className="button" onClick={addGpu} data-testid="gpu-add">
          {t('apply.gpu.add')}
        </button>
      </fieldset>

      <fieldset className="form-section">
        <legend>{t('apply.sections.infrastructure')}</legend>
        <ChoiceField
          name="upsProtected"
          label={t('apply.ups')}
          hint={t('apply.upsHint')}
          value={draft.upsProtected === null ? null : draft.upsProtected ? 'yes' : 'no'}
          choices={[
            { value: 'yes', label: t('common.yes') },
            { value: 'no', label: t('common.no') },
          ]}
          onChange={(v) => set('upsProtected', v === 'yes')}
          errors={at('upsProtected')}
        />
        <SelectField
          name="commitmentMonths"
          label={t('apply.commitment')}
          hint={t('apply.commitmentHint')}
          value={draft.commitmentMonths}
          onChange={(e) => set('commitmentMonths', e.target.value)}
          errors={at('commitmentMonths')}
        >
          {commitmentChoices.map((m) => (
            <option key={m} value={String(m)}>
              {commitmentText(m)}
            </option>
          ))}
        </SelectField>
        <TextAreaField
          name="maintenanceNotes"
          label={t('apply.maintenanceNotes')}
          hint={t('apply.maintenanceNotesHint')}
          rows={4}
          value={draft.maintenanceNotes}
          onChange={(e) => set('maintenanceNotes', e.target.value)}
          errors={at('maintenanceNotes')}
        />
      </fieldset>

      <div className="actions">
        <button type="submit" className="button primary" disabled={fetching} data-testid="application-submit">
          {fetching ? t('form.working') : submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel} data-testid="application-cancel">
            {t('common.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
