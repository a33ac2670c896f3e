import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, type CombinedError } from 'urql';
import { errorsByPath, FORM_FIELD, type PathErrors } from '../api/errors';
import type { UserErrorCode } from '../gql/graphql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { FieldErrorText, FormField } from '../ui/FormField';
import { TimeSeriesChart } from '../ui/TimeSeriesChart';
import { formatChartUsdc, formatUsdc, parseUsdcInput, sameUsdc, type UsdcProblem } from '../ui/usdc';
import { SetGpuPriceMutation } from './operations';
import { PriceAdvice } from './PriceAdvice';
import { priceSeries, type ModelRow } from './pricing';

// A problem found before sending is shown as the server would name it:
// more than six decimals is a value not of the accepted form.
const PROBLEM_CODE: Record<UsdcProblem, UserErrorCode> = {
  REQUIRED: 'REQUIRED',
  INVALID: 'INVALID',
  TOO_MANY_DECIMALS: 'INVALID',
  OUT_OF_RANGE: 'OUT_OF_RANGE',
};

/**
 * ModelPriceCard is one GPU model's rate: the current one, a field to
 * change it (checked here as a USDC amount of at most six decimals, then by
 * the server, whose userErrors are shown at the field), the price advice
 * with a button that applies it through the same mutation, and the history
 * as a stepped line and a list.
 */
export function ModelPriceCard({ row }: { row: ModelRow }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const f = useFormat();
  const [text, setText] = useState('');
  const [errors, setErrors] = useState<PathErrors>({});
  const [saved, setSaved] = useState(false);
  const [failure, setFailure] = useState<CombinedError | undefined>(undefined);
  const [result, setPrice] = useMutation(SetGpuPriceMutation);
  const current = row.price?.pricePerHour ?? null;
  const name = `${row.key}.pricePerHour`;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    const parsed = parseUsdcInput(text);
    if (!parsed.ok) {
      setErrors({ pricePerHour: [PROBLEM_CODE[parsed.problem]] });
      return;
    }
    await save(parsed.value);
  }

  // save sets the rate, from the form or from the advice's apply button:
  // the answer's GpuPrice refetches the page's query and the advice.
  async function save(pricePerHour: string) {
    setSaved(false);
    setErrors({});
    const res = await setPrice({ input: { model: row.key, pricePerHour } });
    setFailure(res.error);
    const payload = res.data?.setGpuPrice;
    if (!payload) return;
    if (payload.userErrors.length > 0) {
      const byPath = errorsByPath(payload.userErrors);
      const out: PathErrors = {};
      for (const [path, codes] of Object.entries(byPath)) (out[path === 'pricePerHour' ? 'pricePerHour' : FORM_FIELD] ??= []).push(...codes);
      setErrors(out);
      return;
    }
    setText('');
    setSaved(true);
  }

  return (
    <article className="price-model" data-testid="price-model" data-model={row.key} data-price={current ?? ''}>
      <header className="price-model-head">
        <h3 dir="auto">{row.name}</h3>
        <span className="muted small">{t('pricing.rates.gpus', { count: row.gpus })}</span>
      </header>
      <p className="price-current" data-testid="price-current">
        {current === null ? (
          <span className="muted">{t('pricing.rates.notPriced')}</span>
        ) : (
          t('pricing.rates.current', { price: isolate(formatUsdc(current, lng)), since: row.price ? f.dateTime(row.price.updatedAt) : '' })
        )}
      </p>
      <form className="price-form" onSubmit={(e) => void onSubmit(e)} noValidate>
        <FormField
          name={name}
          label={t('pricing.rates.newPrice', { model: isolate(row.name) })}
          hint={t('pricing.rates.hint')}
          inputMode="decimal"
          autoComplete="off"
          dir="ltr"
          placeholder={current === null ? t('pricing.rates.placeholder') : formatUsdc(current, 'en')}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setSaved(false);
          }}
          errors={errors.pricePerHour}
        />
        <button type="submit" className="button primary" disabled={result.fetching} data-testid="price-save">
          {t('pricing.rates.save')}
        </button>
      </form>
      <FieldErrorText name={FORM_FIELD} errors={errors[FORM_FIELD]} className="form-error" testId="price-form-error" />
      {failure && <ErrorNotice error={failure} />}
      {saved && current !== null && (
        <p className="price-saved" role="status" data-testid="price-saved">
          {t('pricing.rates.saved', { price: isolate(formatUsdc(current, lng)) })}
        </p>
      )}
      <PriceAdvice row={row} onApply={(price) => void save(price)} applying={result.fetching} />
      {row.price && row.price.history.length > 0 && <PriceHistory name={row.name} history={row.price.history} current={current} />}
    </article>
  );
}

/** PriceHistory draws a model's rates as steps and lists them, newest first. */
function PriceHistory({ name, history, current }: { name: string; history: readonly { pricePerHour: string; at: string }[]; current: string | null }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const f = useFormat();
  // Now, to the minute: the chart's last step runs to it, and a new array
  // each minute at most (TimeSeriesChart redraws on new data).
  const minute = Math.floor(Date.now() / 60_000) * 60;
  const series = useMemo(() => priceSeries(history, minute), [history, minute]);
  const chartSeries = useMemo(() => [{ label: t('pricing.history.series'), values: series.values, step: true }], [series, t]);
  return (
    <details className="price-history" data-testid="price-history">
      <summary>{t('pricing.history.title', { count: history.length })}</summary>
      <TimeSeriesChart
        title={t('pricing.history.chart', { model: isolate(name) })}
        xs={series.xs}
        series={chartSeries}
        x={{ label: t('pricing.history.when'), time: true }}
        y={{ label: t('pricing.history.price'), format: (v) => formatChartUsdc(v, lng) }}
        height={160}
        testId="price-history-chart"
      />
      <ol className="plain price-history-list">
        {history.map((h, i) => (
          <li key={`${h.at}-${i}`} data-testid="price-history-item" data-price={h.pricePerHour}>
            <span>{f.dateTime(h.at)}</span>
            <span className="price-history-value">
              {t('pricing.history.item', { price: isolate(formatUsdc(h.pricePerHour, lng)) })}
              {i === 0 && current !== null && sameUsdc(h.pricePerHour, current) && <span className="muted small"> {t('pricing.history.current')}</span>}
            </span>
          </li>
        ))}
      </ol>
    </details>
  );
}
