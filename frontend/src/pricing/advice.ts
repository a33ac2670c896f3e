import type { TFunction } from 'i18next';
import type { MarketRegionFieldsFragment, PriceOutcomeFieldsFragment, PricingRecommendationQuery } from '../gql/graphql';
import { isolate } from '../ui/format';
import { chartValue, formatUsdc, fromMicros, toMicros } from '../ui/usdc';

// The pure half of the price advice on the Pricing tab: the server sends
// codes and numbers (PriceReason, MarketRegion), this file words them in
// the reader's language, and lays the curve out for the chart. Amounts
// stay strings until Intl writes them (formatUsdc); only chart positions
// are floats (chartValue).

/** Recommendation is the price advice for one model, as the query selects it. */
export type Recommendation = PricingRecommendationQuery['pricingRecommendation'];

/** Reason is one coded reason of a recommendation. */
export type Reason = Recommendation['reasons'][number];

/** CONTINENTS are the continent codes MarketRegion.continent may hold, each with a translation. */
export const CONTINENTS = ['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA'] as const;

type Continent = (typeof CONTINENTS)[number];

function isContinent(code: string): code is Continent {
  return (CONTINENTS as readonly string[]).includes(code);
}

/** NO_NUMBER stands in a sentence for a number the server left out. */
const NO_NUMBER = '—';

/**
 * capitalizeCity writes a lower-cased city or datacenter region as a name:
 * the first letter of each word upper-cased ("são paulo" → "São Paulo",
 * "eu-central" → "Eu-Central").
 */
