import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Weekday } from '../gql/graphql';
import { DataTable } from '../ui/DataTable';
import { WEEKDAYS } from '../ui/schedule';
import { WindowText } from './WindowText';
import { useCommitmentText } from './commitment';

/** FieldChange is one answer a resubmission changed (ApplicationFieldChange). */
export interface FieldChange {
  field: string;
  before?: string | null;
  after?: string | null;
}

/** GPU_FIELDS name a GPU entry's answers by their path after gpus.N. */
const GPU_FIELDS: Record<string, string> = {
  model: 'apply.gpu.model',
  quantity: 'apply.gpu.quantity',
  ramGb: 'apply.gpu.ramGb',
  uploadGbps: 'apply.gpu.uploadGbps',
  downloadGbps: 'apply.gpu.downloadGbps',
  'availability.kind': 'apply.gpu.availability',
  'availability.timeZone': 'schedule.timeZone',
  'availability.windows': 'schedule.weekly',
  'location.city': 'apply.gpu.city',
  'location.country': 'apply.gpu.country',
  'location.region': 'apply.gpu.region',
};

/** FIELDS name the application's own answers by path. */
const FIELDS: Record<string, string> = {
  fullName: 'apply.fullName',
  email: 'apply.email',
  company: 'application.company',
  upsProtected: 'apply.ups',
  commitmentMonths: 'apply.commitment',
  maintenanceNotes: 'apply.maintenanceNotes',
};

/**
 * fieldLabel names an answer by its path as the form labels it: "GPU entry
 * 2 · System RAM (GB)" for gpus.1.ramGb; an unknown path is shown as is.
 */
export function fieldLabel(t: TFunction, field: string): string {
  const gpu = /^gpus\.(\d+)\.(.+)$/.exec(field);
  if (gpu) {
    const key = GPU_FIELDS[gpu[2] ?? ''];
    const entry = t('apply.gpu.legend', { number: Number(gpu[1]) + 1 });
    return key ? `${entry} · ${t(key as 'apply.gpu.model')}` : `${entry} · ${gpu[2]}`;
  }
  const key = FIELDS[field];
  return key ? t(key as 'apply.fullName') : field;
}

/** windowsOf reads the text of availability.windows ("MONDAY 20:00-08:00, …"). */
export function windowsOf(text: string): { day: Weekday; start: string; end: string }[] | null {
  const out: { day: Weekday; start: string; end: string }[] = [];
  for (const part of text.split(', ')) {
    const m = /^([A-Z]+) (\d\d:\d\d)-(\d\d:\d\d)$/.exec(part);
    if (!m || !(WEEKDAYS as readonly string[]).includes(m[1] ?? '')) return null;
    out.push({ day: m[1] as Weekday, start: m[2] ?? '', end: m[3] ?? '' });
  }
  return out;
}

/** AnswerValue shows one side of a change in the reader's language. */
function AnswerValue({ field, value }: { field: string; value: string | null | undefined }) {
  const { t } = useTranslation();
  const commitmentText = useCommitmentText();
  if (value == null) return <span className="muted">{t('application.changes.none')}</span>;
  let shown: ReactNode = <bdi dir="auto">{value}</bdi>;
  if (field === 'upsProtected') shown = value === 'true' ? t('common.yes') : t('common.no');
  else if (field === 'commitmentMonths' && /^\d+$/.test(value)) shown = commitmentText(Number(value));
  else if (field.endsWith('.availability.kind')) shown = value === 'ALWAYS' ? t('schedule.always') : t('schedule.weekly');
  else if (field.endsWith('.availability.windows')) {
    const windows = windowsOf(value);
    if (windows) {
      shown = (
        <ul className="plain">
          {windows.map((w, i) => (
            <li key={i}>
              <WindowText {...w} />
            </li>
          ))}
        </ul>
      );
    }
  }
  return <span className="prewrap">{shown}</span>;
}

/**
 * AnswerChanges lists, field by field, what a resubmission changed: the
 * answer's name, before and after. Admins read it beside the applicant's
 * reply.
 */
export function AnswerChanges({ changes }: { changes: readonly FieldChange[] }) {
  const { t } = useTranslation();
  if (changes.length === 0) {
    return (
      <p className="muted small" data-testid="answer-changes-none">
        {t('application.changes.noChange')}
      </p>
    );
  }
  return (
    <DataTable
      caption={t('application.changes.caption')}
      className="answer-changes"
      testId="answer-changes"
      rows={changes}
      rowKey={(c) => c.field}
      rowProps={(c) => ({ 'data-testid': 'answer-change', 'data-field': c.field })}
      columns={[
        { key: 'field', header: t('application.changes.field'), primary: true, cell: (c) => fieldLabel(t, c.field) },
        {
          key: 'before',
          header: t('application.changes.before'),
          cell: (c) => <AnswerValue field={c.field} value={c.before} />,
          cellProps: () => ({ 'data-testid': 'answer-change-before' }),
        },
        {
          key: 'after',
          header: t('application.changes.after'),
          cell: (c) => <AnswerValue field={c.field} value={c.after} />,
          cellProps: () => ({ 'data-testid': 'answer-change-after' }),
        },
      ]}
    />
  );
}
