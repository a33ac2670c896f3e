import { describe, expect, it } from 'vitest';
import i18n from 'i18next';
import { fieldLabel, windowsOf } from './AnswerChanges';

describe('windowsOf', () => {
  it('reads the windows of a field change, an overnight one included', () => {
    expect(windowsOf('MONDAY 20:00-08:00, SUNDAY 22:00-24:00')).toEqual([
      { day: 'MONDAY', start: '20:00', end: '08:00' },
      { day: 'SUNDAY', start: '22:00', end: '24:00' },
    ]);
  });

  it('gives up on text it does not know, which is then shown as is', () => {
    expect(windowsOf('every night')).toBeNull();
    expect(windowsOf('SOMEDAY 20:00-08:00')).toBeNull();
  });
});

describe('fieldLabel', () => {
  const t = ((key: string, options?: { number?: number }) => (options?.number ? `${key}#${options.number}` : key)) as unknown as typeof i18n.t;

  it('names a GPU entry by its number, counting from 1, then the answer', () => {
    expect(fieldLabel(t, 'gpus.1.ramGb')).toBe('apply.gpu.legend#2 · apply.gpu.ramGb');
    expect(fieldLabel(t, 'gpus.0.availability.windows')).toBe('apply.gpu.legend#1 · schedule.weekly');
  });

  it('names the application answers, and shows an unknown path as is', () => {
    expect(fieldLabel(t, 'upsProtected')).toBe('apply.ups');
    expect(fieldLabel(t, 'somethingNew')).toBe('somethingNew');
  });
});
