import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { useQuery } from 'urql';
import type { PathErrors } from '../api/errors';
import type { ListingFieldsFragment, MarketplaceSort } from '../gql/graphql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { FormField, SelectField } from '../ui/FormField';
import { Loading } from '../ui/Loading';
import { filterVariables, paramsOf, searchFromParams, SORTS, TIERS, type FilterDraft } from './filters';
import { ListingsTable } from './ListingsTable';
import './marketplace.css';
import { MarketplaceModelsQuery } from './operations';
import { RentDialog } from './RentDialog';
import { useListings } from './useListings';

/**
 * MarketplacePage is where customers find GPUs rentable now: filters (model,
 * place, memory, count, price, performance, reliability, tier), an order,
 * the listings a page at a time, and a Rent dialog. Anyone may browse;
 * renting asks an anonymous visitor to sign in first. The search lives in
 * the address, so it can be shared and survives a reload.
 */
export function MarketplacePage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const search = useMemo(() => searchFromParams(params), [params]);
  const [draft, setDraft] = useState<FilterDraft>(search.filter);
  const applied = useMemo(() => filterVariables(search.filter), [search.filter]);
  const view = useListings(applied.filter, search.sort);
  const [renting, setRenting] = useState<ListingFieldsFragment | null>(null);

  function onSearch(e: FormEvent) {
    e.preventDefault();
    const next = paramsOf({ filter: draft, sort: search.sort });
    // The same search again asks again: what is free changes by the minute.
    if (next.toString() === params.toString()) view.refresh();
    else setParams(next);
  }

  function onSort(sort: MarketplaceSort) {
    setParams(paramsOf({ filter: search.filter, sort }));
  }

  function onClear() {
    const empty = searchFromParams(new URLSearchParams()).filter;
    setDraft(empty);
    setParams(paramsOf({ filter: empty, sort: search.sort }));
  }

  return (
    <section className="page marketplace" data-testid="marketplace-page" data-listings={view.listings.length} data-loaded={view.loaded}>
      <header className="page-head">
        <h1>{t('marketplace.title')}</h1>
        <p className="lead">{t('marketplace.lead')}</p>
      </header>
      <div className="marketplace-layout">
        <FiltersForm draft={draft} onChange={setDraft} onSubmit={onSearch} onClear={onClear} errors={applied.errors} />
        <div className="marketplace-results">
          <div className="marketplace-toolbar">
            <SelectField name="sort" label={t('marketplace.sort.label')} value={search.sort} onChange={(e) => onSort(e.target.value as MarketplaceSort)} className="inline-field">
              {SORTS.map((s) => (
                <option key={s} value={s}>
                  {t(`marketplace.sort.${s}`)}
                </option>
              ))}
            </SelectField>
          </div>
          {view.error && <ErrorNotice error={view.error} onRetry={view.refresh} />}
          {!view.loaded ? (
            view.error ? null : <Loading />
          ) : view.listings.length === 0 ? (
            <p className="card" data-testid="marketplace-empty">
              {t('marketplace.empty')}
            </p>
          ) : (
            <ListingsTable listings={view.listings} onRent={setRenting} />
          )}
          {view.loaded && view.hasMore && (
            <button type="button" className="button" onClick={view.loadMore} disabled={view.fetching} data-testid="marketplace-more">
              {view.fetching ? t('common.loading') : t('marketplace.more')}
            </button>
          )}
        </div>
      </div>
      {renting && <RentDialog listing={renting} onClose={() => setRenting(null)} />}
    </section>
  );
}

interface FiltersFormProps {
  draft: FilterDraft;
  onChange: (d: FilterDraft) => void;
  onSubmit: (e: FormEvent) => void;
  onClear: () => void;
  errors: PathErrors;
}

/** FiltersForm is the search: every field optional, applied with Search. */
function FiltersForm({ draft, onChange, onSubmit, onClear, errors }: FiltersFormProps) {
  const { t } = useTranslation();
  const [{ data }] = useQuery({ query: MarketplaceModelsQuery });
  const set = (key: keyof FilterDraft) => (e: { target: { value: string } }) => onChange({ ...draft, [key]: e.target.value });
  const number = (key: keyof FilterDraft, min: number, max?: number) => ({
    type: 'number',
    inputMode: 'numeric' as const,
    min,
    max,
    step: 1,
    value: draft[key],
    onChange: set(key),
    errors: errors[key],
  });
  return (
    <form className="card marketplace-filters" onSubmit={onSubmit} aria-labelledby="marketplace-filters" data-testid="marketplace-filters" noValidate>
      <h2 id="marketplace-filters">{t('marketplace.filters.title')}</h2>
      <SelectField name="model" label={t('marketplace.filters.model')} value={draft.model} onChange={set('model')}>
        <option value="">{t('marketplace.filters.anyModel')}</option>
        {(data?.supportedGpuModels ?? []).map((m) => (
          <option key={m.key} value={m.key}>
            {m.name}
          </option>
        ))}
      </SelectField>
      <FormField name="country" label={t('marketplace.filters.country')} hint={t('marketplace.filters.countryHint')} maxLength={2} autoComplete="off" value={draft.country} onChange={set('country')} errors={errors.country} />
      <FormField name="region" label={t('marketplace.filters.region')} hint={t('marketplace.filters.regionHint')} value={draft.region} onChange={set('region')} />
      <FormField name="minVramGb" label={t('marketplace.filters.minVramGb')} {...number('minVramGb', 1)} />
      <FormField name="minGpus" label={t('marketplace.filters.minGpus')} {...number('minGpus', 1)} />
      <FormField
        name="maxPricePerHour"
        label={t('marketplace.filters.maxPrice')}
        inputMode="decimal"
        dir="ltr"
        value={draft.maxPricePerHour}
        onChange={set('maxPricePerHour')}
        errors={errors.maxPricePerHour}
      />
      <FormField name="minPerformance" label={t('marketplace.filters.minPerformance')} {...number('minPerformance', 0, 100)} />
      <FormField name="minReliability" label={t('marketplace.filters.minReliability')} {...number('minReliability', 0, 100)} />
      <SelectField name="tier" label={t('marketplace.filters.tier')} value={draft.tier} onChange={set('tier')}>
        <option value="">{t('marketplace.filters.anyTier')}</option>
        {TIERS.map((tier) => (
          <option key={tier} value={tier}>
            {t(`tiers.${tier}.name`)}
          </option>
        ))}
      </SelectField>
      <div className="filter-actions">
        <button type="submit" className="button primary" data-testid="marketplace-search">
          {t('marketplace.filters.search')}
        </button>
        <button type="button" className="button" onClick={onClear} data-testid="marketplace-clear">
          {t('marketplace.filters.clear')}
        </button>
      </div>
    </form>
  );
}
