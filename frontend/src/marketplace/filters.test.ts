import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, countryOptions, isCountryCode } from './countries';
import { emptyFilter, envPathOfRow, filterErrorsOf, filterVariables, hoursLeft, newRentDraft, paramsOf, rentInput, searchFromParams, splitCommand } from './filters';

describe('filterVariables', () => {
  it('sends nothing for an empty form', () => {
    expect(filterVariables(emptyFilter)).toEqual({ filter: null, errors: {} });
  });

  it('sends each field typed, numbers as numbers and the price as a string', () => {
    expect(
      filterVariables({
        model: 'H100_SXM_80GB',
        country: ' pt ',
        region: 'Lisbon',
        minVramGb: '80',
        minGpus: '2',
        maxPricePerHour: '2.5',
        minPerformance: '70',
        minReliability: '0',
        tier: 'ENTERPRISE',
      }),
    ).toEqual({
      filter: {
        model: 'H100_SXM_80GB',
        country: 'PT',
        region: 'Lisbon',
        minVramGb: 80,
        minGpus: 2,
        maxPricePerHour: '2.500000',
        minPerformance: 70,
        minReliability: 0,
        tier: 'ENTERPRISE',
      },
      errors: {},
    });
  });

  it('leaves out and names what is not valid', () => {
    const v = filterVariables({ ...emptyFilter, country: 'Portugal', minGpus: '0', minPerformance: '101', maxPricePerHour: '1.1234567', minVramGb: '8.5', tier: 'GOLD' });
    expect(v.filter).toBeNull();
    expect(v.errors).toEqual({
      country: ['INVALID'],
      minGpus: ['OUT_OF_RANGE'],
      minPerformance: ['OUT_OF_RANGE'],
      maxPricePerHour: ['INVALID'],
      minVramGb: ['INVALID'],
    });
  });
});

describe('the search in the address', () => {
  it('round-trips, leaving out empty fields and the default order', () => {
    const search = { filter: { ...emptyFilter, model: 'L4_24GB', minGpus: '2' }, sort: 'PRICE' as const };
    const params = paramsOf(search);
    expect(params.toString()).toBe('model=L4_24GB&minGpus=2&sort=PRICE');
    expect(searchFromParams(params)).toEqual(search);
    expect(paramsOf({ filter: emptyFilter, sort: 'RANK' }).toString()).toBe('');
  });

  it('drops an unknown order', () => {
    expect(searchFromParams(new URLSearchParams('sort=CHEAPEST')).sort).toBe('RANK');
  });
});

describe('splitCommand', () => {
  const cases: { description: string; line: string; want: string[] | null }[] = [
    { description: 'spaces separate arguments', line: '  echo  hello world ', want: ['echo', 'hello', 'world'] },
    { description: 'double quotes keep spaces', line: 'sh -c "for i in 1 2 3; do echo line $i; sleep 1; done"', want: ['sh', '-c', 'for i in 1 2 3; do echo line $i; sleep 1; done'] },
    { description: 'single quotes keep everything', line: `echo 'a "b" \\c'`, want: ['echo', 'a "b" \\c'] },
    { description: 'a backslash escapes a space', line: 'ls my\\ dir', want: ['ls', 'my dir'] },
    { description: 'an empty quoted argument is kept', line: 'printf ""', want: ['printf', ''] },
    { description: 'nothing is no arguments', line: '   ', want: [] },
    { description: 'an unclosed quote is an error', line: 'echo "oops', want: null },
  ];
  for (const c of cases) it(c.description, () => expect(splitCommand(c.line)).toEqual(c.want));
});

