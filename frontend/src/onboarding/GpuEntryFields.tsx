import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { PathErrors } from '../api/errors';
import type { GpuModelFieldsFragment } from '../gql/graphql';
import { FieldErrorText, FormField, SelectField } from '../ui/FormField';
import { ScheduleEditor } from '../ui/ScheduleEditor';
import { OTHER_MODEL, type GpuDraft } from './applicationForm';

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

      <ScheduleEditor
        path={`${p}.availability`}
        value={{ kind: gpu.availability, timeZone: gpu.timeZone, windows: gpu.windows }}
        onChange={(a) => onChange({ ...gpu, availability: a.kind, timeZone: a.timeZone, windows: a.windows })}
        onRowsChanged={onRowsChanged}
        errors={errors}
      />

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
