import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { ListingBadge } from '../ui/Badge';
import { CopyButton } from '../ui/CopyButton';
import { DataTable, type DataColumn } from '../ui/DataTable';
import { isolate, useFormat } from '../ui/format';
import type { FleetEntry, Gpu, Machine } from './fleet';
import { activeThrottles, secondsSince, severityOf, shortId, throttleKey, useReadings } from './format';
import { Sparkline } from './Sparkline';
import { UtilizationChart } from './UtilizationChart';
import { useNow } from '../ui/useNow';
import { hostClaim } from '../marketplace/host';

/**
 * MachineCard shows one machine: hostname, live status (with why it is
 * offline: a planned stop in neutral grey, an unplanned one as the alarm),
 * how long ago it was last heard from (ticking, see HeartbeatLine; kept by
 * the server once the machine is offline), its versions, its host as the
 * agent reports it (CPU, cores, RAM, disk with free space), shortened
 * machine id (with a copy button), and its GPUs: the essentials as a
 * compact row each (model, utilisation, memory, temperature, power), the
 * rest (ids, PCI, clocks, throttle reasons, ECC) behind a disclosure.
 * The data-* attributes say the same for tests and tools.
 */
export function MachineCard({ entry }: { entry: FleetEntry }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const m = entry.machine;
  const host = hostClaim(m, t, i18n.language);
  const online = m.status === 'ONLINE';
  const severity = severityOf(m.status, m.offlineReason);

  return (
    <article
      className={`card machine machine-${m.status.toLowerCase()} machine-${severity}`}
      aria-labelledby={`machine-${m.id}-name`}
      data-testid="machine-card"
      data-id={m.id}
      data-machine-id={m.machineId}
      data-hostname={m.hostname}
      data-status={m.status}
      data-offline-reason={m.offlineReason ?? ''}
      data-severity={severity}
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
        <dt>{t('overview.cpu')}</dt>
        <dd data-testid="machine-cpu">
          <Reported value={m.cpuModel ?? null} />
        </dd>
        <dt>{t('overview.host')}</dt>
        <dd data-testid="machine-host">{host || <NotReported />}</dd>
        <dt>{t('overview.agent')}</dt>
        <dd data-testid="machine-agent">
          <span dir="ltr">{m.agentVersion}</span>
        </dd>
        <dt>{t('overview.machineId')}</dt>
        <dd className="machine-id">
          <code dir="ltr" title={m.machineId} data-testid="machine-id">
            <span aria-hidden="true">{shortId(m.machineId)}</span>
            <span className="visually-hidden">{m.machineId}</span>
          </code>
          <CopyButton text={m.machineId} testId="machine-id-copy" />
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
    <p className="machine-heartbeat" data-testid="machine-heartbeat" data-seconds={heartbeatSeconds ?? ''} data-at={lastHeartbeatAt ?? ''}>
      {online && <span className="pulse" aria-hidden="true" />}
      {heartbeatSeconds === null ? (
        t('overview.noHeartbeat')
      ) : (
        <span title={lastHeartbeatAt ?? undefined}>{t('overview.lastHeartbeat', { ago: r.ago(heartbeatSeconds) })}</span>
      )}
    </p>
  );
}

/** MachineStatusBadge is Online, or Offline with its reason: neutral when planned or never seen, the alarm when unplanned. */
function MachineStatusBadge({ machine: m }: { machine: Machine }) {
  const { t } = useTranslation();
  const severity = severityOf(m.status, m.offlineReason);
  const text =
    m.status === 'ONLINE'
      ? t('overview.status.ONLINE')
      : m.offlineReason
        ? t(`overview.offline.${m.offlineReason}`)
        : t('overview.status.OFFLINE');
  return (
    <span
      className={`status machine-status-${m.status.toLowerCase()} machine-status-${severity}`}
      role="status"
      data-testid="machine-status"
      data-status={m.status}
      data-offline-reason={m.offlineReason ?? ''}
      data-severity={severity}
    >
      {text}
    </span>
  );
}

function GpuTable({ machine: m }: { machine: Machine }) {
  const { t } = useTranslation();
  const r = useReadings();
  if (m.gpus.length === 0) {
    return (
      <p className="muted" data-testid="machine-no-gpus">
        {t('overview.noGpus')}
      </p>
    );
  }
  const columns: DataColumn<Gpu>[] = [
    { key: 'gpu', header: t('overview.gpu.name'), primary: true, cell: (gpu) => <GpuSummary gpu={gpu} /> },
    {
      key: 'utilization',
      header: t('overview.gpu.utilization'),
      cellProps: () => ({ 'data-testid': 'gpu-utilization' }),
      cell: ({ telemetry: tm }) => (
        <div className="utilization">
          <span className="reading">{tm?.utilizationPct != null ? r.percent(tm.utilizationPct) : <NotReported />}</span>
          {tm && <Sparkline values={tm.recentUtilizationPct} />}
        </div>
      ),
    },
    {
      key: 'memory',
      header: t('overview.gpu.memory'),
      className: 'reading-figure',
      cellProps: () => ({ 'data-testid': 'gpu-memory' }),
      cell: (gpu) => (
        <ReadingOf
          value={gpu.telemetry?.memoryUsedBytes}
          max={gpu.vramBytes}
          format={r.gib}
          of={(used, total) => t('overview.memoryOf', { used, total })}
        />
      ),
    },
    {
      key: 'temperature',
      header: t('overview.gpu.temperature'),
      className: 'reading-figure',
      cellProps: () => ({ 'data-testid': 'gpu-temperature' }),
      cell: ({ telemetry: tm }) => (tm?.temperatureC != null ? r.celsius(tm.temperatureC) : <NotReported />),
    },
    {
      key: 'power',
      header: t('overview.gpu.power'),
      className: 'reading-figure',
      cellProps: () => ({ 'data-testid': 'gpu-power' }),
      cell: (gpu) => (
        <ReadingOf
          value={gpu.telemetry?.powerDrawW}
          max={gpu.powerLimitW}
          format={r.watts}
          of={(draw, limit) => t('overview.powerOf', { draw, limit })}
        />
      ),
    },
  ];
  return (
    <div className="gpu-table-wrap">
      <DataTable
        caption={t('overview.gpusOf', { hostname: m.hostname })}
        columns={columns}
        rows={m.gpus}
        rowKey={(gpu) => gpu.id}
        rowProps={(gpu) => ({
          'data-testid': 'gpu-row',
          'data-index': gpu.index,
          'data-uuid': gpu.uuid,
          'data-live': Boolean(gpu.telemetry),
          'data-throttled': activeThrottles(gpu.telemetry?.throttleReasons ?? []).length > 0,
          'data-listing': gpu.listing,
          'data-rented': gpu.rented,
        })}
        className="gpu-table"
        testId="gpu-table"
      />
      {m.status !== 'ONLINE' && (
        <p className="muted small" data-testid="machine-telemetry-offline">
          {t('overview.telemetryOffline')}
        </p>
      )}
    </div>
  );
}

