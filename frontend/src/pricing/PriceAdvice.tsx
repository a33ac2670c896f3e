import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { PriceOutcomeFieldsFragment } from '../gql/graphql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { TimeSeriesChart } from '../ui/TimeSeriesChart';
import { formatChartUsdc, formatUsdc, sameUsdc } from '../ui/usdc';
import { capitalizeFirst, curveChart, feeShare, numberWords, reasonSentence, regionName, wholeCents, type Recommendation } from './advice';
import type { ModelRow } from './pricing';
import { usePriceAdvice } from './usePricing';

/** PriceAdviceProps: the model, and how the card sets a rate (the same path as its form). */
export interface PriceAdviceProps {
  row: ModelRow;
  /** onApply sets the rate to price; applying is true while it is sent. */
  onApply: (price: string) => void;
  applying: boolean;
}

/**
 * PriceAdvice is a model's price advice beside its rate: the recommended
 * and the current rate with what each is expected to bring one GPU, the
 * market's percentiles and where they come from, utilisation and earnings
 * against the rate, the reasons in words, and a button that makes the
 * recommendation the rate. It loads again whenever a rate is set.
 */
export function PriceAdvice({ row, onApply, applying }: PriceAdviceProps) {
  const { t } = useTranslation();
  const view = usePriceAdvice(row.key);
  const { advice } = view;
  const headingId = `price-advice-${row.key}`;

  let body;
  if (advice === undefined && view.error) body = <ErrorNotice error={view.error} onRetry={view.refresh} />;
  else if (advice === undefined)
    body = (
      <p className="muted small" data-testid="price-advice-loading">
        {t('pricing.advice.loading')}
      </p>
    );
  else body = <AdviceBody advice={advice} name={row.name} onApply={onApply} applying={applying} />;

  return (
    <section
      className="price-advice"
      aria-labelledby={headingId}
      data-testid="price-advice"
      data-model={row.key}
      data-basis={advice?.basis ?? ''}
      data-recommended={advice?.recommended.pricePerHour ?? ''}
      data-current={advice?.current?.pricePerHour ?? ''}
      data-fetching={view.fetching}
    >
      <h4 id={headingId}>{t('pricing.advice.title')}</h4>
      <p className="muted small">{t('pricing.advice.lead')}</p>
      {body}
    </section>
  );
}

function AdviceBody({ advice, name, onApply, applying }: { advice: Recommendation; name: string; onApply: (price: string) => void; applying: boolean }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const words = numberWords(lng);
  const recommended = advice.recommended.pricePerHour;
  const isCurrent = advice.current !== null && sameUsdc(advice.current.pricePerHour, recommended);
  return (
    <>
      <div className="price-outcomes">
        <Outcome kind="recommended" outcome={advice.recommended} />
        <Outcome kind="current" outcome={advice.current} />
      </div>
      <p className="muted small" data-testid="price-advice-fee">
        {t('pricing.advice.afterFee', { fee: isolate(words.percent(feeShare(advice.platformFeeBps))), hours: isolate(words.whole(advice.hoursPerMonth)) })}
      </p>
      {advice.ownsModel &&
        (isCurrent ? (
          <p className="price-saved" data-testid="price-advice-current">
            {t('pricing.advice.isCurrent')}
          </p>
        ) : (
          <button type="button" className="button primary" onClick={() => onApply(recommended)} disabled={applying} data-testid="price-apply" data-price={recommended}>
            {t('pricing.advice.apply', { price: isolate(formatUsdc(recommended, lng)) })}
          </button>
        ))}
      <MarketPrices advice={advice} />
      <PriceCurve advice={advice} name={name} />
      <h5>{t('pricing.advice.why')}</h5>
      <ul className="price-reasons" data-testid="price-reasons">
        {advice.reasons.map((r, i) => (
          <li key={`${r.code}-${i}`} data-testid="price-reason" data-code={r.code}>
            {reasonSentence(r, lng, t)}
          </li>
        ))}
      </ul>
    </>
  );
}

/** Outcome is what one rate is expected to bring one GPU: its utilisation and monthly earnings. */
function Outcome({ kind, outcome }: { kind: 'recommended' | 'current'; outcome: PriceOutcomeFieldsFragment | null }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const words = numberWords(lng);
  return (
    <div className={`price-outcome ${kind}`} data-testid={`price-outcome-${kind}`} data-price={outcome?.pricePerHour ?? ''}>
      <h5>{t(`pricing.advice.${kind}`)}</h5>
      {outcome === null ? (
        <p className="muted">{t('pricing.advice.notPriced')}</p>
      ) : (
        <>
          <p className="price-outcome-rate">{t('pricing.advice.perHour', { price: isolate(formatUsdc(outcome.pricePerHour, lng)) })}</p>
          <dl className="facts compact">
            <dt>{t('pricing.advice.utilization')}</dt>
            <dd data-testid="price-outcome-utilization">{words.percent(outcome.utilization)}</dd>
            <dt>{t('pricing.advice.earnings')}</dt>
            <dd data-testid="price-outcome-earnings">{t('pricing.advice.perMonth', { amount: isolate(formatUsdc(wholeCents(outcome.monthlyEarnings), lng)) })}</dd>
          </dl>
        </>
      )}
    </div>
  );
}

