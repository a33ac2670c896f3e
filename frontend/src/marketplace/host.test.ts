import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import ar from '../i18n/locales/ar.json';
import en from '../i18n/locales/en.json';
import es from '../i18n/locales/es.json';
import hi from '../i18n/locales/hi.json';
import pt from '../i18n/locales/pt.json';
import { hostClaim } from './host';

const resources = { en: { translation: en }, es: { translation: es }, pt: { translation: pt }, hi: { translation: hi }, ar: { translation: ar } };

function tIn(lng: string) {
  const i18n = i18next.createInstance();
  void i18n.init({ resources, lng, fallbackLng: 'en', initAsync: false, interpolation: { escapeValue: false } });
  return i18n.t;
}

const host = { cpuCores: 192, ramBytes: 1536 * 1024 ** 3, diskBytes: 7.68e12 };

describe('hostClaim', () => {
  it('writes cores, RAM in GiB and disk in TB', () => {
    expect(hostClaim(host, tIn('en'), 'en')).toBe('CPU cores: 192 · RAM: 1,536 GiB · Disk: 7.7 TB');
  });

  it('leaves out what the agent did not report, and says nothing for an old agent', () => {
    expect(hostClaim({ cpuCores: 16, ramBytes: null }, tIn('en'), 'en')).toBe('CPU cores: 16');
    expect(hostClaim({ ramBytes: 64.5 * 1024 ** 3 }, tIn('en'), 'en')).toBe('RAM: 64.5 GiB');
    expect(hostClaim({ cpuCores: 1 }, tIn('en'), 'en')).toBe('CPU cores: 1');
    expect(hostClaim({ diskBytes: 7.68e12, diskFreeBytes: 6.1e12 }, tIn('en'), 'en')).toBe('Disk: 6.1 TB free of 7.7 TB');
    expect(hostClaim({ diskBytes: 512e9, diskFreeBytes: 98.4e9 }, tIn('en'), 'en')).toBe('Disk: 98 GB free of 512 GB');
    expect(hostClaim({}, tIn('en'), 'en')).toBe('');
  });

  it.each(['es', 'pt', 'hi', 'ar'])('is translated in %s', (lng) => {
    const s = hostClaim(host, tIn(lng), lng);
    expect(s).not.toContain('marketplace.listing');
    expect(s).not.toBe(hostClaim(host, tIn('en'), 'en'));
  });
});
