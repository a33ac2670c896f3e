import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, type CombinedError } from 'urql';
import { errorsByPath, FORM_FIELD, type PathErrors } from '../api/errors';
import type { MaintenanceWindowFieldsFragment, ScheduleFieldsFragment } from '../gql/graphql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate } from '../ui/format';
import { FieldErrorText, FormField, SelectField } from '../ui/FormField';
import { availabilityInput, browserTimeZone, draftOf } from '../ui/schedule';
import { SetAvailabilityScheduleMutation } from './operations';
import { keptMaintenance, zonedToIso } from './pricing';

interface MaintenanceCardProps {
  schedule: ScheduleFieldsFragment;
  maintenance: readonly MaintenanceWindowFieldsFragment[];
  machines: readonly { id: string; hostname: string }[];
}

const FIELDS = ['startsAt', 'endsAt', 'machineId', 'note'] as const;

/**
 * MaintenanceCard lists the planned maintenance windows (the GPUs are not
 * offered during them, and they do not count against reliability), adds one
 * for a machine or all, and removes one not started yet. Times are typed
 * and shown in the schedule's time zone when it has one, otherwise in the
 * browser's, and the form says which.
 */
export function MaintenanceCard({ schedule, maintenance, machines }: MaintenanceCardProps) {
  const { t, i18n } = useTranslation();
  const scheduleZone = schedule.availability.kind === 'WEEKLY' ? schedule.availability.timeZone : null;
  const zone = scheduleZone ?? browserTimeZone();
  const format = useMemo(() => new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }), [i18n.language, zone]);
  const at = (iso: string) => isolate(format.format(new Date(iso)));
  const hostname = (id: string | null | undefined) => (id ? (machines.find((m) => m.id === id)?.hostname ?? id) : null);

  const [startsAt, setStartsAt] = useState('');
  const [endsAt, setEndsAt] = useState('');
  const [machineId, setMachineId] = useState('');
  const [note, setNote] = useState('');
  const [errors, setErrors] = useState<PathErrors>({});
  const [failure, setFailure] = useState<CombinedError | undefined>(undefined);
  const [result, save] = useMutation(SetAvailabilityScheduleMutation);

  // The schedule is sent as stored: this card changes only the maintenance.
  const availability = availabilityInput(draftOf(schedule.availability));

  async function onAdd(e: FormEvent) {
    e.preventDefault();
    const local: PathErrors = {};
    const start = zonedToIso(startsAt, zone);
    const end = zonedToIso(endsAt, zone);
    if (!start) local.startsAt = ['REQUIRED'];
    if (!end) local.endsAt = ['REQUIRED'];
    if (start && end && Date.parse(end) <= Date.parse(start)) local.endsAt = ['EMPTY_WINDOW'];
    setErrors(local);
    if (!start || !end || Object.keys(local).length > 0) return;
    const kept = keptMaintenance(maintenance, Date.now());
    const n = kept.length;
    const trimmed = note.trim();
    const res = await save({
      input: { availability, maintenance: [...kept, { machineId: machineId || null, startsAt: start, endsAt: end, note: trimmed === '' ? null : trimmed }] },
    });
    setFailure(res.error);
    const payload = res.data?.setAvailabilitySchedule;
    if (!payload) return;
    const out: PathErrors = {};
    for (const [path, codes] of Object.entries(errorsByPath(payload.userErrors))) {
      const field = FIELDS.find((f) => path === `maintenance.${n}.${f}`) ?? (path === `maintenance.${n}` ? 'endsAt' : FORM_FIELD);
      (out[field] ??= []).push(...codes);
    }
    setErrors(out);
    if (payload.userErrors.length === 0) {
      setStartsAt('');
      setEndsAt('');
      setNote('');
    }
  }

  async function onRemove(id: string) {
    const res = await save({ input: { availability, maintenance: keptMaintenance(maintenance, Date.now(), id) } });
    setFailure(res.error);
    const payload = res.data?.setAvailabilitySchedule;
    if (payload && payload.userErrors.length > 0) setErrors({ [FORM_FIELD]: payload.userErrors.map((u) => u.code) });
  }

  const zoneText = scheduleZone ? t('pricing.maintenance.inScheduleZone', { zone }) : t('pricing.maintenance.inBrowserZone', { zone });
  const now = Date.now();
  return (
    <section className="card" aria-labelledby="pricing-maintenance" data-testid="pricing-maintenance" data-zone={zone}>
      <h2 id="pricing-maintenance">{t('pricing.maintenance.title')}</h2>
      <p className="muted">{t('pricing.maintenance.lead')}</p>
      {maintenance.length === 0 ? (
        <p data-testid="maintenance-none">{t('pricing.maintenance.none')}</p>
      ) : (
        <ul className="plain maintenance-list">
          {maintenance.map((w) => {
            const started = Date.parse(w.startsAt) <= now;
            return (
              <li key={w.id} className="maintenance-item" data-testid="maintenance-item" data-id={w.id}>
                <span className="maintenance-when">{t('pricing.maintenance.when', { start: at(w.startsAt), end: at(w.endsAt) })}</span>
                <span className="muted">
                  {hostname(w.machineId) ? t('pricing.maintenance.machine', { hostname: isolate(hostname(w.machineId) ?? '') }) : t('pricing.maintenance.allMachines')}
                </span>
                {w.note && (
                  <span className="maintenance-note" dir="auto">
                    {w.note}
                  </span>
                )}
                {started ? (
                  <span className="status rental-starting">{t('pricing.maintenance.underWay')}</span>
                ) : (
                  <button type="button" className="link-button" onClick={() => void onRemove(w.id)} disabled={result.fetching} data-testid="maintenance-remove">
                    {t('common.remove')}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <form className="maintenance-form" onSubmit={(e) => void onAdd(e)} noValidate>
        <h3>{t('pricing.maintenance.add')}</h3>
        <p className="field-hint" data-testid="maintenance-zone">
          {zoneText}
        </p>
        <div className="grid-2">
          <FormField name="startsAt" type="datetime-local" label={t('pricing.maintenance.startsAt')} value={startsAt} onChange={(e) => setStartsAt(e.target.value)} errors={errors.startsAt} />
          <FormField name="endsAt" type="datetime-local" label={t('pricing.maintenance.endsAt')} value={endsAt} onChange={(e) => setEndsAt(e.target.value)} errors={errors.endsAt} />
          <SelectField name="machineId" label={t('pricing.maintenance.machineLabel')} value={machineId} onChange={(e) => setMachineId(e.target.value)} errors={errors.machineId}>
            <option value="">{t('pricing.maintenance.allMachines')}</option>
            {machines.map((m) => (
              <option key={m.id} value={m.id}>
                {m.hostname}
              </option>
            ))}
          </SelectField>
          <FormField name="note" label={t('pricing.maintenance.note')} value={note} onChange={(e) => setNote(e.target.value)} errors={errors.note} />
        </div>
        <FieldErrorText name={FORM_FIELD} errors={errors[FORM_FIELD]} className="form-error" testId="maintenance-form-error" />
        {failure && <ErrorNotice error={failure} />}
        <button type="submit" className="button primary" disabled={result.fetching} data-testid="maintenance-add">
          {t('pricing.maintenance.addButton')}
        </button>
      </form>
    </section>
  );
}
