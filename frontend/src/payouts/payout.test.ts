import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import ar from '../i18n/locales/ar.json';
import en from '../i18n/locales/en.json';
import es from '../i18n/locales/es.json';
import hi from '../i18n/locales/hi.json';
import pt from '../i18n/locales/pt.json';
import { bankFileName, methodInput, nextPayoutNotes, PAYOUT_STATES, payoutStateTone, settleable, weeksChart, type MethodDraft } from './payout';

const schemaDir = fileURLToPath(new URL('../../../schema/', import.meta.url));
const schema = parse(
  readdirSync(schemaDir)
    .filter((f) => f.endsWith('.graphqls'))
    .map((f) => readFileSync(join(schemaDir, f), 'utf8'))
    .join('\n'),
);

function enumValues(name: string): string[] {
  for (const def of schema.definitions) {
    if (def.kind === Kind.ENUM_TYPE_DEFINITION && def.name.value === name) return (def.values ?? []).map((v) => v.name.value);
  }
  throw new Error(`the schema has no enum ${name}`);
}

const LOCALES = { en, es, pt, hi, ar } as const;

describe('payout state labels', () => {
  it('lists every state of the schema', () => {
    expect([...PAYOUT_STATES].sort()).toEqual(enumValues('PayoutState').sort());
  });

  it.each(Object.entries(LOCALES))('names every state, kind and schedule in %s', (_name, locale) => {
    for (const state of enumValues('PayoutState')) expect(locale.payoutState[state as keyof typeof locale.payoutState], state).toMatch(/\S/);
    for (const kind of enumValues('PayoutKind')) expect(locale.payoutKind[kind as keyof typeof locale.payoutKind], kind).toMatch(/\S/);
    for (const s of enumValues('PayoutSchedule')) expect(locale.payoutSchedule[s as keyof typeof locale.payoutSchedule], s).toMatch(/\S/);
  });

  it('colours paid, failed and the rest apart', () => {
    expect(PAYOUT_STATES.map(payoutStateTone)).toEqual(['waiting', 'waiting', 'done', 'failed']);
  });
});

describe('nextPayoutNotes', () => {
  const now = Date.parse('2026-03-02T10:00:00Z');
  it('says when it is due', () => {
    expect(nextPayoutNotes({ dueAt: '2026-03-09T00:00:00Z', thresholdMet: true, heldUntil: null }, now)).toEqual([{ kind: 'DUE', at: '2026-03-09T00:00:00Z' }]);
  });
  it('adds the threshold and the hold when they apply', () => {
    expect(nextPayoutNotes({ dueAt: '2026-03-09T00:00:00Z', thresholdMet: false, heldUntil: '2026-03-04T10:00:00Z' }, now)).toEqual([
      { kind: 'DUE', at: '2026-03-09T00:00:00Z' },
      { kind: 'BELOW_THRESHOLD' },
      { kind: 'HELD', until: '2026-03-04T10:00:00Z' },
    ]);
  });
  it('forgets a hold that is over', () => {
    expect(nextPayoutNotes({ dueAt: '2026-03-09T00:00:00Z', thresholdMet: true, heldUntil: '2026-03-01T10:00:00Z' }, now)).toHaveLength(1);
  });
});

describe('methodInput', () => {
  const draft: MethodDraft = {
    schedule: 'WEEKLY',
    destination: 'SOLANA',
    solanaAddress: '  9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin ',
    iban: 'pt50 0002 0123 1234 5678 9015 4',
    bic: 'cgdi pt pl',
    accountHolder: ' Ana Silva ',
    password: ' secret ',
  };
  it('sends only the wallet for Solana', () => {
    expect(methodInput(draft)).toEqual({ schedule: 'WEEKLY', solanaAddress: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', password: ' secret ' });
  });
  it('sends only the account for a bank, compacted', () => {
    expect(methodInput({ ...draft, destination: 'BANK', schedule: 'MONTHLY' })).toEqual({
      schedule: 'MONTHLY',
      iban: 'PT50000201231234567890154',
      bic: 'CGDIPTPL',
      accountHolder: 'Ana Silva',
      password: ' secret ',
    });
  });
});

describe('admin payouts', () => {
  it.each([
    ['BANK', 'PENDING', true],
    ['MANUAL', 'PROCESSING', true],
    ['SOLANA', 'PENDING', false],
    ['BANK', 'PAID', false],
    ['MANUAL', 'FAILED', false],
  ] as const)('a %s payout %s is settled by hand: %s', (kind, state, want) => {
    expect(settleable({ kind, state })).toBe(want);
  });

  it('names the bank file after the day', () => {
    expect(bankFileName(Date.parse('2026-03-02T23:59:00Z'))).toBe('payouts-2026-03-02.xml');
  });
});

describe('weeksChart', () => {
  it('puts one bar per week on a time axis and totals the weeks exactly', () => {
    const chart = weeksChart([
      { start: '2026-11-30T00:00:00Z', paid: '0.000000', count: 0 },
      { start: '2026-12-07T00:00:00Z', paid: '0.100001', count: 1 },
      { start: '2026-12-14T00:00:00Z', paid: '0.200002', count: 2 },
    ]);
    expect(chart.xs).toEqual([Date.UTC(2026, 10, 30) / 1000, Date.UTC(2026, 11, 7) / 1000, Date.UTC(2026, 11, 14) / 1000]);
    expect(chart.values).toEqual([0, 0.100001, 0.200002]);
    // 0.1 + 0.2 in floats is 0.30000000000000004: the total is summed in micro-USDC.
    expect(chart.total).toBe('0.300003');
    expect(chart.count).toBe(3);
  });

  it('totals no weeks as zero', () => {
    expect(weeksChart([])).toEqual({ xs: [], values: [], total: '0.000000', count: 0 });
  });
});
