import { useTranslation } from 'react-i18next';
import { isolate, useFormat } from '../ui/format';
import type { FleetEntry, Gpu, Machine } from './fleet';
import { secondsSince, throttleKey, useReadings } from './format';
import { Sparkline } from './Sparkline';
import { UtilizationChart } from './UtilizationChart';
import { useNow } from '../ui/useNow';

/**
 * MachineCard shows one machine: hostname, live status (with why it is
 * offline), how long ago it was last heard from (ticking, see HeartbeatLine), its
 * driver, CUDA and agent versions, and a row per GPU with live telemetry.
 * The data-* attributes say the same for tests and tools.
 */
export function MachineCard({ entry }: { entry: FleetEntry }) {
  const { t } = useTranslation();
  const f = useFormat();
  const m = entry.machine;
  const online = m.status === 'ONLINE';

  return (
    <article
      className={`card machine machine-${m.status.toLowerCase()}`}
      aria-labelledby={`machine-${m.id}-name`}
      data-testid="machine-card"
      data-id={m.id}
      data-machine-id={m.machineId}
      data-hostname={m.hostname}
      data-status={m.status}
      data-offline-reason={m.offlineReason ?? ''}
      data-simulated={m.simulated}
      data-live-events={entry.liveEvents}
    >
      <header className="machine-head">
        <h2 id={`machine-${m.id}-name`} dir="auto" data-testid="machine-hostname">
          {m.hostname}
        </h2>
        <MachineStatusBadge machine={m} />
        {m.simulated && (
          <span className="chip small simulated" title={t('overview.simulatedHint')} data-testid="machine-simulated">
            {t('overview.simulated')}
          </span>
        )}
      </header>
      <p className="machine-status-detail muted" data-testid="machine-status-detail">
        {!online && m.offlineReason && <span>{t(`overview.offlineExplain.${m.offlineReason}`)} </span>}
        <span>{t('overview.since', { when: f.dateTime(m.statusChangedAt) })}</span>
      </p>
      <HeartbeatLine lastHeartbeatAt={m.lastHeartbeatAt} online={online} />
      <dl className="facts compact machine-facts">
        <dt>{t('overview.driver')}</dt>
        <dd data-testid="machine-driver">
          <Reported value={m.driverVersion} />
        </dd>
        <dt>{t('overview.cuda')}</dt>
        <dd data-testid="machine-cuda">
          <Reported value={m.cudaVersion} />
        </dd>
        <dt>{t('overview.agent')}</dt>
        <dd data-testid="machine-agent">
          <span dir="ltr">{m.agentVersion}</span>
        </dd>
        <dt>{t('overview.machineId')}</dt>
        <dd>
          <code dir="ltr">{m.machineId}</code>
        </dd>
        <dt>{t('overview.registered')}</dt>
        <dd>
          <time dateTime={m.registeredAt}>{f.dateTime(m.registeredAt)}</time>
        </dd>
      </dl>
      <GpuTable machine={m} />
      <UtilizationChart machine={m} />
    </article>
  );
}

/**
 * HeartbeatLine says how long ago the machine was last heard from. It ticks
 * every second on its own, so only this line re-renders, not the page.
 */
function HeartbeatLine({ lastHeartbeatAt, online }: { lastHeartbeatAt: string | null | undefined; online: boolean }) {
  const { t } = useTranslation();
  const r = useReadings();
  const now = useNow(1000);
  const heartbeatSeconds = lastHeartbeatAt ? secondsSince(lastHeartbeatAt, now) : null;
  return (
    <p className="machine-heartbeat" data-testid="machine-heartbeat" data-seconds={heartbeatSeconds ?? ''}>
      {online && <span className="pulse" aria-hidden="true" />}
      {heartbeatSeconds === null ? t('overview.noHeartbeat') : t('overview.lastHeartbeat', { ago: r.ago(heartbeatSeconds) })}
    </p>
  );
}

/** MachineStatusBadge is Online, or Offline with its reason. */
function MachineStatusBadge({ machine: m }: { machine: Machine }) {
  const { t } = useTranslation();
  const text =
    m.status === 'ONLINE'
      ? t('overview.status.ONLINE')
      : m.offlineReason
        ? t(`overview.offline.${m.offlineReason}`)
        : t('overview.status.OFFLINE');
  return (
    <span
      className={`status machine-status-${m.status.toLowerCase()}`}
      role="status"
      data-testid="machine-status"
      data-status={m.status}
      data-offline-reason={m.offlineReason ?? ''}
    >
      {text}
    </span>
  );
}