describe('rentInput', () => {
  const listing = { id: 'L1', gpuCount: 2, nextMaintenanceAt: null };

  it('makes startRental\'s input', () => {
    const r = rentInput(listing, {
      gpuCount: '2',
      image: ' busybox ',
      command: 'sh -c "echo hi"',
      env: [
        { key: 'a', name: 'MODE', value: 'fast' },
        { key: 'b', name: '', value: '' },
      ],
      acceptEndBy: false,
    });
    expect(r).toEqual({
      ok: true,
      input: { listingId: 'L1', gpuCount: 2, image: 'busybox', command: ['sh', '-c', 'echo hi'], env: [{ name: 'MODE', value: 'fast' }], endBy: null },
    });
  });

  it('sends no command and no env when none is given', () => {
    const r = rentInput(listing, { ...newRentDraft(), image: 'busybox' });
    expect(r.ok && r.input).toMatchObject({ command: null, env: null, gpuCount: 1 });
  });

  it('refuses more GPUs than the listing has, no image, bad names', () => {
    const r = rentInput(listing, {
      gpuCount: '3',
      image: '',
      command: '"',
      env: [
        { key: 'a', name: '1BAD', value: 'x' },
        { key: 'b', name: 'OK', value: '' },
        { key: 'c', name: 'OK', value: 'y' },
      ],
      acceptEndBy: false,
    });
    expect(r).toEqual({
      ok: false,
      errors: { gpuCount: ['OUT_OF_RANGE'], image: ['REQUIRED'], command: ['INVALID'], 'env.0.name': ['INVALID'], 'env.2.name': ['DUPLICATE'] },
    });
  });

  it('asks to accept ending before the next maintenance, then sends it as endBy', () => {
    const next = { ...listing, nextMaintenanceAt: '2026-12-05T22:00:00Z' };
    expect(rentInput(next, { ...newRentDraft(), image: 'busybox' })).toEqual({ ok: false, errors: { endBy: ['REQUIRED'] } });
    const r = rentInput(next, { ...newRentDraft(), image: 'busybox', acceptEndBy: true });
    expect(r.ok && r.input.endBy).toBe('2026-12-05T22:00:00Z');
  });
});

describe('envPathOfRow', () => {
  it('maps the input\'s env indexes to the dialog\'s rows, skipping empty rows', () => {
    const d = { ...newRentDraft(), env: [{ key: 'a', name: '', value: '' }, { key: 'b', name: 'X', value: '1' }] };
    expect([...envPathOfRow(d)]).toEqual([['env.0', 1]]);
  });
});

describe('the country filter (issue 26)', () => {
  it('sends only an ISO 3166-1 alpha-2 code the server knows, never a name or a part of one', () => {
    for (const country of ['Portugal', 'Po', 'PRT', 'XX', 'P']) {
      const v = filterVariables({ ...emptyFilter, country });
      expect(v.filter, country).toBeNull();
      expect(v.errors.country, country).toEqual(['INVALID']);
    }
    expect(filterVariables({ ...emptyFilter, country: 'pt' }).filter).toEqual({ country: 'PT' });
  });

  it('offers every code, named in the reader language and sorted by that name', () => {
    expect(COUNTRY_CODES).toContain('PT');
    expect(COUNTRY_CODES.every(isCountryCode)).toBe(true);
    const en = countryOptions('en');
    expect(en).toHaveLength(COUNTRY_CODES.length);
    expect(en.find((c) => c.code === 'PT')?.name).toBe('Portugal');
    expect(countryOptions('es').find((c) => c.code === 'DE')?.name).toBe(new Intl.DisplayNames(['es'], { type: 'region' }).of('DE'));
    const names = en.map((c) => c.name);
    expect(names).toEqual([...names].sort(new Intl.Collator(['en']).compare));
  });
});

describe('filterErrorsOf', () => {
  it("puts the server's userErrors at the form's fields, and keeps an unknown one whole", () => {
    expect(
      filterErrorsOf([
        { field: 'filter.country', code: 'INVALID', message: 'not a code' },
        { field: 'filter.minReliability', code: 'OUT_OF_RANGE', message: 'between 0 and 100' },
        { field: 'filter.somethingNew', code: 'INVALID', message: '?' },
      ]),
    ).toEqual({ country: ['INVALID'], minReliability: ['OUT_OF_RANGE'], 'filter.somethingNew': ['INVALID'] });
    expect(filterErrorsOf([])).toEqual({});
  });
});

describe('hoursLeft', () => {
  const now = new Date('2026-12-04T10:00:00Z');
  it('counts whole hours before the schedule closes, none when it does not close', () => {
    expect(hoursLeft('2026-12-04T15:30:00Z', now)).toBe(5);
    expect(hoursLeft('2026-12-04T09:00:00Z', now)).toBe(0);
    expect(hoursLeft(null, now)).toBeNull();
  });
});
