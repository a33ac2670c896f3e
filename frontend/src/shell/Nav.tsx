import { useId, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink, useLocation } from 'react-router-dom';
import { useDismiss } from '../ui/useDismiss';
import { current, navEntries, type NavEntry, type NavGroupKey, type NavItem } from './navigation';

/** Below this width the sections fold into one menu button. */
const PHONE_QUERY = '(max-width: 48rem)';

function subscribeToWidth(onChange: () => void): () => void {
  const q = window.matchMedia(PHONE_QUERY);
  q.addEventListener('change', onChange);
  return () => q.removeEventListener('change', onChange);
}

/** useNarrow reports whether the window is phone-sized, live. */
function useNarrow(): boolean {
  return useSyncExternalStore(subscribeToWidth, () => window.matchMedia(PHONE_QUERY).matches);
}

/**
 * Nav is the site's navigation. On a desktop it is one row: the customer's
 * pages as links and each group (Fleet, Money, Admin, Account) as a menu
 * that opens under its name, which is marked while one of its pages is
 * open. On a phone it is one button named after the current page that
 * opens every section as a headed list. A menu closes on a choice, on
 * Escape and on a click outside it.
 */
export function Nav({ user, loading }: { user: { roles: readonly string[] } | null; loading: boolean }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const narrow = useNarrow();
  const entries = navEntries(user, loading);
  const here = current(entries, pathname);
  // The open group on a desktop, or 'menu' for the phone's whole menu,
  // with the page and layout it was opened on: a new page or a change of
  // layout closes it.
  const [opened, setOpened] = useState<{ which: NavGroupKey | 'menu'; at: string } | null>(null);
  const at = `${narrow}:${pathname}`;
  const open = opened?.at === at ? opened.which : null;
  const setOpen = (which: NavGroupKey | 'menu' | null) => setOpened(which ? { which, at } : null);
  const root = useRef<HTMLElement>(null);
  const panelId = useId();

  useDismiss(open !== null, root, () => setOpened(null));

  const label = (e: NavEntry) => (e.kind === 'link' ? t(`nav.${e.item.key}`) : t(`nav.groups.${e.key}`));
  const navLink = (item: NavItem, group?: NavGroupKey) => (
    <NavLink to={item.to} end={item.end} data-testid={item.testId} data-group={group} onClick={() => setOpen(null)}>
      {t(`nav.${item.key}`)}
    </NavLink>
  );

  if (narrow) {
    const menuOpen = open === 'menu';
    return (
      <nav aria-label={t('nav.label')} className="nav nav-narrow" ref={root}>
        <button
          type="button"
          className="nav-toggle"
          aria-expanded={menuOpen}
          aria-controls={panelId}
          onClick={() => setOpen(menuOpen ? null : 'menu')}
          data-testid="nav-toggle"
        >
          <MenuIcon />
          <span className="visually-hidden">{t('nav.menu')}: </span>
          <span data-testid="nav-current">{here ? t(`nav.${here.item.key}`) : t('nav.menu')}</span>
        </button>
        <div id={panelId} className="nav-panel" hidden={!menuOpen} data-testid="nav-panel">
          <ul className="nav-links">
            {entries.map((e) => (e.kind === 'link' ? <li key={e.item.key}>{navLink(e.item)}</li> : null))}
          </ul>
          {entries.map((e) =>
            e.kind === 'group' ? (
              <section key={e.key} className="nav-section" aria-labelledby={`${panelId}-${e.key}`}>
                <h2 id={`${panelId}-${e.key}`}>{label(e)}</h2>
                <ul className="nav-links">
                  {e.items.map((item) => (
                    <li key={item.key}>{navLink(item, e.key)}</li>
                  ))}
                </ul>
              </section>
            ) : null,
          )}
        </div>
      </nav>
    );
  }

  return (
    <nav aria-label={t('nav.label')} className="nav nav-wide" ref={root}>
      <ul className="nav-row">
        {entries.map((e) =>
          e.kind === 'link' ? (
            <li key={e.item.key}>{navLink(e.item)}</li>
          ) : (
            <li key={e.key} className="nav-group">
              <button
                type="button"
                className={here?.group === e.key ? 'nav-group-button active' : 'nav-group-button'}
                aria-expanded={open === e.key}
                aria-controls={`${panelId}-${e.key}`}
                onClick={() => setOpen(open === e.key ? null : e.key)}
                data-testid={`nav-group-${e.key}`}
              >
                {label(e)}
                <span className="nav-caret" aria-hidden="true" />
              </button>
              <ul id={`${panelId}-${e.key}`} className="nav-menu" hidden={open !== e.key}>
                {e.items.map((item) => (
                  <li key={item.key}>{navLink(item, e.key)}</li>
                ))}
              </ul>
            </li>
          ),
        )}
      </ul>
    </nav>
  );
}

function MenuIcon() {
  return (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d="M4 6h16M4 12h16M4 18h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" fill="none" />
    </svg>
  );
}
