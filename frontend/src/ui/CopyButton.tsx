import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import './copy.css';

/**
 * CopyButton copies text to the clipboard and says so for a moment. Where
 * the clipboard is not available (an insecure origin, a refused permission)
 * it says to copy by hand, and the text stays selectable on the page.
 */
export function CopyButton({ text, testId }: { text: string; testId: string }) {
  const { t } = useTranslation();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2500);
    return () => window.clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  }

  return (
    <span className="copy">
      <button type="button" className="button small" onClick={() => void copy()} data-testid={testId}>
        {t('copy.button')}
      </button>
      <span role="status" aria-live="polite" className="muted small" data-testid={`${testId}-status`}>
        {state === 'copied' ? t('copy.copied') : state === 'failed' ? t('copy.failed') : ''}
      </span>
    </span>
  );
}