export function capitalizeCity(city: string): string {
  return city.replace(/(^|[\s\-'’])(\p{L})/gu, (_m, lead: string, letter: string) => lead + letter.toLocaleUpperCase());
}

/**
 * countryName is an ISO 3166-1 alpha-2 code as the country's name in
 * language lng ("PT" → "Portugal", "Portugal", "पुर्तगाल", "البرتغال"), or
 * the code itself where Intl has no name for it.
 */
export function countryName(code: string, lng: string): string {
  try {
    return new Intl.DisplayNames([lng], { type: 'region' }).of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/**
 * regionName names a rung of the region ladder in language lng: a city
 * by its name, a country by Intl's name for it, a continent and the whole
 * world through the translations.
 */
export function regionName(region: MarketRegionFieldsFragment, lng: string, t: TFunction): string {
  switch (region.level) {
    case 'CITY':
      if (region.city) return capitalizeCity(region.city);
      return region.country ? countryName(region.country, lng) : t('pricing.advice.region.unknown');
    case 'COUNTRY':
      return region.country ? countryName(region.country, lng) : t('pricing.advice.region.unknown');
    case 'CONTINENT':
      return region.continent && isContinent(region.continent) ? t(`pricing.advice.continent.${region.continent}`) : (region.continent ?? t('pricing.advice.region.unknown'));
    case 'WORLD':
      return t('pricing.advice.region.WORLD');
  }
}

/** NumberWords are the formatters a reason's sentence writes its numbers with. */
export interface NumberWords {
  /** percent writes a 0–1 share ("71 %"). */
  percent: (share: number) => string;
  /** whole writes a count or hours, without decimals. */
  whole: (value: number) => string;
  /** usdc writes an amount (formatUsdc). */
  usdc: (amount: string) => string;
}

/** numberWords are NumberWords in language lng. */
export function numberWords(lng: string): NumberWords {
  const percent = new Intl.NumberFormat(lng, { style: 'percent', maximumFractionDigits: 0 });
  const whole = new Intl.NumberFormat(lng, { maximumFractionDigits: 0 });
  return {
    percent: (share) => percent.format(share),
    whole: (value) => whole.format(value),
    usdc: (amount) => formatUsdc(amount, lng),
  };
}

/**
 * reasonSentence words one reason in language lng: its code picks the
 * sentence, its numbers fill it (utilisation as a percentage, amounts as
 * USDC, the region by name). A number the server left out is written as a
 * dash rather than a wrong figure. The sentence starts with a capital
 * where the language has them, whatever region opens it.
 */
export function reasonSentence(reason: Reason, lng: string, t: TFunction): string {
  const n = numberWords(lng);
  const num = (v: number | null, f: (v: number) => string) => isolate(v === null ? NO_NUMBER : f(v));
  const money = (v: string | null) => isolate(v === null ? NO_NUMBER : n.usdc(v));
  const values = {
    region: isolate(reason.region ? regionName(reason.region, lng, t) : t('pricing.advice.region.unknown')),
    gpuCount: num(reason.gpuCount, n.whole),
    providerCount: num(reason.providerCount, n.whole),
    utilization: num(reason.utilization, n.percent),
    gpuHours: num(reason.gpuHours, n.whole),
    weeks: num(reason.weeks, n.whole),
    points: num(reason.percent, n.whole),
    percent: num(reason.percent === null ? null : reason.percent / 100, n.percent),
    modelCount: num(reason.modelCount, n.whole),
    price: money(reason.pricePerHour),
    limit: money(reason.limitPerHour),
  };
  // NO_MARKET with no other model priced starts from the platform's
  // reference rate: another sentence, not "0 other models".
  const sentence =
    reason.code === 'NO_MARKET' && (reason.modelCount ?? 0) === 0 ? t('pricing.advice.reasons.NO_MARKET_REFERENCE', values) : t(`pricing.advice.reasons.${reason.code}`, values);
  return capitalizeFirst(sentence, lng);
}

/**
 * capitalizeFirst upper-cases a sentence's first letter, past the isolate
 * a region opening it is wrapped in ("worldwide: …" → "Worldwide: …").
 */
export function capitalizeFirst(sentence: string, lng: string): string {
  return sentence.replace(/^(\u2068?)(\p{Ll})/u, (_m, lead: string, letter: string) => lead + letter.toLocaleUpperCase(lng));
}

/** CurveChart is a recommendation's curve laid out for two charts over the rate. */
export interface CurveChart {
  /** xs are the rates in USDC per hour, ascending (chart positions). */
  xs: number[];
  /** utilization is the expected share rented at each rate, 0–100. */
  utilization: number[];
  /** earnings are the expected monthly earnings at each rate (chart positions). */
  earnings: number[];
  /** recommended and current are the indexes of those rates in xs (current null when not priced). */
  recommended: number;
  current: number | null;
}

/**
 * curveChart lays a recommendation's curve out for the chart, cheapest
 * first, with the recommended and the current outcomes put in at their
 * rates (the curve is a grid of rates that need not hold either), so the
 * chart can mark them and its legend can give their figures. Rates are
 * compared exactly (micro-USDC); an outcome at a rate the curve has
 * replaces the curve's.
 */
export function curveChart(curve: readonly PriceOutcomeFieldsFragment[], recommended: PriceOutcomeFieldsFragment, current: PriceOutcomeFieldsFragment | null): CurveChart {
  const byRate = new Map<bigint, PriceOutcomeFieldsFragment>();
  for (const o of curve) byRate.set(toMicros(o.pricePerHour), o);
  if (current) byRate.set(toMicros(current.pricePerHour), current);
  byRate.set(toMicros(recommended.pricePerHour), recommended);
  const rates = [...byRate.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const points = rates.map((r) => byRate.get(r) as PriceOutcomeFieldsFragment);
  return {
    xs: points.map((o) => chartValue(o.pricePerHour)),
    utilization: points.map((o) => o.utilization * 100),
    earnings: points.map((o) => chartValue(o.monthlyEarnings)),
    recommended: rates.indexOf(toMicros(recommended.pricePerHour)),
    current: current ? rates.indexOf(toMicros(current.pricePerHour)) : null,
  };
}

/**
 * wholeCents is an amount rounded down to the cent, as the API writes
 * amounts ("868.723456" → "868.720000"): expected monthly earnings are an
 * estimate, and micro-USDC would only add noise to it.
 */
export function wholeCents(amount: string): string {
  const micros = toMicros(amount);
  const cent = 10_000n;
  // BigInt division truncates toward zero; a loss rounds down too.
  const floored = micros >= 0n ? (micros / cent) * cent : -((-micros + cent - 1n) / cent) * cent;
  return fromMicros(floored);
}

/** feeShare is a fee in basis points as a 0–1 share (1500 → 0.15). */
export function feeShare(bps: number): number {
  return bps / 10_000;
}
