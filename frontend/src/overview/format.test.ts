import { describe, expect, it } from 'vitest';
import { activeThrottles, severityOf, shortId } from './format';

describe('severityOf (issue 11, point 10)', () => {
  it.each([
    ['ONLINE', null, 'ok'],
    ['OFFLINE', 'PLANNED', 'neutral'],
    ['OFFLINE', 'NEVER_SEEN', 'neutral'],
    ['OFFLINE', 'UNPLANNED', 'alarm'],
  ] as const)('%s %s is %s: only a stop without notice is the alarm', (status, reason, want) => {
    expect(severityOf(status, reason)).toBe(want);
  });
});

describe('activeThrottles', () => {
  it('says an idle GPU is not throttled, in the same words as one that reports nothing', () => {
    expect(activeThrottles([])).toEqual([]);
    expect(activeThrottles(['GpuIdle'])).toEqual([]);
    expect(activeThrottles(['clocksThrottleReasonGpuIdle'])).toEqual([]);
  });

  it('keeps every reason that slows work down, known or not', () => {
    expect(activeThrottles(['GpuIdle', 'SW_POWER_CAP', 'HwThermalSlowdown', 'SomethingNew'])).toEqual(['SW_POWER_CAP', 'HwThermalSlowdown', 'SomethingNew']);
  });
});

describe('shortId', () => {
  it('keeps the first characters of a long id, and an id of up to 20 characters whole', () => {
    expect(shortId('3f2a9c41d7e84b0c9a1e5f6b7c8d9e0f')).toBe('3f2a9c41…');
    expect(shortId('demo-lisbon-rack-01')).toBe('demo-lisbon-rack-01');
  });
});
