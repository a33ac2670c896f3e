import { useId, type InputHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import { userErrorText } from './userErrorText';

interface FormFieldProps extends InputHTMLAttributes<HTMLInputElement> {
  name: string;
  label: string;
  hint?: string;
  /** errors are UserError codes the server returned for this field. */
  errors?: string[];
}

/**
 * FormField is a labelled input that shows the server's validation errors for
 * its field, translated by code, right under it.
 */
export function FormField({ name, label, hint, errors = [], ...input }: FormFieldProps) {
  const { t } = useTranslation();
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const invalid = errors.length > 0;
  const describedBy = [hint ? hintId : null, invalid ? errorId : null].filter(Boolean).join(' ');

  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy || undefined}
        data-testid={`field-${name}`}
        {...input}
      />
      {hint && (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      )}
      {invalid && (
        <p className="field-error" id={errorId} role="alert" data-testid={`field-${name}-error`}>
          {errors.map((code) => userErrorText(t, name, code)).join(' ')}
        </p>
      )}
    </div>
  );
}
