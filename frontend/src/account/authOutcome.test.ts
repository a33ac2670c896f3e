import { describe, expect, it } from 'vitest';
import en from '../i18n/locales/en.json';
import type { AuthPayloadFieldsFragment } from '../gql/graphql';
import { FORM_FIELD } from '../api/errors';
import { authOutcome, confirmationToken, confirmErrorCode, CONFIRM_EMAIL_PATH } from './authOutcome';

const user = { id: '7', email: 'ada@example.com', name: 'Ada', roles: ['CUSTOMER' as const], language: 'EN' as const, createdAt: '2026-12-01T09:00:00Z' };
const answer = (over: Partial<AuthPayloadFieldsFragment>): AuthPayloadFieldsFragment => ({
  user: null,
  userErrors: [],
  confirmationSent: false,
  ...over,
});
const signUpFields = ['name', 'email', 'password'];

describe('authOutcome', () => {
  it('signUp that mailed the address is "sent", with no session', () => {
    expect(authOutcome(answer({ confirmationSent: true }), signUpFields)).toEqual({ kind: 'sent' });
  });

  it('signUp answers a taken email exactly as a new one, so the page cannot tell them apart either', () => {
    const fresh = answer({ confirmationSent: true });
    const taken = answer({ confirmationSent: true });
    expect(authOutcome(taken, signUpFields)).toEqual(authOutcome(fresh, signUpFields));
  });

  it('bad fields are shown at their fields, whatever else the answer says', () => {
    const got = authOutcome(
      answer({ userErrors: [{ field: 'input.password', code: 'TOO_SHORT', message: 'short' }] }),
      signUpFields,
    );
    expect(got).toEqual({ kind: 'errors', errors: { password: ['TOO_SHORT'] } });
  });

  it('confirmEmail and logIn that open a session are "signedIn" with the user', () => {
    expect(authOutcome(answer({ user }), ['token'])).toEqual({ kind: 'signedIn', user });
  });

  it('a refused token is an error at the field token', () => {
    const got = authOutcome(answer({ userErrors: [{ field: 'token', code: 'INVALID', message: 'used' }] }), ['token']);
    expect(got).toEqual({ kind: 'errors', errors: { token: ['INVALID'] } });
    expect(confirmErrorCode(got)).toBe('INVALID');
  });

  it('an answer with neither a session, errors nor a mail is an error of the whole form', () => {
    expect(authOutcome(answer({}), signUpFields)).toEqual({ kind: 'errors', errors: { [FORM_FIELD]: ['INVALID'] } });
  });
});

describe('confirmationToken', () => {
  it('reads the token of the emailed link', () => {
    const link = new URL(`https://gpunex.example${CONFIRM_EMAIL_PATH}?token=gpx_c_abc-DEF_123`);
    expect(link.pathname).toBe('/confirm-email');
    expect(confirmationToken(link.search)).toBe('gpx_c_abc-DEF_123');
  });

  it.each([
    { desc: 'no query', search: '' },
    { desc: 'no token', search: '?other=1' },
    { desc: 'an empty token', search: '?token=' },
    { desc: 'a token of spaces', search: '?token=%20%20' },
  ])('is null for $desc, and the page shows INVALID without asking the server', ({ search }) => {
    expect(confirmationToken(search)).toBeNull();
    expect(confirmErrorCode(null)).toBe('INVALID');
  });
});

describe('the texts', () => {
  it('the sent page says the same thing for every address, naming it', () => {
    expect(en.signUp.sentBody).toContain('{{email}}');
    expect(en.signUp.sentHint).toMatch(/already has an account/);
  });

  it('a refused link has its own message at the field token', () => {
    expect(en.userErrors.token.INVALID).toMatch(/Sign up again/);
  });
});
