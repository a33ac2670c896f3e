import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Language as ApiLanguage } from '../gql/enums';
import ar from './locales/ar.json';
import en from './locales/en.json';
import es from './locales/es.json';
import hi from './locales/hi.json';
import pt from './locales/pt.json';

/** LANGUAGES are the locales the SPA ships, in switcher order. */
export const LANGUAGES = ['en', 'es', 'pt', 'hi', 'ar'] as const;

/** Language is one of LANGUAGES. */
export type Language = (typeof LANGUAGES)[number];

/** LANGUAGE_STORAGE_KEY is where the user's choice is kept in localStorage. */
export const LANGUAGE_STORAGE_KEY = 'gpunex.language';

/** resources holds every locale; the check:i18n script keeps their keys equal. */
export const resources = {
  en: { translation: en },
  es: { translation: es },
  pt: { translation: pt },
  hi: { translation: hi },
  ar: { translation: ar },
} as const;

function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** storedLanguage is the language this browser chose (localStorage), if any. */
export function storedLanguage(): Language | null {
  try {
    const value = window.localStorage.getItem(LANGUAGE_STORAGE_KEY);
    return isLanguage(value) ? value : null;
  } catch {
    return null;
  }
}

function browserLanguage(): Language | null {
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return null;
}

/**
 * UNSAVED_LANGUAGE_KEY holds, in localStorage, a signed-in user's choice
 * that is not yet stored on their account ("<user id>:<language>"): the
 * page can be reloaded or left before setLanguage answers, and the next
 * load must finish storing the choice rather than adopt the account's older
 * language over it.
 */
const UNSAVED_LANGUAGE_KEY = 'gpunex.language.unsaved';

/** unsavedLanguage is user userId's choice not yet stored on the account, if any. */
export function unsavedLanguage(userId: string): Language | null {
  try {
    const value = window.localStorage.getItem(UNSAVED_LANGUAGE_KEY);
    const [owner, lng] = value?.split(':') ?? [];
    return owner === userId && isLanguage(lng) ? lng : null;
  } catch {
    return null;
  }
}

/** markLanguageUnsaved records (or, with null, clears) user userId's unsaved choice. */
export function markLanguageUnsaved(userId: string, lng: Language | null): void {
  try {
    if (lng) window.localStorage.setItem(UNSAVED_LANGUAGE_KEY, `${userId}:${lng}`);
    else if (unsavedLanguage(userId)) window.localStorage.removeItem(UNSAVED_LANGUAGE_KEY);
  } catch {
    // Storage disabled: the choice is stored by the request alone.
  }
}

/** apiLanguage is lng as the API's Language enum writes it ('ar' is 'AR'). */
export function apiLanguage(lng: Language): ApiLanguage {
  return lng.toUpperCase() as ApiLanguage;
}

/**
 * fromApiLanguage is the API's Language value as a locale of the SPA, or
 * null for a value it does not ship (a newer server).
 */
export function fromApiLanguage(value: string | null | undefined): Language | null {
  const lng = value?.toLowerCase();
  return isLanguage(lng) ? lng : null;
}

/** currentLanguage is the active language, narrowed to LANGUAGES. */
export function currentLanguage(): Language {
  return isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : 'en';
}

// The document follows the language: lang for screen readers and fonts, dir
// so Arabic lays out right to left, and a translated title.
function applyToDocument(language: string) {
  const root = document.documentElement;
  root.lang = language;
  root.dir = i18n.dir(language);
  document.title = i18n.t('app.documentTitle');
}

/** changeLanguage switches the UI language and remembers the choice. */
export async function changeLanguage(language: Language): Promise<void> {
  try {
    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, language);
  } catch {
    // Private mode or storage disabled: the choice lasts for this page only.
  }
  await i18n.changeLanguage(language);
}

i18n.on('languageChanged', applyToDocument);

void i18n.use(initReactI18next).init({
  resources,
  lng: storedLanguage() ?? browserLanguage() ?? 'en',
  fallbackLng: 'en',
  supportedLngs: LANGUAGES,
  // React escapes what it renders; escaping again would show &amp; and co.
  interpolation: { escapeValue: false },
  // Resources are bundled, so initialise synchronously: the first render
  // already has its strings and the document its lang and dir.
  initAsync: false,
});

export default i18n;
