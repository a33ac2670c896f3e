import i18next, { type TFunction } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PriceReasonCode } from '../gql/graphql';
import ar from '../i18n/locales/ar.json';
import en from '../i18n/locales/en.json';
import es from '../i18n/locales/es.json';
import hi from '../i18n/locales/hi.json';
import pt from '../i18n/locales/pt.json';
import { capitalizeCity, capitalizeFirst, CONTINENTS, countryName, curveChart, feeShare, reasonSentence, regionName, wholeCents, type Reason } from './advice';

// A translator per language from the shipped locale files, as the SPA's
// i18n has them, without its browser detection.
const translators: Record<string, TFunction> = {};
beforeAll(async () => {
  for (const [lng, translation] of Object.entries({ en, es, pt, hi, ar })) {
    const instance = i18next.createInstance();
    await instance.init({ lng, resources: { [lng]: { translation } }, interpolation: { escapeValue: false } });
    translators[lng] = instance.t;
  }
});
const tr = (lng: string) => translators[lng] as TFunction;

// plain drops the first-strong isolates the sentences put around values.
const plain = (s: string) => s.replace(/[\u2068\u2069]/g, '');

const reason = (code: PriceReasonCode, fields: Partial<Reason> = {}): Reason => ({
  code,
  region: null,
  gpuCount: null,
  providerCount: null,
  utilization: null,
  gpuHours: null,
  weeks: null,
  percent: null,
  modelCount: null,
  pricePerHour: null,
  limitPerHour: null,
  ...fields,
});

const lisbon = { level: 'CITY', city: 'lisbon', country: 'PT', continent: 'EU' } as const;

describe('regionName', () => {
  const cases = [
    { description: 'a city is its name, capitalised', region: lisbon, lng: 'en', name: 'Lisbon' },
    { description: 'a city of several words keeps its accents', region: { ...lisbon, city: 'são paulo', country: 'BR' }, lng: 'pt', name: 'São Paulo' },
    { description: 'a country is Intl\'s name in the reader\'s language', region: { level: 'COUNTRY', city: null, country: 'PT', continent: 'EU' }, lng: 'es', name: 'Portugal' },
    { description: 'a country in Arabic', region: { level: 'COUNTRY', city: null, country: 'DE', continent: 'EU' }, lng: 'ar', name: new Intl.DisplayNames(['ar'], { type: 'region' }).of('DE') },
    { description: 'a continent is translated', region: { level: 'CONTINENT', city: null, country: null, continent: 'SA' }, lng: 'pt', name: 'América do Sul' },
    { description: 'the world is "worldwide"', region: { level: 'WORLD', city: null, country: null, continent: null }, lng: 'en', name: 'worldwide' },
  ] as const;
  for (const c of cases) {
    it(c.description, () => {
      expect(regionName(c.region, c.lng, tr(c.lng))).toBe(c.name);
    });
  }

  it('has a translation for every continent code the server sends, in every language', () => {
    for (const lng of ['en', 'es', 'pt', 'hi', 'ar']) {
      for (const code of CONTINENTS) {
        const name = regionName({ level: 'CONTINENT', city: null, country: null, continent: code }, lng, tr(lng));
        expect(name, `${lng} ${code}`).not.toBe(code);
        expect(name, `${lng} ${code}`).not.toMatch(/^pricing\./);
      }
    }
  });
});

describe('capitalizeFirst', () => {
  it('upper-cases the first letter past an isolate, and leaves scripts without case alone', () => {
    expect(capitalizeFirst('\u2068worldwide\u2069: x', 'en')).toBe('\u2068Worldwide\u2069: x');
    expect(capitalizeFirst('دولة', 'ar')).toBe('دولة');
  });
});

