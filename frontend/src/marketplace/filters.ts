import type { PathErrors, UserErrorLike } from '../api/errors';
import type { ListingFieldsFragment, MarketplaceFilter, MarketplaceSort, ProviderTier, StartRentalInput } from '../gql/graphql';
import { parseUsdcInput } from '../ui/usdc';
import { isCountryCode } from './countries';

// The pure half of the Marketplace page: the filter form as typed (kept in
// the address, so a search can be shared and survives a reload) and the
// query's variables made from it; the Rent dialog as typed and the
// startRental input made from it. Problems found before sending are
// PathErrors named as the server names its userErrors.

/** PAGE_SIZE is how many listings a page asks for ("Load more" asks for the next as many). */
export const PAGE_SIZE = 20;

/** SORTS are the orders offered, the documented ranking first. */
export const SORTS: readonly MarketplaceSort[] = ['RANK', 'PRICE', 'PERFORMANCE_PER_DOLLAR'];

/** TIERS are the tiers a customer may ask for. */
export const TIERS: readonly ProviderTier[] = ['ENTERPRISE', 'COMMUNITY'];

/** FilterDraft is the filter form as typed; every field may be empty. */
export interface FilterDraft {
  model: string;
  country: string;
  region: string;
  minVramGb: string;
  minGpus: string;
  maxPricePerHour: string;
  minPerformance: string;
  minReliability: string;
  tier: string;
}

/** FILTER_FIELDS are FilterDraft's fields, in the form's order; they are also the address's parameters. */
export const FILTER_FIELDS: readonly (keyof FilterDraft)[] = [
  'model',
  'country',
  'region',
  'minVramGb',
  'minGpus',
  'maxPricePerHour',
  'minPerformance',
  'minReliability',
  'tier',
];

/** emptyFilter is the form with nothing asked. */
export const emptyFilter: FilterDraft = {
  model: '',
  country: '',
  region: '',
  minVramGb: '',
  minGpus: '',
  maxPricePerHour: '',
  minPerformance: '',
  minReliability: '',
  tier: '',
};

/** Search is what the page asks for: a filter and an order. */
export interface Search {
  filter: FilterDraft;
  sort: MarketplaceSort;
}

/** searchFromParams reads a search from the address (?model=…&sort=PRICE); unknown values are dropped. */
export function searchFromParams(params: URLSearchParams): Search {
  const filter = { ...emptyFilter };
  for (const f of FILTER_FIELDS) filter[f] = params.get(f) ?? '';
  const sort = params.get('sort');
  return { filter, sort: SORTS.includes(sort as MarketplaceSort) ? (sort as MarketplaceSort) : 'RANK' };
}

/** paramsOf writes a search to the address, leaving out what is empty and the default order. */
export function paramsOf(search: Search): URLSearchParams {
  const params = new URLSearchParams();
  for (const f of FILTER_FIELDS) {
    const v = search.filter[f].trim();
    if (v !== '') params.set(f, v);
  }
  if (search.sort !== 'RANK') params.set('sort', search.sort);
  return params;
}

const INT32_MAX = 2_147_483_647;

// A whole number of at least min, or a problem; empty is no filter.
function intOf(text: string, min: number, max = INT32_MAX): { value: number | null; problem?: 'INVALID' | 'OUT_OF_RANGE' } {
  const s = text.trim();
  if (s === '') return { value: null };
  if (!/^\d+$/.test(s)) return { value: null, problem: 'INVALID' };
  const n = Number(s);
  if (n < min || n > max) return { value: null, problem: 'OUT_OF_RANGE' };
  return { value: n };
}

/** FilterVariables is the marketplace query's filter and the problems that kept a field out of it. */
export interface FilterVariables {
  filter: MarketplaceFilter | null;
  errors: PathErrors;
}

/**
 * filterVariables turns the form into the query's MarketplaceFilter: empty
 * fields are not sent, numbers are whole and within their range (scores
 * 0–100), the country one of the ISO 3166-1 alpha-2 codes the server
 * knows (COUNTRY_CODES: never a name or a part of one), in capitals, the price
 * a USDC amount (a string, never a float). A field that is not valid is
 * left out and named in errors, so the page says why the filter was not
 * applied rather than sending what the server would refuse.
 */
export function filterVariables(d: FilterDraft): FilterVariables {
  const errors: PathErrors = {};
  const filter: MarketplaceFilter = {};
  const text = (v: string) => v.trim();
  if (text(d.model) !== '') filter.model = text(d.model);
  const country = text(d.country).toUpperCase();
  if (country !== '') {
    if (isCountryCode(country)) filter.country = country;
    else errors.country = ['INVALID'];
  }
  if (text(d.region) !== '') filter.region = text(d.region);
  const ints: [keyof FilterDraft & keyof MarketplaceFilter, number, number][] = [
    ['minVramGb', 1, INT32_MAX],
    ['minGpus', 1, INT32_MAX],
    ['minPerformance', 0, 100],
    ['minReliability', 0, 100],
  ];
  for (const [field, min, max] of ints) {
    const r = intOf(d[field], min, max);
    if (r.problem) errors[field] = [r.problem];
    else if (r.value !== null) (filter as Record<string, unknown>)[field] = r.value;
  }
  if (text(d.maxPricePerHour) !== '') {
    const p = parseUsdcInput(d.maxPricePerHour);
    if (p.ok) filter.maxPricePerHour = p.value;
    else errors.maxPricePerHour = [p.problem === 'TOO_MANY_DECIMALS' ? 'INVALID' : p.problem];
  }
  if (TIERS.includes(d.tier as ProviderTier)) filter.tier = d.tier as ProviderTier;
  return { filter: Object.keys(filter).length > 0 ? filter : null, errors };
}

