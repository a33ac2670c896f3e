import { useCallback } from 'react';
import { useMutation } from 'urql';
import { apiLanguage, markLanguageUnsaved, type Language } from '../i18n';
import { SetLanguageMutation } from './operations';

/**
 * useStoreLanguage stores a signed-in user's language on their account
 * (setLanguage). Until the server has answered, the choice is marked
 * unsaved in localStorage, so that a reload in between finishes storing it
 * instead of going back to the account's older language.
 */
export function useStoreLanguage(): (userId: string, lng: Language) => Promise<void> {
  const [, setLanguage] = useMutation(SetLanguageMutation);
  return useCallback(
    async (userId: string, lng: Language) => {
      markLanguageUnsaved(userId, lng);
      const result = await setLanguage({ language: apiLanguage(lng) });
      // A failed store stays marked: the next load tries again.
      if (!result.error && result.data?.setLanguage.userErrors.length === 0) markLanguageUnsaved(userId, null);
    },
    [setLanguage],
  );
}
