import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import type { UserErrorCode } from '../gql/graphql';
import './form.css';
import { userErrorText } from './userErrorText';

/** CommonProps are what every field has besides its control's own attributes. */
interface CommonProps {
  /** name is the field's path (email, gpus.0.quantity); it names the test ids. */
  name: string;
  label: string;
  hint?: string;
  /** errors are UserError codes the server returned for this field. */
  errors?: UserErrorCode[];
  className?: string;
}

/** ControlAria is what a field's control must carry to be labelled and described. */
export interface ControlAria {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
  'data-testid': string;
}

// A field's hint and error texts, which its control points at, take their
// ids from the field's own.
const hintId = (id: string) => `${id}-hint`;
const errorId = (id: string) => `${id}-error`;

interface FieldFrameProps extends CommonProps {
  /** control renders the input with the ids and ARIA attributes it needs. */
  control: (aria: ControlAria) => ReactNode;
}

/**
 * FieldFrame lays out a label, a control, an optional hint and the server's
 * validation errors for the field, translated by code, right under it.
 */
function FieldFrame({ name, label, hint, errors = [], className, control }: FieldFrameProps) {
  const id = useId();
  const invalid = errors.length > 0;
  const describedBy = [hint ? hintId(id) : null, invalid ? errorId(id) : null].filter(Boolean).join(' ');

  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {control({
        id,
        'aria-invalid': invalid || undefined,
        'aria-describedby': describedBy || undefined,
        'data-testid': `field-${name}`,
      })}
      <FieldNotes id={id} name={name} hint={hint} errors={errors} />
    </div>
  );
}

/** FieldNotes stand under a field's control: its hint, then its errors. */
function FieldNotes({ id, name, hint, errors }: { id: string; name: string; hint?: string; errors: UserErrorCode[] }) {
  return (
    <>
      {hint && (
        <p className="field-hint" id={hintId(id)}>
          {hint}
        </p>
      )}
      <FieldErrorText name={name} errors={errors} id={errorId(id)} />
    </>
  );
}

/** frameOf splits a field's props into its frame's and its control's. */
function frameOf<P extends CommonProps>({ name, label, hint, errors, className, ...control }: P) {
  return [{ name, label, hint, errors, className }, control] as const;
}

type FormFieldProps = CommonProps & InputHTMLAttributes<HTMLInputElement>;

/**
 * FormField is a labelled input that shows the server's validation errors for
 * its field, translated by code, right under it.
 */
export function FormField(props: FormFieldProps) {
  const [frame, input] = frameOf(props);
  return <FieldFrame {...frame} control={(aria) => <input name={frame.name} {...aria} {...input} />} />;
}

type SelectFieldProps = CommonProps & SelectHTMLAttributes<HTMLSelectElement> & { children: ReactNode };

/** SelectField is FormField for a select; its options are the children. */
export function SelectField(props: SelectFieldProps) {
  const [frame, select] = frameOf(props);
  return <FieldFrame {...frame} control={(aria) => <select name={frame.name} {...aria} {...select} />} />;
}

type TextAreaFieldProps = CommonProps & TextareaHTMLAttributes<HTMLTextAreaElement>;

/** TextAreaField is FormField for multi-line text. */
export function TextAreaField(props: TextAreaFieldProps) {
  const [frame, area] = frameOf(props);
  return <FieldFrame {...frame} control={(aria) => <textarea name={frame.name} {...aria} {...area} />} />;
}

interface ChoiceFieldProps<V extends string> extends CommonProps {
  value: V | null;
  choices: readonly { value: V; label: string }[];
  onChange: (value: V) => void;
}

/**
 * ChoiceField is a group of radio buttons under a legend (yes/no, 24/7 or
 * weekly), with the field's errors under it.
 */
export function ChoiceField<V extends string>({ name, label, hint, errors = [], className, value, choices, onChange }: ChoiceFieldProps<V>) {
  const id = useId();
  const invalid = errors.length > 0;
  return (
    <fieldset
      role="radiogroup"
      className={className ? `field choice ${className}` : 'field choice'}
      aria-invalid={invalid || undefined}
      aria-describedby={invalid ? errorId(id) : hint ? hintId(id) : undefined}
      data-testid={`field-${name}`}
    >
      <legend>{label}</legend>
      <div className="choices">
        {choices.map((c) => (
          <label key={c.value} className="choice-option">
            <input
              type="radio"
              name={`${id}-${name}`}
              value={c.value}
              checked={value === c.value}
              onChange={() => onChange(c.value)}
              data-testid={`field-${name}-${c.value}`}
            />
            {c.label}
          </label>
        ))}
      </div>
      <FieldNotes id={id} name={name} hint={hint} errors={errors} />
    </fieldset>
  );
}

interface FieldErrorTextProps {
  /** name is the field's path; it picks the error texts and names the test id. */
  name: string;
  /** errors are UserError codes the server returned for name. */
  errors?: UserErrorCode[];
  /** id lets a control point at the text with aria-describedby. */
  id?: string;
  /** className is field-error unless given (form-error for a form's own errors). */
  className?: string;
  /** testId is field-{name}-error unless given. */
  testId?: string;
}

/**
 * FieldErrorText shows the errors the server returned for a field, translated
 * by code: under an input, for a group of fields where no single input stands
 * for the path (a GPU entry's location, one availability window), or for the
 * whole form (name FORM_FIELD, className form-error). It renders nothing
 * without errors.
 */
export function FieldErrorText({ name, errors = [], id, className = 'field-error', testId }: FieldErrorTextProps) {
  const { t } = useTranslation();
  if (errors.length === 0) return null;
  return (
    <p className={className} id={id} role="alert" data-testid={testId ?? `field-${name}-error`}>
      {errors.map((code) => userErrorText(t, name, code)).join(' ')}
    </p>
  );
}
