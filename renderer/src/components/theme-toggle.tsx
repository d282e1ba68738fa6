/** Top-bar button cycling the theme: system → light → dark (theme.ts), remembered per browser. */
import { useState } from 'react';
import {
  browserThemeStorage,
  nextThemePreference,
  readThemePreference,
  setThemePreference,
  type ThemePreference,
} from '../theme';

const LABELS: Record<ThemePreference, string> = {
  system: 'Theme: system',
  light: 'Theme: light',
  dark: 'Theme: dark',
};
const ICONS: Record<ThemePreference, string> = { system: '◐', light: '☀', dark: '☾' };

export function ThemeToggle() {
  const [preference, setPreference] = useState(() => readThemePreference(browserThemeStorage()));
  const next = nextThemePreference(preference);
  return (
    <button
      type="button"
      className="theme-toggle"
      data-testid="theme-toggle"
      data-theme-preference={preference}
      aria-label={`${LABELS[preference]} (switch to ${next})`}
      title={`${LABELS[preference]} — click for ${next}`}
      onClick={() => {
        setThemePreference(document.documentElement, browserThemeStorage(), next);
        setPreference(next);
      }}
    >
      <span aria-hidden="true">{ICONS[preference]}</span>
      <span className="theme-toggle__label">{LABELS[preference]}</span>
    </button>
  );
}
