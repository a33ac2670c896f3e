import { useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { PathErrors } from '../api/errors';
import type { AvailabilityKind, UserErrorCode } from '../gql/graphql';
import { DataTable } from './DataTable';
import { ChoiceField, FieldErrorText, SelectField } from './FormField';
import { crossesMidnight, emptyWindow, nextDay, nextWindow, newWindow, timeChoices, timeZones, WEEKDAYS, type ScheduleDraft, type WindowDraft } from './schedule';
import './schedule.css';

interface ScheduleEditorProps {
  /** path is the availability's error path (gpus.0.availability, availability); it names the test ids. */
  path: string;
  value: ScheduleDraft;
  onChange: (value: ScheduleDraft) => void;
  /** errors are the form's errors by full path; the editor reads those under path. */
  errors: PathErrors;
  /** onRowsChanged is called when windows are added or removed. */
  onRowsChanged?: () => void;
  /** legend names the group; the application form's "Availability" by default. */
  legend?: string;
}

/**
 * ScheduleEditor edits when GPUs can be rented: 24/7, or weekly windows
 * (day, start, end) in an IANA time zone (Intl.supportedValuesOf), shown
 * with the server's errors at each window, in a DataTable (a card per
 * window on a phone, its Remove button inside the card). The windows follow
 * the server's rules (internal/availability, as schedule.ts reads them): a
 * window may end on the next day (Friday 20:00–08:00), and the row says so
 * ("ends Saturday"); one that ends when it starts shows the server's
 * EMPTY_WINDOW at its end before it is sent.
 */
export function ScheduleEditor({ path: p, value, onChange, errors, onRowsChanged, legend }: ScheduleEditorProps) {
  const { t } = useTranslation();
  const at = (path: string) => errors[path ? `${p}.${path}` : p];
  const zones = useMemo(() => timeZones([value.timeZone]), [value.timeZone]);
  // A window's own problems (an overlap, a bad day) are shown under its day.
  const rowErrorsAt = (i: number) => [
    ...(at(`windows.${i}`) ?? []).map((code) => ({ path: `${p}.windows.${i}`, code })),
    ...(at(`windows.${i}.day`) ?? []).map((code) => ({ path: `${p}.windows.${i}.day`, code })),
  ];
  // An empty window is refused by the server as EMPTY_WINDOW at its end:
  // said there at once, and once when the server says it too.
  const endErrorsAt = (i: number, w: WindowDraft): UserErrorCode[] | undefined => {
    const server = at(`windows.${i}.end`);
    if (!emptyWindow(w) || server?.includes('EMPTY_WINDOW')) return server;
    return [...(server ?? []), 'EMPTY_WINDOW'];
  };

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
          <p className="field-hint">{t('schedule.crossMidnightHint')}</p>
          <DataTable
            caption={t('schedule.windowsCaption')}
            className="windows"
            rows={value.windows.map((w, i) => ({ w, i }))}
            rowKey={({ w }) => w.key}
            rowClassName={({ i }) => (rowErrorsAt(i).length > 0 ? 'invalid' : undefined)}
            rowProps={({ w }) => ({ 'data-testid': 'window-row', 'data-crosses-midnight': crossesMidnight(w) })}
            columns={[
              {
                key: 'day',
                header: t('schedule.day'),
                primary: true,
                cell: ({ w, i }) => (
                  <WindowCell path={`${p}.windows.${i}`} name="day" label={t('schedule.windowDay', { number: i + 1 })}>
                    <select
                      id={`${p}.windows.${i}-day`}
                      className="control"
                      value={w.day}
                      onChange={(e) => setWindow(i, { ...w, day: e.target.value as WindowDraft['day'] })}
                      data-testid={`field-${p}.windows.${i}.day`}
                    >
                      {WEEKDAYS.map((d) => (
                        <option key={d} value={d}>
                          {t(`weekdays.${d}`)}
                        </option>
                      ))}
                    </select>
                    {rowErrorsAt(i).map((e, k) => (
                      <FieldErrorText key={k} name={e.path} errors={[e.code]} />
                    ))}
                  </WindowCell>
                ),
              },
              {
                key: 'start',
                header: t('schedule.start'),
                cell: ({ w, i }) => (
                  <TimeSelect
                    path={`${p}.windows.${i}`}
                    edge="start"
                    label={t('schedule.windowStart', { number: i + 1 })}
                    window={w}
                    errors={at(`windows.${i}.start`)}
                    onChange={(x) => setWindow(i, x)}
                  />
                ),
              },
              {
                key: 'end',
                header: t('schedule.end'),
                cell: ({ w, i }) => (
                  <TimeSelect
                    path={`${p}.windows.${i}`}
                    edge="end"
                    label={t('schedule.windowEnd', { number: i + 1 })}
                    window={w}
                    errors={endErrorsAt(i, w)}
                    onChange={(x) => setWindow(i, x)}
                    note={
                      crossesMidnight(w) ? (
                        <span className="window-next-day small muted" data-testid="window-next-day">
                          {t('schedule.endsNextDay', { day: t(`weekdays.${nextDay(w.day)}`) })}
                        </span>
                      ) : undefined
                    }
                  />
                ),
              },
              {
                key: 'remove',
                header: t('common.actions'),
                actions: true,
                cell: ({ i }) => (
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => removeWindow(i)}
                    aria-label={t('schedule.removeWindow', { number: i + 1 })}
                    data-testid="window-remove"
                  >
                    {t('common.remove')}
                  </button>
                ),
              },
            ]}
          />
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

/** WindowCell is a window's control with its visually hidden label ("Window 2: day"). */
function WindowCell({ path, name, label, children }: { path: string; name: string; label: string; children: ReactNode }) {
  return (
    <>
      <label className="visually-hidden" htmlFor={`${path}-${name}`}>
        {label}
      </label>
      {children}
    </>
  );
}

interface TimeSelectProps {
  path: string;
  edge: 'start' | 'end';
  label: string;
  window: WindowDraft;
  errors?: UserErrorCode[];
  onChange: (w: WindowDraft) => void;
  note?: ReactNode;
}

/** TimeSelect is a window's start or end: a time of day, shown left to right, with its errors. */
function TimeSelect({ path, edge, label, window: w, errors, onChange, note }: TimeSelectProps) {
  return (
    <WindowCell path={path} name={edge} label={label}>
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
      </select>
      {note}
      <FieldErrorText name={`${path}.${edge}`} errors={errors} />
    </WindowCell>
  );
}