function GpuTable({ machine: m }: { machine: Machine }) {
  const { t } = useTranslation();
  if (m.gpus.length === 0) {
    return (
      <p className="muted" data-testid="machine-no-gpus">
        {t('overview.noGpus')}
      </p>
    );
  }
  return (
    <div className="gpu-table-wrap">
      <table className="data-table gpu-table" data-testid="gpu-table">
        <caption className="visually-hidden">{t('overview.gpusOf', { hostname: m.hostname })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('overview.gpu.index')}</th>
            <th scope="col">{t('overview.gpu.name')}</th>
            <th scope="col">{t('overview.gpu.utilization')}</th>
            <th scope="col">{t('overview.gpu.memory')}</th>
            <th scope="col">{t('overview.gpu.temperature')}</th>
            <th scope="col">{t('overview.gpu.power')}</th>
            <th scope="col">{t('overview.gpu.smClock')}</th>
            <th scope="col">{t('overview.gpu.throttle')}</th>
          </tr>
        </thead>
        <tbody>
          {m.gpus.map((gpu) => (
            <GpuRow key={gpu.id} gpu={gpu} />
          ))}
        </tbody>
      </table>
      {m.status !== 'ONLINE' && (
        <p className="muted small" data-testid="machine-telemetry-offline">
          {t('overview.telemetryOffline')}
        </p>
      )}
    </div>
  );
}

function GpuRow({ gpu }: { gpu: Gpu }) {
  const { t } = useTranslation();
  const r = useReadings();
  const tm = gpu.telemetry;
  return (
    <tr data-testid="gpu-row" data-index={gpu.index} data-uuid={gpu.uuid} data-live={Boolean(tm)}>
      <td data-testid="gpu-index">{gpu.index}</td>
      <td>
        <span className="gpu-name" dir="ltr" data-testid="gpu-name">
          {gpu.model?.name ?? gpu.name}
        </span>
        {gpu.model && gpu.model.name !== gpu.name && (
          <span className="muted small gpu-product" dir="ltr">
            {gpu.name}
          </span>
        )}
        <span className="muted small gpu-product" data-testid="gpu-vram">
          {gpu.vramBytes != null ? t('overview.vram', { value: isolate(r.gib(gpu.vramBytes)) }) : <NotReported />}
        </span>
        {gpu.pciBusId && (
          <code className="muted small gpu-product" dir="ltr">
            {gpu.pciBusId}
          </code>
        )}
      </td>
      <td data-testid="gpu-utilization">
        <div className="utilization">
          <span className="reading">{tm?.utilizationPct != null ? r.percent(tm.utilizationPct) : <NotReported />}</span>
          {tm && <Sparkline values={tm.recentUtilizationPct} />}
        </div>
      </td>
      <td data-testid="gpu-memory">
        <ReadingOf
          value={tm?.memoryUsedBytes}
          max={gpu.vramBytes}
          format={r.gib}
          of={(used, total) => t('overview.memoryOf', { used, total })}
        />
      </td>
      <td data-testid="gpu-temperature">{tm?.temperatureC != null ? r.celsius(tm.temperatureC) : <NotReported />}</td>
      <td data-testid="gpu-power">
        <ReadingOf
          value={tm?.powerDrawW}
          max={gpu.powerLimitW}
          format={r.watts}
          of={(draw, limit) => t('overview.powerOf', { draw, limit })}
        />
      </td>
      <td data-testid="gpu-sm-clock">{tm?.smClockMHz != null ? r.mhz(tm.smClockMHz) : <NotReported />}</td>
      <td data-testid="gpu-throttle">{tm ? <ThrottleReasons reasons={tm.throttleReasons} /> : <NotReported />}</td>
    </tr>
  );
}

function ThrottleReasons({ reasons }: { reasons: readonly string[] }) {
  const { t } = useTranslation();
  if (reasons.length === 0) return <span className="muted">{t('overview.noThrottle')}</span>;
  return (
    <ul className="chips throttle">
      {reasons.map((reason) => {
        const key = throttleKey(reason);
        return (
          <li key={reason} className="chip small" data-reason={reason}>
            {key ? t(`overview.throttle.${key}`) : <code dir="ltr">{reason}</code>}
          </li>
        );
      })}
    </ul>
  );
}

/** Reported is a value the agent may not have sent. */
function Reported({ value }: { value: string | null }) {
  return value ? <span dir="ltr">{value}</span> : <NotReported />;
}

/** NotReported stands for a reading the GPU did not give (or not yet). */
interface ReadingOfProps {
  value: number | null | undefined;
  /** max is what value is out of (the VRAM, the power limit), when known. */
  max: number | null | undefined;
  format: (n: number) => string;
  /** of says value out of max, both formatted ("12.5 GiB of 80 GiB"). */
  of: (value: string, max: string) => string;
}

/** ReadingOf shows a reading out of its maximum, the reading alone without one, or Not reported. */
function ReadingOf({ value, max, format, of }: ReadingOfProps) {
  if (value == null) return <NotReported />;
  return <>{max != null ? of(format(value), format(max)) : format(value)}</>;
}

function NotReported() {
  const { t } = useTranslation();
  return (
    <span className="muted" title={t('overview.notReported')}>
      <span aria-hidden="true">—</span>
      <span className="visually-hidden">{t('overview.notReported')}</span>
    </span>
  );
}
