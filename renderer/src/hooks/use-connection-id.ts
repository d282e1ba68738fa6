/**
 * The connection the views act on: the one selected in the top bar's connection switcher. Every
 * ConsoleApi call of a view takes this id.
 */
import { useAppStore } from '../store/app-store';

export function useConnectionId(): string {
  return useAppStore((s) => s.selectedConnectionId);
}
