import type { ApplicationFieldsFragment, AvailabilityKind, ProviderApplicationInput } from '../gql/graphql';
import { browserTimeZone, newKey, type WindowDraft } from '../ui/schedule';

/**
 * The application form edits drafts: what the inputs hold, as strings, so a
 * half-typed number stays as typed. toInput turns a draft into the mutation's
 * input and leaves every judgement to the server, whose userErrors come back
 * by path (gpus.1.availability.windows.0.end) and are shown at that field.
 */

/** OTHER_MODEL is the modelKey of a GPU that is not in the supported list. */
export const OTHER_MODEL = 'OTHER';

/** COMMITMENT_MONTHS are the commitment periods the form offers. */
export const COMMITMENT_MONTHS = [3, 6, 12, 24] as const;

/** GpuDraft is one GPU entry as edited. */
export interface GpuDraft {
  key: string;
  modelKey: string;
  otherModel: string;
  quantity: string;
  ramGb: string;
  uploadGbps: string;
  downloadGbps: string;
  availability: AvailabilityKind;
  timeZone: string;
  windows: WindowDraft[];
  city: string;
  country: string;
  region: string;
}

/** ApplicationDraft is the whole form as edited. */
export interface ApplicationDraft {
  fullName: string;
  email: string;
  company: string;
  gpus: GpuDraft[];
  /** null until the applicant answers yes or no. */
  upsProtected: boolean | null;
  commitmentMonths: string;
  maintenanceNotes: string;
}

/** newGpu is an empty GPU entry, available 24/7 in the browser's zone. */
export function newGpu(): GpuDraft {
  return {
    key: newKey('g'),
    modelKey: '',
    otherModel: '',
    quantity: '1',
    ramGb: '',
    uploadGbps: '',
    downloadGbps: '',
    availability: 'ALWAYS',
    timeZone: browserTimeZone(),
    windows: [],
    city: '',
    country: '',
    region: '',
  };
}

/** emptyDraft starts a new application for the signed-in user. */
export function emptyDraft(user: { name: string; email: string } | null): ApplicationDraft {
  return {
    fullName: user?.name ?? '',
    email: user?.email ?? '',
    company: '',
    gpus: [newGpu()],
    upsProtected: null,
    commitmentMonths: '12',
    maintenanceNotes: '',
  };
}

/**
 * draftFromApplication fills the form with a stored application: for
 * editing it, or, after a rejection, as the start of a new one.
 */
export function draftFromApplication(app: ApplicationFieldsFragment): ApplicationDraft {
  return {
    fullName: app.fullName,
    email: app.email,
    company: app.company ?? '',
    gpus: app.gpus.map((g) => ({
      key: newKey('g'),
      modelKey: g.model?.key ?? OTHER_MODEL,
      otherModel: g.otherModel ?? '',
      quantity: String(g.quantity),
      ramGb: String(g.ramGb),
      uploadGbps: String(g.uploadGbps),
      downloadGbps: String(g.downloadGbps),
      availability: g.availability.kind,
      timeZone: g.availability.timeZone ?? browserTimeZone(),
      windows: g.availability.windows.map((w) => ({ key: newKey('w'), day: w.day, start: w.start, end: w.end })),
      city: g.location.city ?? '',
      country: g.location.country ?? '',
      region: g.location.region ?? '',
    })),
    upsProtected: app.upsProtected,
    commitmentMonths: String(app.commitmentMonths),
    maintenanceNotes: app.maintenanceNotes ?? '',
  };
}

const INT32_MAX = 2_147_483_647;

// A number the server can judge: what was typed, or 0 (out of range, so the
// server names the field) when it is empty or not a number. GraphQL Int is
// 32-bit, so larger values are capped rather than failing the whole request.
function intOf(text: string): number {
  const n = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(n) || !Number.isInteger(n)) return 0;
  return Math.max(-INT32_MAX, Math.min(INT32_MAX, n));
}

function floatOf(text: string): number {
  const n = Number(text.trim().replace(',', '.'));
  return text.trim() === '' || !Number.isFinite(n) ? 0 : n;
}

function optional(text: string): string | null {
  const s = text.trim();
  return s === '' ? null : s;
}

/**
 * toInput turns a draft into ProviderApplicationInput. An unanswered UPS
 * question is sent as null, which the server reports as REQUIRED together
 * with every other problem, so one submit shows them all; a weekly entry
 * sends its zone and windows, a 24/7 entry neither.
 */
export function toInput(draft: ApplicationDraft): ProviderApplicationInput {
  return {
    fullName: draft.fullName,
    email: draft.email,
    company: optional(draft.company),
    gpus: draft.gpus.map((g) => ({
      modelKey: g.modelKey,
      otherModel: g.modelKey === OTHER_MODEL ? optional(g.otherModel) : null,
      quantity: intOf(g.quantity),
      ramGb: intOf(g.ramGb),
      uploadGbps: floatOf(g.uploadGbps),
      downloadGbps: floatOf(g.downloadGbps),
      availability:
        g.availability === 'WEEKLY'
          ? {
              kind: 'WEEKLY',
              timeZone: optional(g.timeZone),
              windows: g.windows.map((w) => ({ day: w.day, start: w.start, end: w.end })),
            }
          : { kind: 'ALWAYS' },
      location: { city: optional(g.city), country: optional(g.country), region: optional(g.region) },
    })),
    upsProtected: draft.upsProtected,
    commitmentMonths: intOf(draft.commitmentMonths),
    maintenanceNotes: optional(draft.maintenanceNotes),
  };
}

/**
 * fieldPaths are the error paths the form shows at a field for this draft;
 * the server's errors on any other path are shown at the top of the form.
 */
export function fieldPaths(draft: ApplicationDraft): Set<string> {
  const paths = new Set([
    'fullName',
    'email',
    'company',
    'gpus',
    'upsProtected',
    'commitmentMonths',
    'maintenanceNotes',
  ]);
  draft.gpus.forEach((g, i) => {
    const p = `gpus.${i}`;
    for (const f of ['modelKey', 'otherModel', 'quantity', 'ramGb', 'uploadGbps', 'downloadGbps', 'location']) {
      paths.add(`${p}.${f}`);
    }
    for (const f of ['city', 'country', 'region']) paths.add(`${p}.location.${f}`);
    for (const f of ['availability', 'availability.kind', 'availability.timeZone', 'availability.windows']) {
      paths.add(`${p}.${f}`);
    }
    g.windows.forEach((_, j) => {
      const w = `${p}.availability.windows.${j}`;
      for (const f of ['', '.day', '.start', '.end']) paths.add(w + f);
    });
  });
  return paths;
}
