import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import i18n, { changeLanguage, currentLanguage, LANGUAGES, type Language } from '../i18n';

/**
 * LanguageSwitcher lists every language by its own name (each locale file
 * names itself under language.name), so a user can find theirs whatever
 * language the page is in now.
 */
export function LanguageSwitcher() {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className="language">
      <label htmlFor={id} className="visually-hidden">
        {t('language.label')}
      </label>
      <select
        id={id}
        value={currentLanguage()}
        onChange={(e) => void changeLanguage(e.target.value as Language)}
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
