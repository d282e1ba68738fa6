/**
 * The app's navigation: the sections in titled groups, as a left sidebar at desktop widths and,
 * below 720 px, behind a menu button in the top bar (the list opens under it and closes on a
 * choice, Escape or a click outside). Entries are links to the sections' hash routes
 * (navigation/hash-route.ts), so back/forward, reload and "open in new tab" behave as on any site.
 * Requests carries the count of pending authorization requests, also shown on the closed menu.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { sectionHash } from '../navigation/hash-route';
import '../styles/nav.css';

/** One entry of the navigation; `group` titles the list it appears in (empty: no title). */
export interface NavEntry {
  id: string;
  label: string;
  group: string;
}

export interface SectionNavProps {
  entries: readonly NavEntry[];
  current: string;
  /** Pending authorization requests, shown next to Requests when above 0. */
  pendingCount: number;
  /** Whether the compact menu is open (ignored at desktop widths, where the list always shows). */
  open: boolean;
  onOpenChange(open: boolean): void;
}

function groupsOf(entries: readonly NavEntry[]): { title: string; entries: NavEntry[] }[] {
  const groups: { title: string; entries: NavEntry[] }[] = [];
  for (const entry of entries) {
    const group = groups.find((g) => g.title === entry.group);
    if (group) group.entries.push(entry);
    else groups.push({ title: entry.group, entries: [entry] });
  }
  return groups;
}

/** The top bar's menu button (visible below 720 px only). */
export function SectionMenuButton({
  currentLabel,
  pendingCount,
  open,
  onOpenChange,
}: {
  currentLabel: string;
  pendingCount: number;
  open: boolean;
  onOpenChange(open: boolean): void;
}) {
  return (
    <button
      type="button"
      className="nav-menu-button"
      aria-expanded={open}
      aria-controls="section-nav"
      aria-label={`Sections menu (showing ${currentLabel}${pendingCount > 0 ? `; ${pendingCount} pending request${pendingCount === 1 ? '' : 's'}` : ''})`}
      onClick={() => onOpenChange(!open)}
      data-testid="nav-menu"
    >
      <span aria-hidden="true" className="nav-menu-button__icon">
        {open ? '✕' : '☰'}
      </span>
      <span className="nav-menu-button__label">{currentLabel}</span>
      {pendingCount > 0 && (
        // Beside the current view's name a bare number read as that view's count: say what it is.
        <span
          className="nav-badge"
          data-testid="nav-menu-count"
          title={`${pendingCount} pending authorization request${pendingCount === 1 ? '' : 's'}`}
        >
          {pendingCount} pending
        </span>
      )}
    </button>
  );
}

export function SectionNav({
  entries,
  current,
  pendingCount,
  open,
  onOpenChange,
}: SectionNavProps) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!open) return undefined;
    // Keyboard users land in the list, on the view they are in.
    ref.current?.querySelector<HTMLElement>('[aria-current="page"]')?.focus();
    const onKey = (event: KeyboardEvent): void => {
      if (event.key !== 'Escape') return;
      onOpenChange(false);
      document.querySelector<HTMLElement>('[data-testid="nav-menu"]')?.focus();
    };
    const onPointer = (event: PointerEvent): void => {
      const target = event.target as Element | null;
      if (ref.current?.contains(target) || target?.closest('[data-testid="nav-menu"]')) return;
      onOpenChange(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open, onOpenChange]);

  return (
    <nav
      ref={ref}
      id="section-nav"
      className={`sidenav${open ? ' sidenav--open' : ''}`}
      aria-label="Sections"
      data-testid="section-nav"
    >
      <div className="sidenav__inner">
        {groupsOf(entries).map((group) => (
          <div key={group.title || group.entries[0]!.id} className="sidenav__group">
            {group.title && <h2 className="sidenav__title">{group.title}</h2>}
            <ul className="sidenav__list">
              {group.entries.map(({ id, label }) => (
                <li key={id}>
                  <NavLink
                    id={id}
                    active={id === current}
                    onChoose={() => onOpenChange(false)}
                    count={id === 'requests' ? pendingCount : 0}
                  >
                    {label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
    </nav>
  );
}

function NavLink({
  id,
  active,
  count,
  onChoose,
  children,
}: {
  id: string;
  active: boolean;
  count: number;
  onChoose(): void;
  children: ReactNode;
}) {
  return (
    <a
      href={sectionHash(id)}
      className={`sidenav__link${active ? ' sidenav__link--active' : ''}`}
      aria-current={active ? 'page' : undefined}
      onClick={onChoose}
      data-testid={`nav-${id}`}
    >
      <span>{children}</span>
      {count > 0 && (
        <span className="nav-badge" data-testid={`nav-${id}-count`}>
          <span className="visually-hidden">(</span>
          {count}
          <span className="visually-hidden">)</span>
        </span>
      )}
    </a>
  );
}
