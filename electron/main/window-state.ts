/**
 * The console window's position, size and maximized state, kept across launches in
 * `<userData>/window-state.json` (rewritten atomically). A saved state is used only if the window
 * would still be reachable on one of the current displays (a monitor may have been unplugged);
 * otherwise the window opens at the default size, centred. Pure (Node only, no Electron runtime):
 * main-window.ts passes the real window and `screen.getAllDisplays()`.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomicSync } from '../services/atomic-file-sync';

/** Window bounds in DIP; `x`/`y` absent = let Electron centre the window. */
export interface WindowBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  /** The normal (restored) bounds, also when the window is maximized. */
  bounds: Rect;
  maximized: boolean;
}

export const WINDOW_STATE_FILE_NAME = 'window-state.json';

/** How much of the window (DIP) must lie on a display's work area for the state to be reused. */
export const MIN_VISIBLE = { width: 120, height: 48 } as const;

const RectSchema = z.object({
  x: z.number().int().min(-100_000).max(100_000),
  y: z.number().int().min(-100_000).max(100_000),
  width: z.number().int().min(1).max(100_000),
  height: z.number().int().min(1).max(100_000),
});
const StateSchema = z.object({ version: z.literal(1), bounds: RectSchema, maximized: z.boolean() });

/** The saved state, or null when there is none or it cannot be read or is not a valid state. */
export function readWindowState(file: string): WindowState | null {
  try {
    const parsed = StateSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? { bounds: parsed.data.bounds, maximized: parsed.data.maximized } : null;
  } catch {
    return null;
  }
}

/** Saves `state` atomically (mode 0644: it holds no secret). @throws Error from the file system. */
export function writeWindowState(file: string, state: WindowState): void {
  const rounded = { ...state, bounds: roundRect(state.bounds) };
  writeFileAtomicSync(file, `${JSON.stringify({ version: 1, ...rounded })}\n`, 0o644);
}

/**
 * `state` made safe for the current displays (their work areas): null when no display shows at
 * least MIN_VISIBLE of it; else the size is clamped to `minSize` and to the largest work area
 * it overlaps, so a window saved on a bigger monitor still fits.
 */
export function fitWindowState(
  state: WindowState | null,
  workAreas: readonly Rect[],
  minSize: { width: number; height: number },
): WindowState | null {
  if (!state) return null;
  const { bounds } = state;
  let best: Rect | null = null;
  for (const area of workAreas) {
    const overlapWidth = overlap(bounds.x, bounds.width, area.x, area.width);
    const overlapHeight = overlap(bounds.y, bounds.height, area.y, area.height);
    if (overlapWidth >= MIN_VISIBLE.width && overlapHeight >= MIN_VISIBLE.height) {
      if (!best || area.width * area.height > best.width * best.height) best = area;
    }
  }
  if (!best) return null;
  const width = clamp(bounds.width, minSize.width, Math.max(minSize.width, best.width));
  const height = clamp(bounds.height, minSize.height, Math.max(minSize.height, best.height));
  return { bounds: { x: bounds.x, y: bounds.y, width, height }, maximized: state.maximized };
}

/** The part of a BrowserWindow the tracker uses. */
export interface TrackedWindow {
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  isDestroyed(): boolean;
  on(event: 'resize' | 'move' | 'maximize' | 'unmaximize' | 'close', listener: () => void): unknown;
}

/**
 * Saves the window's state `debounceMs` (default 500) after it stops moving or resizing, and at
 * once when it closes. Save errors go to `onError` (a read-only disk must not break the app).
 * Returns a function that cancels a pending save.
 */
export function trackWindowState(
  window: TrackedWindow,
  save: (state: WindowState) => void,
  {
    debounceMs = 500,
    onError = () => undefined,
  }: { debounceMs?: number; onError?: (error: unknown) => void } = {},
): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const saveNow = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (window.isDestroyed()) return;
    try {
      save({ bounds: window.getNormalBounds(), maximized: window.isMaximized() });
    } catch (error) {
      onError(error);
    }
  };
  const later = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(saveNow, debounceMs);
  };
  for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const)
    window.on(event, later);
  window.on('close', saveNow);
  return () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
}

function overlap(start: number, length: number, areaStart: number, areaLength: number): number {
  return Math.max(0, Math.min(start + length, areaStart + areaLength) - Math.max(start, areaStart));
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

function roundRect(rect: Rect): Rect {
  return {
    x: Math.round(rect.x),
    y: Math.round(rect.y),
    width: Math.round(rect.width),
    height: Math.round(rect.height),
  };
}
