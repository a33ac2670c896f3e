import type { ReactNode } from 'react';
import type { DataAttributes } from './DataTable';
import './tabs.css';

/** FilterTabsProps are a filter's choices, the chosen one and how to draw each. */
export interface FilterTabsProps<T extends string> {
  /** label names the filter, already translated (the tab list's accessible name). */
  label: string;
  tabs: readonly T[];
  current: T;
  onSelect: (tab: T) => void;
  /** tabLabel is a tab's text, already translated. */
  tabLabel: (tab: T) => string;
  /** badge is drawn after a tab's text (a count), when it returns one. */
  badge?: (tab: T) => ReactNode;
  /** testId prefixes each tab's data-testid: `${testId}-${tab}`. */
  testId: string;
  /** tabProps gives a tab more data-* attributes (e.g. data-count). */
  tabProps?: (tab: T) => DataAttributes;
}

/**
 * FilterTabs is the one row of filter tabs above a list (the review queue's
 * statuses, the admin payouts' states): buttons in a tablist, the chosen
 * one selected; choosing is the caller's (usually the URL's query).
 */
export function FilterTabs<T extends string>({ label, tabs, current, onSelect, tabLabel, badge, testId, tabProps }: FilterTabsProps<T>) {
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map((tab) => (
        <button
          {...tabProps?.(tab)}
          key={tab}
          type="button"
          role="tab"
          aria-selected={tab === current}
          className={tab === current ? 'tab active' : 'tab'}
          onClick={() => onSelect(tab)}
          data-testid={`${testId}-${tab}`}
        >
          {tabLabel(tab)}
          {badge?.(tab)}
        </button>
      ))}
    </div>
  );
}
