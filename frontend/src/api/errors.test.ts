import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse } from 'graphql';
import { CombinedError } from 'urql';
import { describe, expect, it } from 'vitest';
import ar from '../i18n/locales/ar.json';
import en from '../i18n/locales/en.json';
import es from '../i18n/locales/es.json';
import hi from '../i18n/locales/hi.json';
import pt from '../i18n/locales/pt.json';
import { ERROR_CODES, errorCode, errorsByPath, fieldErrors, FORM_FIELD, splitByKnown, type UserErrorLike } from './errors';

// The server's schema, read as the server serves it (not the SPA's generated
// types, which could be stale): the codes it can send are its enums' values.
const schemaDir = fileURLToPath(new URL('../../../schema/', import.meta.url));
const schema = parse(
  readdirSync(schemaDir)
    .filter((f) => f.endsWith('.graphqls'))
    .map((f) => readFileSync(join(schemaDir, f), 'utf8'))
    .join('\n'),
);

function enumValues(name: string): string[] {
  for (const def of schema.definitions) {
    if (def.kind === Kind.ENUM_TYPE_DEFINITION && def.name.value === name) {
      return (def.values ?? []).map((v) => v.name.value);
    }
  }
  throw new Error(`the schema has no enum ${name}`);
}

const SERVER_CODES = enumValues('ErrorCode');
const USER_ERROR_CODES = enumValues('UserErrorCode');
const LOCALES = { en, es, pt, hi, ar } as const;

/** serverError is an urql error as a top-level GraphQL error with code makes it. */
function serverError(code: unknown): CombinedError {
  return new CombinedError({ graphQLErrors: [{ message: 'refused', extensions: { code } }] });
}

/** lookup reads a dotted key of a locale, or undefined. */
function lookup(locale: object, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), locale);
}

describe('errorCode', () => {
  it('knows the server\'s codes (the schema has some)', () => {
    expect(SERVER_CODES).toContain('BAD_USER_INPUT');
    expect(SERVER_CODES).toContain('CONFLICT');
  });

  it.each(SERVER_CODES)('tells the user %s as itself, not as an internal error', (code) => {
    expect(errorCode(serverError(code))).toBe(code);
  });

  it('handles exactly the server\'s codes and NETWORK', () => {
    expect([...ERROR_CODES].sort()).toEqual([...SERVER_CODES, 'NETWORK'].sort());
  });

  it.each(Object.entries(LOCALES))('has every code in %s', (_name, locale) => {
    for (const code of ERROR_CODES) {
      expect(lookup(locale, `errors.codes.${code}`), `errors.codes.${code}`).toEqual(expect.stringMatching(/\S/));
    }
  });

  it('takes the first code it knows among several errors', () => {
    const error = new CombinedError({
      graphQLErrors: [
        { message: 'a', extensions: { code: 'SOMETHING_NEWER' } },
        { message: 'b', extensions: { code: 'CONFLICT' } },
        { message: 'c', extensions: { code: 'FORBIDDEN' } },
      ],
    });
    expect(errorCode(error)).toBe('CONFLICT');
  });

  it('says NETWORK when the server was not reached', () => {
    expect(errorCode(new CombinedError({ networkError: new TypeError('Failed to fetch') }))).toBe('NETWORK');
  });

  it.each([['an unknown code', 'SOMETHING_NEWER'], ['no code', undefined], ['a code that is not a string', 42], ['an inherited name', 'toString']])(
    'falls back to INTERNAL for %s',
    (_name, code) => {
      expect(errorCode(serverError(code))).toBe('INTERNAL');
    },
  );
});

describe('user error codes', () => {
  it.each(Object.entries(LOCALES))('have a generic translation in %s', (_name, locale) => {
    for (const code of USER_ERROR_CODES) {
      expect(lookup(locale, `userErrors.${code}`), `userErrors.${code}`).toEqual(expect.stringMatching(/\S/));
    }
  });
});

describe('grouping user errors', () => {
  const userErrors: UserErrorLike[] = [
    { field: 'input.email', message: 'taken', code: 'TAKEN' },
    { field: 'input.password', message: 'short', code: 'TOO_SHORT' },
    { field: 'input.gpus.1.availability.windows.0.end', message: 'empty', code: 'EMPTY_WINDOW' },
    { field: 'input', message: 'open', code: 'ALREADY_OPEN' },
  ];

  it('fieldErrors groups by the last name of the path, the rest under the form', () => {
    expect(fieldErrors(userErrors, ['email', 'password'])).toEqual({
      email: ['TAKEN'],
      password: ['TOO_SHORT'],
      [FORM_FIELD]: ['EMPTY_WINDOW', 'ALREADY_OPEN'],
    });
  });

  it('errorsByPath keeps the full path less input., the input itself under the form', () => {
    expect(errorsByPath(userErrors)).toEqual({
      email: ['TAKEN'],
      password: ['TOO_SHORT'],
      'gpus.1.availability.windows.0.end': ['EMPTY_WINDOW'],
      [FORM_FIELD]: ['ALREADY_OPEN'],
    });
  });

  it('splitByKnown moves every path the form does not show to the form, losing none', () => {
    const split = splitByKnown(errorsByPath(userErrors), new Set(['email', 'gpus.1.availability.windows.0.end']));
    expect(split).toEqual({
      email: ['TAKEN'],
      'gpus.1.availability.windows.0.end': ['EMPTY_WINDOW'],
      [FORM_FIELD]: ['TOO_SHORT', 'ALREADY_OPEN'],
    });
  });
});
