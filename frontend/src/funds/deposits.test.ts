import { describe, expect, it } from 'vitest';
import { mergeDeposit, newlyCredited, openDeposit, type Deposit } from './deposits';

function deposit(id: string, over: Partial<Deposit> = {}): Deposit {
  return {
    id,
    state: 'WAITING',
    amount: '10.000000',
    credited: '0.000000',
    createdAt: '2026-12-07T09:00:00Z',
    expiresAt: '2026-12-07T09:30:00Z',
    payment: { url: `solana:W?reference=R${id}`, recipient: 'W', mint: 'M', amount: '10.000000', reference: `R${id}` },
    transfers: [],
    ...over,
  };
}

describe('deposits', () => {
  it('merges a live event in place of its request, newest first', () => {
    const list = [deposit('2'), deposit('1')];
    const seen = deposit('1', { state: 'SEEN' });
    expect(mergeDeposit(list, seen).map((d) => [d.id, d.state])).toEqual([
      ['2', 'WAITING'],
      ['1', 'SEEN'],
    ]);
    expect(mergeDeposit(list, deposit('10')).map((d) => d.id)).toEqual(['10', '2', '1']);
  });

  it('shows the newest request still waiting or seen', () => {
    expect(openDeposit([deposit('3', { state: 'CREDITED' }), deposit('2', { state: 'SEEN' }), deposit('1')])?.id).toBe('2');
    expect(openDeposit([deposit('1', { state: 'EXPIRED' })])).toBeUndefined();
  });

  it('knows when a request credited more than before', () => {
    const prev = [deposit('1', { state: 'SEEN' })];
    expect(newlyCredited(prev, deposit('1', { state: 'CREDITED', credited: '4.250000' }))).toBe(true);
    expect(newlyCredited([deposit('1', { credited: '4.250000' })], deposit('1', { credited: '4.250000' }))).toBe(false);
    expect(newlyCredited([], deposit('9', { credited: '0.000001' }))).toBe(true);
  });
});
