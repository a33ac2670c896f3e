import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../account/session';
import { useStoreLanguage } from '../account/useStoreLanguage';
import i18n, { changeLanguage, currentLanguage, LANGUAGES, type Language } from '../i18n';

/**
 * LanguageSwitcher lists every language by its own name (each locale file
 * names itself under language.name), so a user can find theirs whatever
 * language the page is in now. A signed-in user's choice is also stored on
 * the account (setLanguage): their emails are written in it and the SPA
 * adopts it at their next log-in, on any device.
 */
export function LanguageSwitcher() {
  const { t } = useTranslation();
  const id = useId();
  const { user } = useSession();
  const storeLanguage = useStoreLanguage();

  async function choose(lng: Language) {
    await changeLanguage(lng);
    // The page has switched already; a store that fails or is cut off by a
    // reload is finished by the next load (useStoreLanguage).
    if (user) await storeLanguage(user.id, lng);
  }

  return (
    <div className="language">
      <label htmlFor={id} className="visually-hidden">
        {t('language.label')}
      </label>
      <select
        id={id}
        value={currentLanguage()}
        onChange={(e) => void choose(e.target.value as Language)}
        data-testid="language-switcher"
      >
        {LANGUAGES.map((lng) => (
          <option key={lng} value={lng} lang={lng}>
            {i18n.getFixedT(lng)('language.name')}
          </option>
        ))}
      </select>
    </div>
  );
}
