/**
 * The form of one management command, generated from its catalogue entry: a text field per
 * string, number or JSON parameter (a password field for secrets), a select per enum and per
 * optional boolean (not sent / true / false), a checkbox per required boolean.
 */
import type { ManagementCommandInfo } from '../../../../shared/management-command-catalogue';
import { CheckField, TextField } from '../../components/form-fields';
import type { FormValues } from './commands-model';

export interface CommandFormProps {
  info: ManagementCommandInfo;
  values: FormValues;
  onChange(values: FormValues): void;
}

const NOT_SENT = '(not sent)';

export function CommandForm({ info, values, onChange }: CommandFormProps) {
  const set = (name: string, value: string | boolean) => onChange({ ...values, [name]: value });
  if (info.params.length === 0) {
    return (
      <p className="muted" data-testid="command-no-params">
        This command takes no parameters.
      </p>
    );
  }
  return (
    <div className="commands-form">
      {info.params.map((p) => {
        const label = (
          <>
            <code>{p.name}</code>
            {p.required ? ' *' : ''} <span className="muted">{p.description}</span>
          </>
        );
        const testId = `command-field-${p.name}`;
        const value = values[p.name];
        if (p.type === 'boolean' && p.required) {
          return (
            <CheckField
              key={p.name}
              checked={value === true}
              onChecked={(v) => set(p.name, v)}
              testId={testId}
            >
              {label}
            </CheckField>
          );
        }
        if (p.type === 'boolean' || p.type === 'enum') {
          const options = p.type === 'boolean' ? ['true', 'false'] : (p.options ?? []);
          return (
            <label key={p.name} className="field">
              <span>{label}</span>
              <select
                value={typeof value === 'string' ? value : ''}
                onChange={(e) => set(p.name, e.target.value)}
                data-testid={testId}
              >
                {(!p.required || value === '') && (
                  <option value="">{p.required ? 'choose…' : NOT_SENT}</option>
                )}
                {options.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            </label>
          );
        }
        return (
          <TextField
            key={p.name}
            label={label}
            value={typeof value === 'string' ? value : ''}
            onValue={(v) => set(p.name, v)}
            type={p.secret ? 'password' : p.type === 'number' ? 'number' : 'text'}
            autoComplete={p.secret ? 'new-password' : 'off'}
            spellCheck={false}
            placeholder={p.type === 'json' ? 'JSON' : p.required ? 'required' : NOT_SENT}
            testId={testId}
          />
        );
      })}
    </div>
  );
}