/**
 * filterErrorsOf maps the marketplace's userErrors (filter.minReliability)
 * to the form's fields (minReliability), so the server's word shows where
 * the field is; a field the form does not have keeps its whole path.
 */
export function filterErrorsOf(userErrors: readonly UserErrorLike[]): PathErrors {
  const out: PathErrors = {};
  for (const e of userErrors) {
    const name = e.field.replace(/^filter\./, '');
    const key = (FILTER_FIELDS as readonly string[]).includes(name) ? name : e.field;
    (out[key] ??= []).push(e.code);
  }
  return out;
}

/**
 * hoursLeft is how many whole hours are left before closesAt (an ISO
 * time), counted from now; null when the schedule does not close.
 */
export function hoursLeft(closesAt: string | null | undefined, now: Date): number | null {
  if (!closesAt) return null;
  const ms = new Date(closesAt).getTime() - now.getTime();
  return Math.max(0, Math.floor(ms / 3_600_000));
}

/** EnvRow is one environment variable as typed in the Rent dialog. */
export interface EnvRow {
  key: string;
  name: string;
  value: string;
}

/** RentDraft is the Rent dialog as typed. */
export interface RentDraft {
  gpuCount: string;
  image: string;
  command: string;
  env: EnvRow[];
  /** acceptEndBy: the customer accepts to end before the machine's next maintenance. */
  acceptEndBy: boolean;
}

/** newRentDraft is the dialog as it opens: one GPU, nothing else. */
export function newRentDraft(): RentDraft {
  return { gpuCount: '1', image: '', command: '', env: [], acceptEndBy: false };
}

/**
 * splitCommand splits a command line into its arguments as a POSIX shell
 * would, without running one: spaces separate, single quotes keep
 * everything, double quotes keep spaces (a backslash escapes " and \ in
 * them), a backslash outside quotes escapes the next character. An
 * unclosed quote is an error (null), not a guess.
 */
export function splitCommand(line: string): string[] | null {
  const args: string[] = [];
  let current = '';
  let inArg = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? '';
    if (quote === "'") {
      if (c === "'") quote = null;
      else current += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) current += line[++i] ?? '';
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inArg = true;
    } else if (c === '\\' && i + 1 < line.length) {
      current += line[++i] ?? '';
      inArg = true;
    } else if (/\s/.test(c)) {
      if (inArg) args.push(current);
      current = '';
      inArg = false;
    } else {
      current += c;
      inArg = true;
    }
  }
  if (quote) return null;
  if (inArg) args.push(current);
  return args;
}

/** ENV_NAME is a portable environment variable name, as the server accepts it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** RentRequest is startRental's input, or the problems that keep it from being sent. */
export type RentRequest = { ok: true; input: StartRentalInput } | { ok: false; errors: PathErrors };

/**
 * rentInput makes startRental's input for a listing: the GPU count (1 to
 * the listing's free GPUs), the image, the command split into arguments,
 * the environment rows that have a name, and endBy (the machine's next
 * maintenance) when the customer accepted to end before it, which they
 * must when the listing has one.
 */
export function rentInput(listing: Pick<ListingFieldsFragment, 'id' | 'gpuCount' | 'nextMaintenanceAt'>, d: RentDraft): RentRequest {
  const errors: PathErrors = {};
  const count = intOf(d.gpuCount, 1, listing.gpuCount);
  if (count.problem || count.value === null) errors.gpuCount = [d.gpuCount.trim() === '' ? 'REQUIRED' : (count.problem ?? 'REQUIRED')];
  const image = d.image.trim();
  if (image === '') errors.image = ['REQUIRED'];
  else if (/\s/.test(image)) errors.image = ['INVALID'];
  const command = splitCommand(d.command);
  if (command === null) errors.command = ['INVALID'];
  const env = d.env.filter((e) => e.name.trim() !== '' || e.value !== '');
  const seen = new Set<string>();
  env.forEach((e, i) => {
    const name = e.name.trim();
    if (name === '') errors[`env.${i}.name`] = ['REQUIRED'];
    else if (!ENV_NAME.test(name)) errors[`env.${i}.name`] = ['INVALID'];
    else if (seen.has(name)) errors[`env.${i}.name`] = ['DUPLICATE'];
    seen.add(name);
  });
  if (listing.nextMaintenanceAt && !d.acceptEndBy) errors.endBy = ['REQUIRED'];
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    input: {
      listingId: listing.id,
      gpuCount: count.value ?? 1,
      image,
      command: command && command.length > 0 ? command : null,
      env: env.length > 0 ? env.map((e) => ({ name: e.name.trim(), value: e.value })) : null,
      endBy: listing.nextMaintenanceAt && d.acceptEndBy ? listing.nextMaintenanceAt : null,
    },
  };
}

/**
 * envPathOfRow maps the server's errors on the input's env list (env.2.name)
 * to the dialog's rows: the input sends only rows with a name or value, so
 * index i of the input is the i-th such row of the draft.
 */
export function envPathOfRow(d: RentDraft): Map<string, number> {
  const paths = new Map<string, number>();
  let sent = 0;
  d.env.forEach((e, row) => {
    if (e.name.trim() === '' && e.value === '') return;
    paths.set(`env.${sent}`, row);
    sent += 1;
  });
  return paths;
}
