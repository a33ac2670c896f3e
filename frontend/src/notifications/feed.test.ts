import { describe, expect, it } from 'vitest';
import { emptyFeed, feedReducer, linkOf, paramsOf, REPLAY_ALL, resumeAfter, type Notification } from './feed';

function notification(id: string, over: Partial<Notification> = {}): Notification {
  return {
    id,
    kind: 'WELCOME',
    title: 'Welcome',
    body: 'Hello',
    params: [],
    createdAt: '2026-11-01T10:00:00Z',
    readAt: null,
    ...over,
  };
}

describe('feedReducer', () => {
  it('takes the first page and the unread count over all notifications', () => {
    const feed = feedReducer(emptyFeed, { type: 'loaded', items: [notification('2'), notification('1')], unread: 7 });
    expect(feed).toEqual({ items: [notification('2'), notification('1')], unread: 7, loaded: true });
  });

  it('puts a new notification first and counts it as unread', () => {
    const loaded = feedReducer(emptyFeed, { type: 'loaded', items: [notification('1')], unread: 1 });
    const feed = feedReducer(loaded, { type: 'added', notification: notification('2') });
    expect(feed.items.map((n) => n.id)).toEqual(['2', '1']);
    expect(feed.unread).toBe(2);
  });

  it('does not count a notification that arrives already read', () => {
    const feed = feedReducer(emptyFeed, { type: 'added', notification: notification('3', { readAt: '2026-11-01T10:01:00Z' }) });
    expect(feed.unread).toBe(0);
    expect(feed.items).toHaveLength(1);
  });

  it('ignores a notification it already holds: a reconnecting subscription replays, and nothing is counted twice', () => {
    const loaded = feedReducer(emptyFeed, { type: 'loaded', items: [notification('2'), notification('1')], unread: 2 });
    const feed = feedReducer(loaded, { type: 'added', notification: notification('1') });
    expect(feed).toBe(loaded);
  });

  it('marks every unread item read at the given time, keeps earlier read times, and takes the server\'s count', () => {
    const earlier = '2026-11-01T09:00:00Z';
    const loaded = feedReducer(emptyFeed, {
      type: 'loaded',
      items: [notification('2'), notification('1', { readAt: earlier })],
      unread: 5,
    });
    const feed = feedReducer(loaded, { type: 'allRead', unread: 0, readAt: '2026-11-01T11:00:00Z' });
    expect(feed.unread).toBe(0);
    expect(feed.items.map((n) => n.readAt)).toEqual(['2026-11-01T11:00:00Z', earlier]);
  });
});

describe('resumeAfter', () => {
  it('resumes after the newest notification of the first page, or replays all when there is none', () => {
    expect(resumeAfter([notification('9'), notification('4')])).toBe('9');
    expect(resumeAfter([])).toBe(REPLAY_ALL);
  });
});

describe('paramsOf', () => {
  it('isolates every value so a Latin name keeps its direction inside an Arabic sentence', () => {
    const n = notification('1', { params: [{ key: 'name', value: 'Ada' }] });
    expect(paramsOf(n)).toEqual({ name: '\u2068Ada\u2069' });
  });

  it('lets the caller replace a stable key (a tier) by its name before isolating it', () => {
    const n = notification('1', { params: [{ key: 'tier', value: 'ENTERPRISE' }, { key: 'name', value: 'Ada' }] });
    const named = paramsOf(n, (key, value) => (key === 'tier' ? `tier:${value}` : value));
    expect(named).toEqual({ tier: '\u2068tier:ENTERPRISE\u2069', name: '\u2068Ada\u2069' });
  });
});

describe('linkOf', () => {
  const withApplication = (kind: string, id = '42') => notification('1', { kind, params: [{ key: 'applicationId', value: id }] });

  it.each([
    ['a new application opens its review page', withApplication('APPLICATION_SUBMITTED'), '/admin/applications/42'],
    ['a new application with an odd id opens the queue', withApplication('APPLICATION_SUBMITTED', '../x'), '/admin/applications'],
    ['an approval opens the tokens page, the next step', withApplication('APPLICATION_APPROVED'), '/provider/tokens'],
    ['a rejection opens the applicant\'s page', withApplication('APPLICATION_REJECTED'), '/provider/application'],
    ['a request for information opens the applicant\'s page', withApplication('APPLICATION_INFO_REQUESTED'), '/provider/application'],
    ['a delisted GPU opens the Benchmarks tab', notification('1', { kind: 'GPU_DELISTED' }), '/provider/benchmarks'],
    ['a GPU listed again opens the Benchmarks tab', notification('1', { kind: 'GPU_RELISTED' }), '/provider/benchmarks'],
    ['a refused benchmark result opens the Benchmarks tab', notification('1', { kind: 'BENCHMARK_REFUSED' }), '/provider/benchmarks'],
    ['low funds open Rentals', notification('1', { kind: 'billing.funds_low' }), '/rentals'],
    ['a credited deposit opens Funds', notification('1', { kind: 'deposit.credited' }), '/funds'],
    ['a refused deposit transfer opens Funds', notification('1', { kind: 'deposit.refused' }), '/funds'],
    ['a rental stopped for funds opens Rentals', notification('1', { kind: 'billing.funds_exhausted' }), '/rentals'],
    ['a payout sent opens the Payouts tab', notification('1', { kind: 'billing.payout_paid' }), '/provider/payouts'],
    ['a payout failed opens the Payouts tab', notification('1', { kind: 'billing.payout_failed' }), '/provider/payouts'],
    ['a changed payout method opens the Payouts tab', notification('1', { kind: 'billing.payout_method_changed' }), '/provider/payouts'],
    ['a GPU refused as registered elsewhere opens the Overview', notification('1', { kind: 'fleet.gpu_taken' }), '/provider/overview'],
    ['simulated GPUs refused open the Overview', notification('1', { kind: 'fleet.simulated_refused' }), '/provider/overview'],
    ['any other kind links nowhere', notification('1'), null],
  ])('%s', (_name, n, want) => {
    expect(linkOf(n)).toBe(want);
  });
});
