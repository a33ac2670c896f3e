import { useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { PathErrors } from '../api/errors';
import type { AvailabilityKind, GpuModelFieldsFragment, UserErrorCode } from '../gql/graphql';
import { ChoiceField, FieldErrorText, FormField, SelectField } from '../ui/FormField';
import { newWindow, OTHER_MODEL, timeChoices, timeZones, WEEKDAYS, type GpuDraft, type WindowDraft } from './applicationForm';

interface GpuEntryFieldsProps {
  index: number;
  gpu: GpuDraft;
  /** models are the supported GPU models (supportedGpuModels). */
  models: readonly GpuModelFieldsFragment[];
  onChange: (gpu: GpuDraft) => void;
  /** onRemove is absent for the only entry: an application has at least one. */
  onRemove?: () => void;
  /** onRowsChanged is called when windows are added or removed. */
  onRowsChanged: () => void;
  errors: PathErrors;
}

/** familiesOf groups the supported models by family, in catalogue order. */
function familiesOf(models: readonly GpuModelFieldsFragment[]): [string, GpuModelFieldsFragment[]][] {
  const families = new Map<string, GpuModelFieldsFragment[]>();
  for (const m of models) {
    const list = families.get(m.family) ?? [];
    list.push(m);
    families.set(m.family, list);
  }
  return [...families];
}

/**
 * GpuEntryFields is one GPU entry of the application: model (supported,
 * grouped by family, or another one named in free text), quantity, memory,
 * bandwidth, availability and location. Field names are the server's error
 * paths (gpus.0.quantity), which are also the test ids.
 */
export function GpuEntryFields({ index, gpu, models, onChange, onRemove, onRowsChanged, errors }: GpuEntryFieldsProps) {
  const { t } = useTranslation();
  const families = useMemo(() => familiesOf(models), [models]);
  const p = `gpus.${index}`;
  const at = (path: string) => errors[`${p}.${path}`];
  const set = <K extends keyof GpuDraft>(key: K, value: GpuDraft[K]) => onChange({ ...gpu, [key]: value });

  return (
    <fieldset className="gpu-entry" data-testid="gpu-entry" data-index={index}>
      <legend>{t('apply.gpu.legend', { number: index + 1 })}</legend>
      <div className="grid-2">
        <SelectField
          name={`${p}.modelKey`}
          label={t('apply.gpu.model')}
          value={gpu.modelKey}
          onChange={(e) => set('modelKey', e.target.value)}
          errors={at('modelKey')}
        >
          <option value="">{t('apply.gpu.chooseModel')}</option>
          {families.map(([family, models]) => (
            <optgroup key={family} label={family}>
              {models.map((m) => (
                <option key={m.key} value={m.key}>
                  {m.name}
                </option>
              ))}
            </optgroup>
          ))}
          <optgroup label={t('apply.gpu.otherGroup')}>
            <option value={OTHER_MODEL}>{t('apply.gpu.otherOption')}</option>
          </optgroup>
        </SelectField>
        {gpu.modelKey === OTHER_MODEL && (
          <FormField
            name={`${p}.otherModel`}
            label={t('apply.gpu.otherModel')}
            hint={t('apply.gpu.otherModelHint')}
            value={gpu.otherModel}
            onChange={(e) => set('otherModel', e.target.value)}
            errors={at('otherModel')}
          />
        )}
      </div>
      <div className="grid-4">
        <FormField
          name={`${p}.quantity`}
          type="number"
          inputMode="numeric"
          min={1}
          max={10000}
          step={1}
          label={t('apply.gpu.quantity')}
          value={gpu.quantity}
          onChange={(e) => set('quantity', e.target.value)}
          errors={at('quantity')}
        />
        <FormField
          name={`${p}.ramGb`}
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          label={t('apply.gpu.ramGb')}
          value={gpu.ramGb}
          onChange={(e) => set('ramGb', e.target.value)}
          errors={at('ramGb')}
        />
        <FormField
          name={`${p}.uploadGbps`}
          type="number"
          inputMode="decimal"
          min={0}
          step="any"
          label={t('apply.gpu.uploadGbps')}
          value={gpu.uploadGbps}
          onChange={(e) => set('uploadGbps', e.target.value)}
          errors={at('uploadGbps')}
        />
        <FormField
          name={`${p}.downloadGbps`}
          type="number"
          inputMode="decimal"
          min={0}
          step="any"
          label={t('apply.gpu.downloadGbps')}
          value={gpu.downloadGbps}
          onChange={(e) => set('downloadGbps', e.target.value)}
          errors={at('downloadGbps')}
        />
      </div>

      <AvailabilityFields index={index} gpu={gpu} onChange={onChange} onRowsChanged={onRowsChanged} errors={errors} />

      <fieldset className="subsection" data-testid={`field-${p}.location`}>
        <legend>{t('apply.gpu.location')}</legend>
        <p className="field-hint">{t('apply.gpu.locationHint')}</p>
        <div className="grid-3">
          <FormField
            name={`${p}.location.city`}
            label={t('apply.gpu.city')}
            value={gpu.city}
            onChange={(e) => set('city', e.target.value)}
            errors={at('location.city')}
          />
          <FormField
            name={`${p}.location.country`}
            label={t('apply.gpu.country')}
            autoComplete="country-name"
            value={gpu.country}
            onChange={(e) => set('country', e.target.value)}
            errors={at('location.country')}
          />
          <FormField
            name={`${p}.location.region`}
            label={t('apply.gpu.region')}
            hint={t('apply.gpu.regionHint')}
            value={gpu.region}
            onChange={(e) => set('region', e.target.value)}
            errors={at('location.region')}
          />
        </div>
        <FieldErrorText name={`${p}.location`} errors={at('location')} />
      </fieldset>

      {onRemove && (
        <button type="button" className="button danger-outline" onClick={onRemove} data-testid="gpu-remove">
          {t('apply.gpu.remove', { number: index + 1 })}
        </button>
      )}
    </fieldset>
  );
}

interface AvailabilityFieldsProps {
  index: number;
  gpu: GpuDraft;
  onChange: (gpu: GpuDraft) => void;
  onRowsChanged: () => void;
  errors: PathErrors;
}

/**
 * AvailabilityFields edits when an entry's GPUs can be rented: 24/7, or
 * weekly windows (day, start, end) in an IANA time zone that defaults to the
 * browser's.
 */
function AvailabilityFields({ index, gpu, onChange, onRowsChanged, errors }: AvailabilityFieldsProps) {
  const { t } = useTranslation();
  const p = `gpus.${index}.availability`;
  const at = (path: string) => errors[path ? `${p}.${path}` : p];
  const zones = useMemo(() => timeZones([gpu.timeZone]), [gpu.timeZone]);

  function setKind(kind: AvailabilityKind) {
    // Switching to weekly starts with one window to edit, not an empty list.
    const windows = kind === 'WEEKLY' && gpu.windows.length === 0 ? [newWindow()] : gpu.windows;
    onChange({ ...gpu, availability: kind, windows });
  }

  function setWindow(i: number, w: WindowDraft) {
    onChange({ ...gpu, windows: gpu.windows.map((x, j) => (j === i ? w : x)) });
  }

  function addWindow() {
    // The next row defaults to the day after the last one: Mon, Tue, …
    const last = gpu.windows[gpu.windows.length - 1];
    const next = last ? WEEKDAYS[(WEEKDAYS.indexOf(last.day) + 1) % WEEKDAYS.length] : undefined;
    const w = newWindow(next);
    if (last) {
      w.start = last.start;
      w.end = last.end;
    }
    onChange({ ...gpu, windows: [...gpu.windows, w] });
    onRowsChanged();
  }

  function removeWindow(i: number) {
    onChange({ ...gpu, windows: gpu.windows.filter((_, j) => j !== i) });
    onRowsChanged();
  }

  return (
    <fieldset className="subsection availability" data-testid={`field-${p}`}>
      <legend>{t('apply.gpu.availability')}</legend>
      <ChoiceField
        name={`${p}.kind`}
        label={t('apply.gpu.availabilityKind')}
        className="inline"
        value={gpu.availability}
        choices={[
          { value: 'ALWAYS', label: t('apply.gpu.always') },
          { value: 'WEEKLY', label: t('apply.gpu.weekly') },
        ]}
        onChange={setKind}
        errors={at('kind')}
      />
      {gpu.availability === 'WEEKLY' && (
        <>
          <SelectField
            name={`${p}.timeZone`}
            label={t('apply.gpu.timeZone')}
            hint={t('apply.gpu.timeZoneHint')}
            value={gpu.timeZone}
            onChange={(e) => onChange({ ...gpu, timeZone: e.target.value })}
            errors={at('timeZone')}
          >
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </SelectField>
          <table className="windows">
            <thead>
              <tr>
                <th scope="col">{t('apply.gpu.day')}</th>
                <th scope="col">{t('apply.gpu.start')}</th>
                <th scope="col">{t('apply.gpu.end')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('common.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {gpu.windows.map((w, i) => {
                const wp = `windows.${i}`;
                const rowErrors = [
                  ...(at(wp) ?? []).map((code) => ({ path: `${p}.${wp}`, code })),
                  ...(at(`${wp}.day`) ?? []).map((code) => ({ path: `${p}.${wp}.day`, code })),
                ];
                return (
                  <WindowRow
                    key={w.key}
                    path={`${p}.${wp}`}
                    number={i + 1}
                    window={w}
                    onChange={(x) => setWindow(i, x)}
                    onRemove={() => removeWindow(i)}
                    startErrors={at(`${wp}.start`)}
                    endErrors={at(`${wp}.end`)}
                    rowErrors={rowErrors}
                  />
                );
              })}
            </tbody>
          </table>
          <FieldErrorText name={`${p}.windows`} errors={at('windows')} />
          <button type="button" className="button small" onClick={addWindow} data-testid="window-add">
            {t('apply.gpu.addWindow')}
          </button>
        </>
      )}
      <FieldErrorText name={p} errors={at('')} />
    </fieldset>
  );
}

