// The site's sections, by who is signed in: one model for the desktop row
// (groups open as menus) and the phone menu (groups as headed lists), so
// both list the same links in the same order.

/** The translation keys under nav.* a link or a group is named by. */
export type NavKey =
  | 'home'
  | 'marketplace'
  | 'logIn'
  | 'signUp'
  | 'rentals'
  | 'funds'
  | 'overview'
  | 'providerRentals'
  | 'benchmarks'
  | 'tokens'
  | 'pricing'
  | 'earnings'
  | 'payouts'
  | 'performance'
  | 'review'
  | 'adminPayouts'
  | 'adminReliability'
  | 'roles'
  | 'account';

export type NavGroupKey = 'fleet' | 'money' | 'admin' | 'account';

export interface NavItem {
  key: NavKey;
  to: string;
  /** The test id the link has always had (nav-earnings, …). */
  testId: string;
  /** Matches only the path itself, not the pages under it (Home). */
  end?: boolean;
}

/** A link of its own, or a group of links under a name. */
export type NavEntry = { kind: 'link'; item: NavItem } | { kind: 'group'; key: NavGroupKey; items: NavItem[] };

const link = (key: NavKey, to: string, testId = `nav-${key}`, end = false): NavItem => ({ key, to, testId, end });

const HOME = link('home', '/', 'nav-home', true);
const MARKETPLACE = link('marketplace', '/marketplace');

/**
 * navEntries lists what the navigation shows: nothing but the public pages
 * while the session is not known yet, the way in for a visitor, and for a
 * signed-in user the customer's pages, then a provider's Fleet, Money and
 * Performance, an admin's pages, and Account. A group of one link is that
 * link.
 */
export function navEntries(user: { roles: readonly string[] } | null, loading: boolean): NavEntry[] {
  const entries: NavEntry[] = [HOME, MARKETPLACE].map((item) => ({ kind: 'link', item }));
  if (loading) return entries;
  if (!user) {
    entries.push({ kind: 'link', item: link('logIn', '/login', 'nav-login') }, { kind: 'link', item: link('signUp', '/signup', 'nav-signup') });
    return entries;
  }
  const provider = user.roles.includes('PROVIDER');
  const admin = user.roles.includes('ADMIN');
  entries.push({ kind: 'link', item: link('rentals', '/rentals') }, { kind: 'link', item: link('funds', '/funds') });
  if (provider) {
    entries.push(
      {
        kind: 'group',
        key: 'fleet',
        items: [
          link('overview', '/provider/overview'),
          link('providerRentals', '/provider/rentals', 'nav-provider-rentals'),
          link('benchmarks', '/provider/benchmarks'),
          link('tokens', '/provider/tokens'),
        ],
      },
      {
        kind: 'group',
        key: 'money',
        items: [link('pricing', '/provider/pricing'), link('earnings', '/provider/earnings'), link('payouts', '/provider/payouts')],
      },
      { kind: 'link', item: link('performance', '/provider/performance') },
    );
  }
  if (admin) {
    entries.push({
      kind: 'group',
      key: 'admin',
      items: [
        link('review', '/admin/applications', 'nav-admin-applications'),
        link('adminPayouts', '/admin/payouts', 'nav-admin-payouts'),
        link('adminReliability', '/admin/reliability', 'nav-admin-reliability'),
      ],
    });
  }
  entries.push({ kind: 'group', key: 'account', items: [link('roles', '/roles'), link('account', '/account')] });
  return entries;
}

/** matches reports whether item is the page at pathname or one under it. */
export function matches(item: NavItem, pathname: string): boolean {
  if (item.end || item.to === '/') return pathname === item.to;
  return pathname === item.to || pathname.startsWith(item.to + '/');
}

/**
 * current finds the link of the page at pathname, and the group that
 * holds it (undefined for a link of its own); the longest match wins, so a
 * page under a section is named by that section.
 */
export function current(entries: NavEntry[], pathname: string): { item: NavItem; group?: NavGroupKey } | undefined {
  let best: { item: NavItem; group?: NavGroupKey } | undefined;
  const consider = (item: NavItem, group?: NavGroupKey) => {
    if (matches(item, pathname) && (!best || item.to.length > best.item.to.length)) best = { item, group };
  };
  for (const e of entries) {
    if (e.kind === 'link') consider(e.item);
    else for (const item of e.items) consider(item, e.key);
  }
  return best;
}
