import { describe, expect, it } from 'vitest';
import { current, navEntries, type NavEntry } from './navigation';

/** names lists the entries as "key" or "group:key1,key2". */
function names(entries: NavEntry[]): string[] {
  return entries.map((e) => (e.kind === 'link' ? e.item.key : `${e.key}:${e.items.map((i) => i.key).join(',')}`));
}

describe('navEntries', () => {
  it('shows only the public pages while the session is not known', () => {
    expect(names(navEntries(null, true))).toEqual(['home', 'marketplace']);
  });

  it('shows a visitor the way in', () => {
    expect(names(navEntries(null, false))).toEqual(['home', 'marketplace', 'logIn', 'signUp']);
  });

  it("shows a customer their pages and Account, and no provider's or admin's", () => {
    expect(names(navEntries({ roles: ['CUSTOMER'] }, false))).toEqual(['home', 'marketplace', 'rentals', 'funds', 'account:roles,account']);
  });

  it('groups a provider-admin into Fleet, Money, Performance, Admin and Account', () => {
    expect(names(navEntries({ roles: ['CUSTOMER', 'PROVIDER', 'ADMIN'] }, false))).toEqual([
      'home',
      'marketplace',
      'rentals',
      'funds',
      'fleet:overview,providerRentals,benchmarks,tokens',
      'money:pricing,earnings,payouts',
      'performance',
      'admin:review,adminPayouts,adminReliability',
      'account:roles,account',
    ]);
  });

  it('keeps the test ids the pages have always had', () => {
    const ids = navEntries({ roles: ['PROVIDER', 'ADMIN'] }, false).flatMap((e) => (e.kind === 'link' ? [e.item.testId] : e.items.map((i) => i.testId)));
    expect(ids).toContain('nav-earnings');
    expect(ids).toContain('nav-admin-payouts');
    expect(ids).toContain('nav-account');
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('current', () => {
  const entries = navEntries({ roles: ['PROVIDER', 'ADMIN'] }, false);

  it('names the page and the group that holds it', () => {
    expect(current(entries, '/provider/earnings')).toMatchObject({ item: { key: 'earnings' }, group: 'money' });
    expect(current(entries, '/admin/payouts')).toMatchObject({ item: { key: 'adminPayouts' }, group: 'admin' });
    expect(current(entries, '/provider/performance')).toMatchObject({ item: { key: 'performance' }, group: undefined });
  });

  it('names a page under a section by that section', () => {
    expect(current(entries, '/rentals/42/receipt')).toMatchObject({ item: { key: 'rentals' } });
    expect(current(entries, '/admin/applications/7')).toMatchObject({ item: { key: 'review' }, group: 'admin' });
  });

  it('matches Home only at the root, and no section for a page outside them', () => {
    expect(current(entries, '/')).toMatchObject({ item: { key: 'home' } });
    expect(current(entries, '/statement')).toBeUndefined();
    expect(current(entries, '/rentalsx')).toBeUndefined();
  });
});