describe('capitalizeCity and countryName', () => {
  it('capitalise each word of a city or datacenter region', () => {
    expect(capitalizeCity('frankfurt am main')).toBe('Frankfurt Am Main');
    expect(capitalizeCity('eu-central')).toBe('Eu-Central');
  });

  it('fall back to the code where Intl has no country', () => {
    expect(countryName('PT', 'hi')).toBe(new Intl.DisplayNames(['hi'], { type: 'region' }).of('PT'));
    expect(countryName('not a code', 'en')).toBe('not a code');
  });
});

describe('reasonSentence', () => {
  const cases: { description: string; reason: Reason; lng: string; sentence: string }[] = [
    {
      description: 'MARKET_REGION names the region and counts',
      reason: reason('MARKET_REGION', { region: lisbon, gpuCount: 6, providerCount: 3 }),
      lng: 'en',
      sentence: 'Lisbon: market prices from 6 comparable GPUs of 3 providers.',
    },
    {
      description: 'MARKET_WIDENED names the narrow region that had too few',
      reason: reason('MARKET_WIDENED', { region: lisbon, gpuCount: 1, providerCount: 1 }),
      lng: 'en',
      sentence: 'Lisbon: only 1 comparable GPUs of 1 providers, so a wider region was used.',
    },
    {
      description: 'DEMAND_REGION writes hours and utilisation in the reader\'s digits',
      reason: reason('DEMAND_REGION', { region: { level: 'COUNTRY', city: null, country: 'PT', continent: 'EU' }, gpuHours: 2016.4, weeks: 4, utilization: 0.857 }),
      lng: 'es',
      sentence: `Portugal: ${new Intl.NumberFormat('es').format(2016)} horas de GPU ofrecidas en 4 semanas, de las que se alquiló el ${new Intl.NumberFormat('es', { style: 'percent' }).format(0.86)}.`,
    },
    {
      description: 'REVENUE_PEAK writes the price as USDC and the share as a percentage',
      reason: reason('REVENUE_PEAK', { pricePerHour: '2.370000', utilization: 0.71 }),
      lng: 'en',
      sentence: 'Expected revenue peaks at 2.370000 USDC/h, with 71% of hours rented.',
    },
    {
      description: 'HELD_AT_HIGH names the limit',
      reason: reason('HELD_AT_HIGH', { limitPerHour: '3.100000' }),
      lng: 'en',
      sentence: "Revenue would peak above the market's band: the recommendation is held at 3.100000 USDC/h.",
    },
    {
      description: 'ENTERPRISE_HEADROOM writes percent as a percentage',
      reason: reason('ENTERPRISE_HEADROOM', { percent: 15 }),
      lng: 'en',
      sentence: "Enterprise listings rank higher: up to 15% above the market's top.",
    },
    {
      description: 'PRICE_SENSITIVITY writes percent as points',
      reason: reason('PRICE_SENSITIVITY', { percent: 7 }),
      lng: 'en',
      sentence: 'A rate 10% above the median loses about 7 percentage points of utilization.',
    },
    {
      description: 'NO_MARKET with other models priced counts them',
      reason: reason('NO_MARKET', { pricePerHour: '1.500000', modelCount: 3 }),
      lng: 'en',
      sentence: 'No comparable listing anywhere: 1.500000 USDC/h is a starting price, from the prices of 3 other models scaled by reference performance.',
    },
    {
      description: 'NO_MARKET with none starts from the reference rate',
      reason: reason('NO_MARKET', { pricePerHour: '1.500000', modelCount: 0 }),
      lng: 'en',
      sentence: "No comparable listing anywhere: 1.500000 USDC/h is a starting price, from the platform's reference rate scaled by reference performance.",
    },
    {
      description: 'SUPPLY_GLUT worldwide',
      reason: reason('SUPPLY_GLUT', { region: { level: 'WORLD', city: null, country: null, continent: null }, gpuCount: 40, utilization: 0.12 }),
      lng: 'en',
      sentence: 'Worldwide: supply is plentiful, 40 comparable GPUs, only 12% utilized.',
    },
    {
      description: 'a number the server left out is a dash, not a zero',
      reason: reason('SUPPLY_SCARCE', { region: lisbon, gpuCount: null, utilization: 0.9 }),
      lng: 'en',
      sentence: 'Lisbon: supply is scarce, — comparable GPUs, 90% utilized.',
    },
    {
      description: 'Arabic writes the price with Arabic digits where the locale does',
      reason: reason('REVENUE_PEAK', { pricePerHour: '2.370000', utilization: 0.71 }),
      lng: 'ar',
      sentence: `تبلغ الإيرادات المتوقعة ذروتها عند ${new Intl.NumberFormat('ar', { minimumFractionDigits: 6 }).format(2.37)} USDC/ساعة، مع تأجير ${new Intl.NumberFormat('ar', { style: 'percent' }).format(0.71)} من الساعات.`,
    },
  ];
  for (const c of cases) {
    it(c.description, () => {
      expect(plain(reasonSentence(c.reason, c.lng, tr(c.lng)))).toBe(c.sentence);
    });
  }

  it('has a sentence for every reason code in every language, with no key left showing', () => {
    const codes: PriceReasonCode[] = [
      'MARKET_REGION',
      'MARKET_WIDENED',
      'NO_MARKET',
      'DEMAND_REGION',
      'DEMAND_THIN',
      'SUPPLY_SCARCE',
      'SUPPLY_GLUT',
      'PRICE_SENSITIVITY',
      'REVENUE_PEAK',
      'HELD_AT_HIGH',
      'HELD_AT_LOW',
      'ENTERPRISE_HEADROOM',
      'NO_GPUS_OF_MODEL',
    ];
    for (const lng of ['en', 'es', 'pt', 'hi', 'ar']) {
      for (const code of codes) {
        const s = reasonSentence(reason(code, { region: lisbon, gpuCount: 3, providerCount: 2, utilization: 0.5, gpuHours: 100, weeks: 4, percent: 10, modelCount: 2, pricePerHour: '1.000000', limitPerHour: '1.000000' }), lng, tr(lng));
        expect(s, `${lng} ${code}`).not.toMatch(/pricing\.advice|\{\{/);
      }
    }
  });
});

describe('curveChart', () => {
  const o = (pricePerHour: string, utilization: number, monthlyEarnings: string) => ({ pricePerHour, utilization, monthlyEarnings });
  const curve = [o('1.000000', 0.9, '558.450000'), o('2.000000', 0.7, '868.700000'), o('3.000000', 0.4, '744.600000')];

  it('puts the recommended and current outcomes in at their rates, cheapest first, and says where', () => {
    const chart = curveChart(curve, o('2.500000', 0.6, '930.750000'), o('3.000000', 0.4, '744.600000'));
    expect(chart.xs).toEqual([1, 2, 2.5, 3]);
    expect(chart.utilization.map((v) => Math.round(v))).toEqual([90, 70, 60, 40]);
    expect(chart.earnings).toEqual([558.45, 868.7, 930.75, 744.6]);
    expect(chart.recommended).toBe(2);
    expect(chart.current).toBe(3);
  });

  it('has no current index when the model is not priced, and compares rates exactly', () => {
    const chart = curveChart(curve, o('2.0', 0.7, '868.700000'), null);
    expect(chart.xs).toEqual([1, 2, 3]);
    expect(chart.recommended).toBe(1);
    expect(chart.current).toBeNull();
  });
});

describe('feeShare', () => {
  it('turns basis points into a share', () => {
    expect(feeShare(1500)).toBe(0.15);
  });
});

describe('wholeCents', () => {
  it('rounds an amount down to the cent, exactly', () => {
    expect(wholeCents('868.729999')).toBe('868.720000');
    expect(wholeCents('0.009999')).toBe('0.000000');
    expect(wholeCents('-1.234567')).toBe('-1.240000');
    expect(wholeCents('12')).toBe('12.000000');
  });
});