/** MarketPrices are comparable listings' percentiles and where they come from, or why there are none. */
function MarketPrices({ advice }: { advice: Recommendation }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const f = useFormat();
  const { market } = advice;
  const perHour = (price: string) => t('pricing.advice.perHour', { price: isolate(formatUsdc(price, lng)) });
  if (!market) {
    return (
      <div className="price-market" data-testid="price-market" data-level="">
        <h5>{t('pricing.advice.market.title')}</h5>
        <p data-testid="price-market-none">{t('pricing.advice.market.none', { price: isolate(formatUsdc(advice.recommended.pricePerHour, lng)) })}</p>
      </div>
    );
  }
  const region = regionName(market.region, lng, t);
  return (
    <div className="price-market" data-testid="price-market" data-level={market.region.level}>
      <h5>{t('pricing.advice.market.title')}</h5>
      <dl className="facts compact">
        <dt>{t('pricing.advice.market.region')}</dt>
        <dd data-testid="price-market-region">
          {market.region.level === 'WORLD' ? capitalizeFirst(region, lng) : t('pricing.advice.market.regionLevel', { region: isolate(region), level: t(`pricing.advice.level.${market.region.level}`) })}
        </dd>
        <dt>{t('pricing.advice.market.p10')}</dt>
        <dd data-testid="price-market-p10">{perHour(market.p10)}</dd>
        <dt>{t('pricing.advice.market.p50')}</dt>
        <dd data-testid="price-market-p50">{perHour(market.p50)}</dd>
        <dt>{t('pricing.advice.market.p90')}</dt>
        <dd data-testid="price-market-p90">{perHour(market.p90)}</dd>
        <dt>{t('pricing.advice.market.gpus')}</dt>
        <dd data-testid="price-market-gpus">{f.number(market.gpuCount)}</dd>
        <dt>{t('pricing.advice.market.providers')}</dt>
        <dd data-testid="price-market-providers">{f.number(market.providerCount)}</dd>
      </dl>
    </div>
  );
}

/**
 * PriceCurve draws expected utilisation and monthly earnings against the
 * rate, one chart each (their units differ), the recommended and the
 * current rate marked; the legends rest at the recommended rate.
 */
function PriceCurve({ advice, name }: { advice: Recommendation; name: string }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const chart = useMemo(() => curveChart(advice.curve, advice.recommended, advice.current), [advice]);
  const marks = useMemo(() => {
    const out = [{ x: chart.xs[chart.recommended] ?? 0, label: t('pricing.advice.chart.recommendedMark') }];
    if (chart.current !== null) out.push({ x: chart.xs[chart.current] ?? 0, label: t('pricing.advice.chart.currentMark') });
    return out;
  }, [chart, t]);
  const utilization = useMemo(() => [{ label: t('pricing.advice.chart.utilizationSeries'), values: chart.utilization }], [chart, t]);
  const earnings = useMemo(() => [{ label: t('pricing.advice.chart.earningsSeries'), values: chart.earnings }], [chart, t]);
  const formats = useMemo(() => {
    const percent = new Intl.NumberFormat(lng, { style: 'percent', maximumFractionDigits: 0 });
    const whole = new Intl.NumberFormat(lng, { maximumFractionDigits: 0 });
    return { rate: (v: number) => formatChartUsdc(v, lng), percent: (v: number) => percent.format(v / 100), whole: (v: number) => whole.format(v) };
  }, [lng]);
  if (chart.xs.length < 2) return null;
  const x = { label: t('pricing.advice.chart.rate'), time: false, format: formats.rate };
  return (
    <div className="price-curve" data-testid="price-curve" data-points={chart.xs.length}>
      <TimeSeriesChart
        title={t('pricing.advice.chart.utilization', { model: isolate(name) })}
        xs={chart.xs}
        series={utilization}
        x={x}
        y={{ label: t('pricing.advice.chart.utilizationAxis'), format: formats.percent, range: [0, 100] }}
        marks={marks}
        at={chart.recommended}
        height={150}
        testId="price-curve-utilization"
      />
      <TimeSeriesChart
        title={t('pricing.advice.chart.earnings', { model: isolate(name) })}
        xs={chart.xs}
        series={earnings}
        x={x}
        y={{ label: t('pricing.advice.chart.earningsAxis'), format: formats.whole }}
        marks={marks}
        at={chart.recommended}
        height={150}
        testId="price-curve-earnings"
      />
    </div>
  );
}
