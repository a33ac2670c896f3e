import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { useMutation, type CombinedError, type TypedDocumentNode } from 'urql';
import { FORM_FIELD, type FieldErrors } from '../api/errors';
import type { AuthPayloadFieldsFragment, UserErrorCode } from '../gql/graphql';
import { authOutcome } from './authOutcome';
import { useSession, type SessionUser } from './session';

/**
 * AuthInput is a sign-up or log-in form's values, one string a field, and
 * what send adds to them (an enum such as the sign-up's language).
 */
type AuthInput = Record<string, string | null | undefined>;

interface AuthFormOptions<Data, Input extends AuthInput> {
  /** mutation is signUp or logIn; it takes the form's values as its input. */
  mutation: TypedDocumentNode<Data, { input: Input }>;
  /** initial holds every field empty; its keys are the fields errors are shown at. */
  initial: Input;
  /**
   * send, if set, gives the input to send for the form's values, read when
   * the form is submitted (the sign-up adds the page's language).
   */
  send?: (values: Input) => Input;
  /** payload picks the AuthPayload out of the mutation's answer. */
  payload: (data: Data) => AuthPayloadFieldsFragment;
  /** destination is where the user goes once signed in. */
  destination: (user: SessionUser) => string;
  /**
   * onSent runs when the answer opens no session but says an email is on
   * its way (signUp), with the values sent; the form stays where it is.
   */
  onSent?: (values: Input) => void;
}

/** AuthFieldProps are what useAuthForm gives each FormField. */
export interface AuthFieldProps {
  name: string;
  value: string;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
  errors: UserErrorCode[] | undefined;
}

/** AuthForm is a sign-up or log-in form's state, as AuthCard and its fields read it. */
export interface AuthForm<Input extends AuthInput> {
  /** field binds one input to the form: its value, its changes and its errors. */
  field: (name: keyof Input & string) => AuthFieldProps;
  onSubmit: (event: FormEvent<HTMLFormElement>) => Promise<void>;
  /** formErrors are the user errors that name no field of the form. */
  formErrors: UserErrorCode[];
  fetching: boolean;
  /** error is a top-level error (network, rate limit): shown by ErrorNotice. */
  error: CombinedError | undefined;
}

/**
 * useAuthForm runs a sign-up or log-in form: it sends the values, shows the
 * server's user errors at their fields, and when a session opens (log-in)
 * rebuilds it (see useSession's changed) and moves on to destination,
 * replacing the form in the history; when the server mailed the address
 * instead (sign-up) it calls onSent.
 */
export function useAuthForm<Data, Input extends AuthInput>({
  mutation,
  initial,
  send,
  payload,
  destination,
  onSent,
}: AuthFormOptions<Data, Input>): AuthForm<Input> {
  const navigate = useNavigate();
  const session = useSession();
  const [result, execute] = useMutation(mutation);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [values, setValues] = useState(initial);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const res = await execute({ input: send ? send(values) : values });
    const answer = res.data && payload(res.data);
    if (!answer) return; // top-level error: shown by ErrorNotice
    const outcome = authOutcome(answer, Object.keys(initial));
    if (outcome.kind === 'errors') {
      setErrors(outcome.errors);
      return;
    }
    setErrors({});
    if (outcome.kind === 'sent') {
      onSent?.(values);
      return;
    }
    session.changed();
    navigate(destination(outcome.user), { replace: true });
  }

  return {
    field: (name) => ({
      name,
      value: values[name] ?? '', // never undefined: name is a key of initial
      onChange: (e) => setValues({ ...values, [name]: e.target.value }),
      errors: errors[name],
    }),
    onSubmit,
    formErrors: errors[FORM_FIELD] ?? [],
    fetching: result.fetching,
    error: result.error,
  };
}
