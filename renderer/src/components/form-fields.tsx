/**
 * Labelled form controls with the console's classes (`field`, `check`): a text input and a
 * checkbox whose change handlers take the value, not the DOM event. Extra input attributes
 * (`type`, `min`, `list`, `aria-*`, `autoComplete`…) pass through to the `<input>`.
 */
import type { InputHTMLAttributes, ReactNode } from 'react';
import '../styles/forms.css';

type InputRest = Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'value' | 'onChange' | 'checked' | 'className' | 'children'
>;

export interface TextFieldProps extends InputRest {
  label: ReactNode;
  value: string;
  onValue: (value: string) => void;
  /** Classes added to `field` on the `<label>`, e.g. `field--grow`. */
  fieldClass?: string;
  /** Class of the `<input>`, e.g. `input--short`. */
  inputClass?: string;
  testId?: string;
  /** Shown under the input (a hint or a validation message). */
  hint?: ReactNode;
}

export function TextField({
  label,
  value,
  onValue,
  fieldClass,
  inputClass,
  testId,
  hint,
  ...rest
}: TextFieldProps) {
  return (
    <label className={fieldClass ? `field ${fieldClass}` : 'field'}>
      <span>{label}</span>
      <input
        {...rest}
        className={inputClass}
        value={value}
        onChange={(e) => onValue(e.target.value)}
        data-testid={testId}
      />
      {hint}
    </label>
  );
}

export interface CheckFieldProps extends InputRest {
  /** The label text after the box. */
  children: ReactNode;
  checked: boolean;
  onChecked: (checked: boolean) => void;
  /** Classes added to `check` on the `<label>`, e.g. `check--warn`. */
  checkClass?: string;
  /** `title` of the `<label>` (an explanation on hover). */
  labelTitle?: string;
  testId?: string;
}

export function CheckField({
  children,
  checked,
  onChecked,
  checkClass,
  labelTitle,
  testId,
  ...rest
}: CheckFieldProps) {
  return (
    <label className={checkClass ? `check ${checkClass}` : 'check'} title={labelTitle}>
      <input
        {...rest}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChecked(e.target.checked)}
        data-testid={testId}
      />
      {children}
    </label>
  );
}
