import type { GpuPriceFieldsFragment, MaintenanceWindowFieldsFragment, MaintenanceWindowInput, ProviderPricingQuery } from '../gql/graphql';
import { chartValue } from '../ui/usdc';

// The pure half of the Pricing tab: which models get a rate row, the price
// history as a stepped series, maintenance times typed in a time zone, and
// the rentals list kept live.

type Machines = NonNullable<ProviderPricingQuery['myProvider']>['machines'];

/** ModelRow is one GPU model on the Pricing tab: its name, how many GPUs the provider has of it, its rate. */
export interface ModelRow {
  key: string;
  name: string;
  gpus: number;
  price: GpuPriceFieldsFragment | null;
}

/**
 * modelRows lists each model the provider has GPUs of (a GPU of no
 * catalogue model cannot be priced) and each model already priced (its
 * machines may be gone), by name.
 */
export function modelRows(machines: Machines, prices: readonly GpuPriceFieldsFragment[]): ModelRow[] {
  const rows = new Map<string, ModelRow>();
  for (const m of machines) {
    for (const g of m.gpus) {
      if (!g.model) continue;
      const row = rows.get(g.model.key) ?? { key: g.model.key, name: g.model.name, gpus: 0, price: null };
      row.gpus += 1;
      rows.set(g.model.key, row);
    }
  }
  for (const p of prices) {
    const row = rows.get(p.modelKey) ?? { key: p.modelKey, name: p.model?.name ?? p.modelKey, gpus: 0, price: null };
    row.price = p;
    rows.set(p.modelKey, row);
  }
  return [...rows.values()].sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
}

/** PriceSeries is a model's rate over time for TimeSeriesChart: xs in seconds, one value per x. */
export interface PriceSeries {
  xs: number[];
  values: number[];
}

/**
 * priceSeries turns the API's newest-first history into a stepped series,
 * oldest first, each rate holding until the next; the current rate is
 * carried on to now, so a single rate is a line, not a dot. Values are
 * chart positions only (chartValue); the page writes amounts from the
 * strings.
 */
export function priceSeries(history: readonly { pricePerHour: string; at: string }[], nowSeconds: number): PriceSeries {
  const points = [...history]
    .map((h) => ({ x: Math.floor(Date.parse(h.at) / 1000), y: chartValue(h.pricePerHour) }))
    .filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y))
    .sort((a, b) => a.x - b.x);
  const xs: number[] = [];
  const values: number[] = [];
  for (const p of points) {
    // Two changes in the same second: the later one is the rate.
    if (xs.length > 0 && xs[xs.length - 1] === p.x) values[values.length - 1] = p.y;
    else {
      xs.push(p.x);
      values.push(p.y);
    }
  }
  const last = values[values.length - 1];
  if (last !== undefined && (xs[xs.length - 1] ?? 0) < nowSeconds) {
    xs.push(nowSeconds);
    values.push(last);
  }
  return { xs, values };
}

/** zoneOffsetMinutes is how far zone's wall clock is ahead of UTC at instant ms (Lisbon in summer: 60). */
export function zoneOffsetMinutes(zone: string, ms: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
}

/**
 * zonedToIso reads a datetime-local value ("2026-12-05T22:00") as a wall
 * clock time in zone and returns the instant (RFC 3339, UTC), or null if the
 * text is not one. A time skipped by a daylight-saving change is taken
 * after the change, as the zone's clocks would show it.
 */
export function zonedToIso(local: string, zone: string): string | null {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)$/.exec(local);
  if (!m) return null;
  const asUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  if (!Number.isFinite(asUtc)) return null;
  // The offset at the guess, then at the corrected instant: twice settles
  // every zone, daylight-saving changes included.
  let ms = asUtc - zoneOffsetMinutes(zone, asUtc) * 60_000;
  ms = asUtc - zoneOffsetMinutes(zone, ms) * 60_000;
  return new Date(ms).toISOString();
}

/** isoToZoned is an instant as a datetime-local value in zone ("2026-12-05T22:00"). */
export function isoToZoned(iso: string, zone: string): string {
  const ms = Date.parse(iso);
  const local = new Date(ms + zoneOffsetMinutes(zone, ms) * 60_000).toISOString();
  return local.slice(0, 16);
}

/**
 * keptMaintenance is the maintenance the schedule mutation must send to
 * keep what is planned: it replaces the windows that have not started, so
 * every one not started yet is sent again (less those removed); a window
 * under way is left alone by the server and not sent.
 */
export function keptMaintenance(windows: readonly MaintenanceWindowFieldsFragment[], nowMs: number, without?: string): MaintenanceWindowInput[] {
  return windows
    .filter((w) => w.id !== without && Date.parse(w.startsAt) > nowMs)
    .map((w) => ({ machineId: w.machineId ?? null, startsAt: w.startsAt, endsAt: w.endsAt, note: w.note ?? null }));
}

