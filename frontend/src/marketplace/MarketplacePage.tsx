import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { useQuery } from 'urql';
import type { PathErrors } from '../api/errors';
import type { ListingFieldsFragment, MarketplaceSort } from '../gql/graphql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { FormField, SelectField } from '../ui/FormField';
import { Loading } from '../ui/Loading';
import { countryOptions } from './countries';
import { filterVariables, paramsOf, searchFromParams, SORTS, TIERS, type FilterDraft } from './filters';
import { ListingsTable } from './ListingsTable';
import './marketplace.css';
import { MarketplaceModelsQuery } from './operations';
import { RentDialog } from './RentDialog';
import { useListings } from './useListings';

/**
 * MarketplacePage is where customers find GPUs rentable now: filters (model,
 * country, place, memory, count, price, performance, reliability, tier), an
 * order, the listings a page at a time, and a Rent dialog. Anyone may
 * browse; renting asks an anonymous visitor to sign in first. The search
 * lives in the address, so it can be shared and survives a reload. A
 * field the page or the server finds wrong says so in place; on a phone
 * the results come first and the filters open in a drawer.
 */
export function MarketplacePage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const search = useMemo(() => searchFromParams(params), [params]);
  const [draft, setDraft] = useState<FilterDraft>(search.filter);
  const applied = useMemo(() => filterVariables(search.filter), [search.filter]);
  const view = useListings(applied.filter, search.sort);
  const [renting, setRenting] = useState<ListingFieldsFragment | null>(null);
  const [filtersOpen, setFiltersOpen] = useState(false);
  // The server's problems with the applied filter, beside those found here.
  const errors = useMemo(() => ({ ...view.fieldErrors, ...applied.errors }), [view.fieldErrors, applied.errors]);
  const refused = Object.keys(view.fieldErrors).length > 0;

  function onSearch(e: FormEvent) {
    e.preventDefault();
    setFiltersOpen(false);
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
        <FiltersForm draft={draft} onChange={setDraft} onSubmit={onSearch} onClear={onClear} errors={errors} open={filtersOpen} onClose={() => setFiltersOpen(false)} />
        <div className="marketplace-results">
          <div className="marketplace-toolbar">
            <button
              type="button"
              className="button filters-toggle"
              aria-expanded={filtersOpen}
              aria-controls="marketplace-filters-form"
              onClick={() => setFiltersOpen(true)}
              data-testid="marketplace-filters-open"
            >
              {t('marketplace.filters.open')}
            </button>
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
          ) : refused ? (
            <p className="card" role="alert" data-testid="marketplace-refused">
              {t('marketplace.filters.refused')}
            </p>
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
  /** open shows the form as a drawer on a phone (beside the results on a wide screen it always shows). */
  open: boolean;
  onClose: () => void;
}

/** FiltersForm is the search: every field optional, applied with Search. */
function FiltersForm({ draft, onChange, onSubmit, onClear, errors, open, onClose }: FiltersFormProps) {
  const { t, i18n } = useTranslation();
  const [{ data }] = useQuery({ query: MarketplaceModelsQuery });
  const countries = useMemo(() => countryOptions(i18n.language), [i18n.language]);
  const heading = useRef<HTMLHeadingElement>(null);
  // The drawer takes the focus as it opens, so a keyboard or screen reader
  // user lands in it.
  useEffect(() => {
    if (open) heading.current?.focus();
  }, [open]);
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
    <form
      id="marketplace-filters-form"
      className={`card marketplace-filters${open ? ' open' : ''}`}
      onSubmit={onSubmit}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) onClose();
      }}
      aria-labelledby="marketplace-filters"
      data-testid="marketplace-filters"
      data-open={open}
      noValidate
    >
      <div className="filters-head">
        <h2 id="marketplace-filters" ref={heading} tabIndex={-1}>
          {t('marketplace.filters.title')}
        </h2>
        <button type="button" className="button small filters-close" onClick={onClose} data-testid="marketplace-filters-close">
          {t('marketplace.filters.close')}
        </button>
      </div>
      <SelectField name="model" label={t('marketplace.filters.model')} value={draft.model} onChange={set('model')}>
        <option value="">{t('marketplace.filters.anyModel')}</option>
        {(data?.supportedGpuModels ?? []).map((m) => (
          <option key={m.key} value={m.key}>
            {m.name}
          </option>
        ))}
      </SelectField>
      <SelectField name="filterCountry" label={t('marketplace.filters.country')} value={draft.country.toUpperCase()} onChange={set('country')} errors={errors.country}>
        <option value="">{t('marketplace.filters.anyCountry')}</option>
        {/* A code from the address that is no country stays selected, so its error shows beside it. */}
        {draft.country !== '' && !countries.some((c) => c.code === draft.country.toUpperCase()) && <option value={draft.country.toUpperCase()}>{draft.country}</option>}
        {countries.map((c) => (
          <option key={c.code} value={c.code}>
            {c.name}
          </option>
        ))}
      </SelectField>
      <FormField name="region" label={t('marketplace.filters.region')} hint={t('marketplace.filters.regionHint')} value={draft.region} onChange={set('region')} errors={errors.region} />
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
