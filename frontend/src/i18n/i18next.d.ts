import 'i18next';
import type en from './locales/en.json';

// English is the reference locale: keys passed to t() are checked against it
// at compile time, and check:i18n keeps the other locales in step.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
  }
}