interface WindowRowProps {
  path: string;
  number: number;
  window: WindowDraft;
  onChange: (w: WindowDraft) => void;
  onRemove: () => void;
  startErrors?: UserErrorCode[];
  endErrors?: UserErrorCode[];
  rowErrors: { path: string; code: UserErrorCode }[];
}

/** WindowRow is one weekly window: day, start and end, and its errors. */
function WindowRow({ path, number, window: w, onChange, onRemove, startErrors, endErrors, rowErrors }: WindowRowProps) {
  const { t } = useTranslation();
  const cell = (label: string, name: string, errors: UserErrorCode[] | undefined, control: ReactNode) => (
    <td>
      <label className="visually-hidden" htmlFor={`${path}-${name}`}>
        {label}
      </label>
      {control}
      <FieldErrorText name={`${path}.${name}`} errors={errors} />
    </td>
  );
  // The start and the end are alike: a time of day, shown left to right.
  const timeCell = (edge: 'start' | 'end', label: string, errors: UserErrorCode[] | undefined) =>
    cell(
      label,
      edge,
      errors,
      <select
        id={`${path}-${edge}`}
        className="control"
        value={w[edge]}
        aria-invalid={(errors && errors.length > 0) || undefined}
        onChange={(e) => onChange({ ...w, [edge]: e.target.value })}
        data-testid={`field-${path}.${edge}`}
        dir="ltr"
      >
        {timeChoices(edge, w[edge]).map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>,
    );

  return (
    <>
      <tr data-testid="window-row" className={rowErrors.length > 0 ? 'invalid' : undefined}>
        {cell(
          t('apply.gpu.windowDay', { number }),
          'day',
          undefined,
          <select
            id={`${path}-day`}
            className="control"
            value={w.day}
            onChange={(e) => onChange({ ...w, day: e.target.value as WindowDraft['day'] })}
            data-testid={`field-${path}.day`}
          >
            {WEEKDAYS.map((d) => (
              <option key={d} value={d}>
                {t(`weekdays.${d}`)}
              </option>
            ))}
          </select>,
        )}
        {timeCell('start', t('apply.gpu.windowStart', { number }), startErrors)}
        {timeCell('end', t('apply.gpu.windowEnd', { number }), endErrors)}
        <td>
          <button
            type="button"
            className="link-button"
            onClick={onRemove}
            aria-label={t('apply.gpu.removeWindow', { number })}
            data-testid="window-remove"
          >
            {t('common.remove')}
          </button>
        </td>
      </tr>
      {rowErrors.length > 0 && (
        <tr className="window-errors">
          <td colSpan={4}>
            {rowErrors.map((e, i) => (
              <FieldErrorText key={i} name={e.path} errors={[e.code]} />
            ))}
          </td>
        </tr>
      )}
    </>
  );
}
