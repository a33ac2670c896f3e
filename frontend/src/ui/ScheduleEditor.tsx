import { useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { PathErrors } from '../api/errors';
import type { AvailabilityKind, UserErrorCode } from '../gql/graphql';
import { ChoiceField, FieldErrorText, SelectField } from './FormField';
import { crossesMidnight, nextDay, nextWindow, newWindow, timeChoices, timeZones, WEEKDAYS, type ScheduleDraft, type WindowDraft } from './schedule';
import './schedule.css';

interface ScheduleEditorProps {
  /** path is the availability's error path (gpus.0.availability, availability); it names the test ids. */
  path: string;
  value: ScheduleDraft;
  onChange: (value: ScheduleDraft) => void;
  /** errors are the form's errors by full path; the editor reads those under path. */
  errors: PathErrors;
  /** crossMidnight lets a window end on the next day (the Pricing tab's schedule). */
  crossMidnight?: boolean;
  /** onRowsChanged is called when windows are added or removed. */
  onRowsChanged?: () => void;
  /** legend names the group; the application form's "Availability" by default. */
  legend?: string;
}

/**
 * ScheduleEditor edits when GPUs can be rented: 24/7, or weekly windows
 * (day, start, end) in an IANA time zone (Intl.supportedValuesOf), shown
 * with the server's errors at each window. With crossMidnight a window may
 * end on the next day, and the row says so ("ends Saturday 08:00").
 */
export function ScheduleEditor({ path: p, value, onChange, errors, crossMidnight = false, onRowsChanged, legend }: ScheduleEditorProps) {
  const { t } = useTranslation();
  const at = (path: string) => errors[path ? `${p}.${path}` : p];
  const zones = useMemo(() => timeZones([value.timeZone]), [value.timeZone]);

  function setKind(kind: AvailabilityKind) {
    // Switching to weekly starts with one window to edit, not an empty list.
    const windows = kind === 'WEEKLY' && value.windows.length === 0 ? [newWindow()] : value.windows;
    onChange({ ...value, kind, windows });
  }

  function setWindow(i: number, w: WindowDraft) {
    onChange({ ...value, windows: value.windows.map((x, j) => (j === i ? w : x)) });
  }

  function addWindow() {
    onChange({ ...value, windows: [...value.windows, nextWindow(value.windows)] });
    onRowsChanged?.();
  }

  function removeWindow(i: number) {
    onChange({ ...value, windows: value.windows.filter((_, j) => j !== i) });
    onRowsChanged?.();
  }

  return (
    <fieldset className="subsection availability" data-testid={`field-${p}`}>
      <legend>{legend ?? t('schedule.availability')}</legend>
      <ChoiceField
        name={`${p}.kind`}
        label={t('schedule.kind')}
        className="inline"
        value={value.kind}
        choices={[
          { value: 'ALWAYS', label: t('schedule.always') },
          { value: 'WEEKLY', label: t('schedule.weekly') },
        ]}
        onChange={setKind}
        errors={at('kind')}
      />
      {value.kind === 'WEEKLY' && (
        <>
          <SelectField
            name={`${p}.timeZone`}
            label={t('schedule.timeZone')}
            hint={t('schedule.timeZoneHint')}
            value={value.timeZone}
            onChange={(e) => onChange({ ...value, timeZone: e.target.value })}
            errors={at('timeZone')}
          >
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </SelectField>
          {crossMidnight && <p className="field-hint">{t('schedule.crossMidnightHint')}</p>}
          <table className="windows">
            <thead>
              <tr>
                <th scope="col">{t('schedule.day')}</th>
                <th scope="col">{t('schedule.start')}</th>
                <th scope="col">{t('schedule.end')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('common.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {value.windows.map((w, i) => {
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
                    crossMidnight={crossMidnight}
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
            {t('schedule.addWindow')}
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
  crossMidnight: boolean;
  onChange: (w: WindowDraft) => void;
  onRemove: () => void;
  startErrors?: UserErrorCode[];
  endErrors?: UserErrorCode[];
  rowErrors: { path: string; code: UserErrorCode }[];
}

/** WindowRow is one weekly window: day, start and end, and its errors. */
function WindowRow({ path, number, window: w, crossMidnight, onChange, onRemove, startErrors, endErrors, rowErrors }: WindowRowProps) {
  const { t } = useTranslation();
  const crosses = crossMidnight && crossesMidnight(w);
  const cell = (label: string, name: string, errors: UserErrorCode[] | undefined, control: ReactNode, note?: ReactNode) => (
    <td data-label={label}>
      <label className="visually-hidden" htmlFor={`${path}-${name}`}>
        {label}
      </label>
      {control}
      {note}
      <FieldErrorText name={`${path}.${name}`} errors={errors} />
    </td>
  );
  // The start and the end are alike: a time of day, shown left to right.
  const timeCell = (edge: 'start' | 'end', label: string, errors: UserErrorCode[] | undefined, note?: ReactNode) =>
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
        {timeChoices(edge, w[edge], crossMidnight).map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>,
      note,
    );

  return (
    <>
      <tr data-testid="window-row" data-crosses-midnight={crosses} className={rowErrors.length > 0 ? 'invalid' : undefined}>
        {cell(
          t('schedule.windowDay', { number }),
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
        {timeCell('start', t('schedule.windowStart', { number }), startErrors)}
        {timeCell(
          'end',
          t('schedule.windowEnd', { number }),
          endErrors,
          crosses && (
            <span className="window-next-day small muted" data-testid="window-next-day">
              {t('schedule.endsNextDay', { day: t(`weekdays.${nextDay(w.day)}`) })}
            </span>
          ),
        )}
        <td>
          <button type="button" className="link-button" onClick={onRemove} aria-label={t('schedule.removeWindow', { number })} data-testid="window-remove">
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