/**
 * GpuSummary names a GPU (its index and model) and flags a slowdown at a
 * glance, with whether customers may rent it (a delisted one links to why,
 * on the Benchmarks tab) and whether a rental holds it now; its details (product name, memory, UUID, PCI bus, clocks, power
 * limit, throttle reasons, ECC errors) open on demand.
 */
function GpuSummary({ gpu }: { gpu: Gpu }) {
  const { t } = useTranslation();
  const f = useFormat();
  const r = useReadings();
  const tm = gpu.telemetry;
  const throttles = activeThrottles(tm?.throttleReasons ?? []);
  return (
    <div className="gpu-summary">
      <span className="gpu-title">
        <span className="gpu-index muted" data-testid="gpu-index">
          {t('overview.gpu.indexShort', { index: gpu.index })}
        </span>{' '}
        <span className="gpu-name" dir="ltr" data-testid="gpu-name">
          {gpu.model?.name ?? gpu.name}
        </span>
        {throttles.length > 0 && (
          <span className="chip small throttled" data-testid="gpu-throttled" title={throttles.join(', ')}>
            {t('overview.gpu.throttled')}
          </span>
        )}
      </span>
      <span className="gpu-standing">
        {gpu.listing === 'DELISTED' ? (
          <Link to={`/provider/benchmarks#bench-problem-${gpu.id}`} className="gpu-listing-link" title={t('overview.gpu.delistedWhy')}>
            <ListingBadge listing={gpu.listing} testId="gpu-listing" />
          </Link>
        ) : (
          <ListingBadge listing={gpu.listing} testId="gpu-listing" />
        )}
        {gpu.rented && (
          <span className="chip small rented" data-testid="gpu-rented">
            {t('overview.gpu.rented')}
          </span>
        )}
      </span>
      <details className="gpu-details" data-testid="gpu-details">
        <summary>{t('overview.gpu.details')}</summary>
        <dl className="facts compact gpu-facts">
          {gpu.model && gpu.model.name !== gpu.name && (
            <>
              <dt>{t('overview.gpu.product')}</dt>
              <dd dir="ltr">{gpu.name}</dd>
            </>
          )}
          <dt>{t('overview.gpu.vram')}</dt>
          <dd data-testid="gpu-vram">{gpu.vramBytes != null ? t('overview.vram', { value: isolate(r.gib(gpu.vramBytes)) }) : <NotReported />}</dd>
          <dt>{t('overview.gpu.uuid')}</dt>
          <dd>
            <code dir="ltr" data-testid="gpu-uuid">
              {gpu.uuid}
            </code>
          </dd>
          <dt>{t('overview.gpu.pciBus')}</dt>
          <dd>{gpu.pciBusId ? <code dir="ltr">{gpu.pciBusId}</code> : <NotReported />}</dd>
          <dt>{t('overview.gpu.smClock')}</dt>
          <dd data-testid="gpu-sm-clock">{tm?.smClockMHz != null ? r.mhz(tm.smClockMHz) : <NotReported />}</dd>
          <dt>{t('overview.gpu.powerLimit')}</dt>
          <dd>{gpu.powerLimitW != null ? r.watts(gpu.powerLimitW) : <NotReported />}</dd>
          <dt>{t('overview.gpu.throttle')}</dt>
          <dd data-testid="gpu-throttle">{tm ? <ThrottleReasons reasons={throttles} /> : <NotReported />}</dd>
          <dt>{t('overview.gpu.ecc')}</dt>
          <dd data-testid="gpu-ecc">
            {tm && (tm.eccCorrected != null || tm.eccUncorrected != null) ? (
              t('overview.gpu.eccCounts', {
                corrected: tm.eccCorrected != null ? f.number(tm.eccCorrected) : '—',
                uncorrected: tm.eccUncorrected != null ? f.number(tm.eccUncorrected) : '—',
              })
            ) : (
              <NotReported />
            )}
          </dd>
        </dl>
      </details>
    </div>
  );
}

/** ThrottleReasons names what slows the GPU down, or says it is not throttled (idle included: see activeThrottles). */
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
