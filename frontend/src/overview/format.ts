import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

/** GIB is the bytes in a gibibyte; VRAM is sold in binary units. */
export const GIB = 1024 ** 3;

/** Readings formats the Overview's measurements in the current language. */
export interface Readings {
  /** gib is bytes as GiB: one decimal below 100 GiB, none above. */
  gib: (bytes: number) => string;
  /** percent is a 0–100 percentage. */
  percent: (pct: number) => string;
  celsius: (value: number) => string;
  watts: (value: number) => string;
  mhz: (value: number) => string;
  /** ago is how long ago seconds were, "now" for zero ("5 seconds ago"). */
  ago: (seconds: number) => string;
}

/**
 * useReadings formats with Intl where it has the unit (percent, Celsius,
 * relative time) and through i18n where it does not (GiB, W, MHz), so digits,
 * separators and word order follow the reader.
 */
export function useReadings(): Readings {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  return useMemo(() => {
    const whole = new Intl.NumberFormat(lng, { maximumFractionDigits: 0 });
    const oneDecimal = new Intl.NumberFormat(lng, { maximumFractionDigits: 1 });
    const percent = new Intl.NumberFormat(lng, { style: 'percent', maximumFractionDigits: 0 });
    const celsius = new Intl.NumberFormat(lng, { style: 'unit', unit: 'celsius', maximumFractionDigits: 0 });
    const relative = new Intl.RelativeTimeFormat(lng, { numeric: 'auto' });
    return {
      gib: (bytes) => {
        const value = bytes / GIB;
        return t('overview.units.gib', { value: (value < 100 ? oneDecimal : whole).format(value) });
      },
      percent: (pct) => percent.format(pct / 100),
      celsius: (value) => celsius.format(value),
      watts: (value) => t('overview.units.watts', { value: whole.format(value) }),
      mhz: (value) => t('overview.units.mhz', { value: whole.format(value) }),
      ago: (seconds) => {
        const s = Math.max(0, Math.floor(seconds));
        if (s < 60) return relative.format(-s, 'second');
        if (s < 3600) return relative.format(-Math.floor(s / 60), 'minute');
        if (s < 86_400) return relative.format(-Math.floor(s / 3600), 'hour');
        return relative.format(-Math.floor(s / 86_400), 'day');
      },
    };
  }, [t, lng]);
}

/** THROTTLE_KEYS are the throttle reasons the Overview names in words. */
const THROTTLE_KEYS = {
  gpuidle: 'gpuIdle',
  idle: 'gpuIdle',
  applicationsclockssetting: 'applicationsClocksSetting',
  swpowercap: 'swPowerCap',
  powercap: 'swPowerCap',
  hwslowdown: 'hwSlowdown',
  hwthermalslowdown: 'hwThermalSlowdown',
  swthermalslowdown: 'swThermalSlowdown',
  hwpowerbrakeslowdown: 'hwPowerBrakeSlowdown',
  syncboost: 'syncBoost',
  displayclocksetting: 'displayClockSetting',
} as const;

/** ThrottleKey names a known throttle reason under overview.throttle. */
export type ThrottleKey = (typeof THROTTLE_KEYS)[keyof typeof THROTTLE_KEYS];

/**
 * throttleKey maps a reason as the agent reports it (NVML's names in any
 * case or separator style: SW_POWER_CAP, SwPowerCap, sw-power-cap, with or
 * without a clocksThrottleReason prefix) to its translation key, or null
 * for one the SPA does not know, which is then shown as reported.
 */
export function throttleKey(reason: string): ThrottleKey | null {
  const norm = reason
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/^(nvml)?clocks?(throttle|event)reasons?/, '');
  return (THROTTLE_KEYS as Record<string, ThrottleKey>)[norm] ?? null;
}

/** secondsSince is the whole seconds from iso to now, never negative. */
export function secondsSince(iso: string, now: number): number {
  return Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
}

/**
 * activeThrottles are the reasons that slow a GPU down: all but idle, which
 * NVML reports when the clocks drop because nothing runs (not a slowdown of
 * work). A GPU with none is "not throttled", in one wording, whether it
 * reported nothing or only idle.
 */
export function activeThrottles(reasons: readonly string[]): string[] {
  return reasons.filter((reason) => throttleKey(reason) !== 'gpuIdle');
}

/**
 * shortId is a long id's first characters with an ellipsis ("3f2a9c41…"),
 * enough to tell machines apart at a glance; an id of up to 20 characters
 * (a name such as "lisbon-rack-01") is shown whole.
 */
export function shortId(id: string, keep = 8): string {
  return id.length <= 20 ? id : `${id.slice(0, keep)}…`;
}

/** Severity is how a machine's state should catch the eye: fine, worth knowing, or an alarm. */
export type Severity = 'ok' | 'neutral' | 'alarm';

/**
 * severityOf is online: ok; offline without notice (UNPLANNED): the alarm;
 * a planned stop (the agent said it was stopping) or a machine never heard
 * from yet: neutral, as nothing failed.
 */
export function severityOf(status: string, offlineReason: string | null | undefined): Severity {
  if (status === 'ONLINE') return 'ok';
  return offlineReason === 'UNPLANNED' ? 'alarm' : 'neutral';
}
