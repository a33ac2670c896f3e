import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, type CombinedError } from 'urql';
import { errorsByPath, FORM_FIELD, splitByKnown, type PathErrors } from '../api/errors';
import type { MaintenanceWindowFieldsFragment, ScheduleFieldsFragment } from '../gql/graphql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { useFormat } from '../ui/format';
import { FieldErrorText } from '../ui/FormField';
import { availabilityInput, draftOf, type ScheduleDraft } from '../ui/schedule';
import { ScheduleEditor } from '../ui/ScheduleEditor';
import { SetAvailabilityScheduleMutation } from './operations';
import { keptMaintenance } from './pricing';

/** schedulePaths are the error paths the editor shows at a field for a draft. */
function schedulePaths(d: ScheduleDraft): Set<string> {
  const paths = new Set(['availability', 'availability.kind', 'availability.timeZone', 'availability.windows']);
  d.windows.forEach((_, i) => {
    for (const f of ['', '.day', '.start', '.end']) paths.add(`availability.windows.${i}${f}`);
  });
  return paths;
}

/**
 * ScheduleCard shows whether the GPUs are offered now and when that
 * changes, and edits the weekly schedule (24/7, or windows in a time zone
 * that may cross midnight). Saving sends the planned maintenance again, as
 * the mutation replaces it.
 */
export function ScheduleCard({ schedule, maintenance }: { schedule: ScheduleFieldsFragment; maintenance: readonly MaintenanceWindowFieldsFragment[] }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [draft, setDraft] = useState<ScheduleDraft>(() => draftOf(schedule.availability));
  const [errors, setErrors] = useState<PathErrors>({});
  const [failure, setFailure] = useState<CombinedError | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const [result, save] = useMutation(SetAvailabilityScheduleMutation);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    const res = await save({ input: { availability: availabilityInput(draft), maintenance: keptMaintenance(maintenance, Date.now()) } });
    setFailure(res.error);
    const payload = res.data?.setAvailabilitySchedule;
    if (!payload) return;
    const errs = splitByKnown(errorsByPath(payload.userErrors), schedulePaths(draft));
    setErrors(errs);
    if (payload.userErrors.length === 0) setSaved(true);
  }

  const zone = schedule.availability.timeZone;
  return (
    <section className="card" aria-labelledby="pricing-schedule" data-testid="pricing-schedule" data-open-now={schedule.openNow}>
      <h2 id="pricing-schedule">{t('pricing.schedule.title')}</h2>
      <p className="muted">{t('pricing.schedule.lead')}</p>
      <p className="schedule-now" data-testid="schedule-now">
        <span className={`status ${schedule.openNow ? 'rental-running' : 'rental-failed'}`}>{schedule.openNow ? t('pricing.schedule.open') : t('pricing.schedule.closed')}</span>{' '}
        <span data-testid="schedule-next-change">
          {schedule.nextChangeAt
            ? t(schedule.openNow ? 'pricing.schedule.closesAt' : 'pricing.schedule.opensAt', { at: f.dateTime(schedule.nextChangeAt) })
            : t('pricing.schedule.noChange')}
        </span>
      </p>
      {schedule.availability.kind === 'WEEKLY' && zone && <p className="muted small">{t('pricing.schedule.zoneNote', { zone })}</p>}
      <form onSubmit={(e) => void onSubmit(e)} noValidate>
        <ScheduleEditor path="availability" legend={t('pricing.schedule.legend')} value={draft} onChange={setDraft} errors={errors} />
        <FieldErrorText name={FORM_FIELD} errors={errors[FORM_FIELD]} className="form-error" testId="schedule-form-error" />
        {failure && <ErrorNotice error={failure} />}
        <button type="submit" className="button primary" disabled={result.fetching} data-testid="schedule-save">
          {t('pricing.schedule.save')}
        </button>
        {saved && (
          <p className="price-saved" role="status" data-testid="schedule-saved">
            {t('pricing.schedule.saved')}
          </p>
        )}
      </form>
    </section>
  );
}
