/**
 * The window's bounds and maximized state across launches: saved atomically, read back, and
 * used only where a display still shows the window (window-state.ts).
 */
import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MIN_WINDOW_SIZE } from '../../electron/main/window-policy';
import {
  fitWindowState,
  readWindowState,
  trackWindowState,
  writeWindowState,
  WINDOW_STATE_FILE_NAME,
  type Rect,
  type WindowState,
} from '../../electron/main/window-state';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const LAPTOP: Rect = { x: 0, y: 0, width: 1440, height: 875 };
const EXTERNAL: Rect = { x: 1440, y: 0, width: 2560, height: 1415 };

describe('window state file', () => {
  let dir: TempDir;
  let file: string;
  beforeEach(async () => {
    dir = await makeTempDir('switchboard-window-state-');
    file = path.join(dir.path, 'user-data', WINDOW_STATE_FILE_NAME);
  });
  afterEach(() => dir.remove());

  it('round-trips the bounds and maximized flag, atomically, leaving no temp file', () => {
    const state: WindowState = {
      bounds: { x: 40, y: 30.4, width: 1000, height: 700 },
      maximized: true,
    };
    writeWindowState(file, state);
    expect(readWindowState(file)).toEqual({
      bounds: { x: 40, y: 30, width: 1000, height: 700 },
      maximized: true,
    });
    expect(readdirSync(path.dirname(file))).toEqual([WINDOW_STATE_FILE_NAME]);
    expect(statSync(file).mode & 0o777).toBe(0o644);
  });

  it('reads a missing, corrupt or foreign file as no state', () => {
    expect(readWindowState(file)).toBeNull();
    writeWindowState(file, { bounds: LAPTOP, maximized: false });
    for (const text of [
      '{',
      '[]',
      '{"version":2,"bounds":{},"maximized":false}',
      JSON.stringify({
        version: 1,
        bounds: { x: 0, y: 0, width: -5, height: 10 },
        maximized: false,
      }),
      JSON.stringify({
        version: 1,
        bounds: { x: 'a', y: 0, width: 5, height: 10 },
        maximized: false,
      }),
    ]) {
      writeFileSync(file, text);
      expect(readWindowState(file), text).toBeNull();
    }
  });
});

describe('fitWindowState', () => {
  it('keeps a window that is on a display', () => {
    const state = { bounds: { x: 1600, y: 100, width: 1200, height: 900 }, maximized: false };
    expect(fitWindowState(state, [LAPTOP, EXTERNAL], MIN_WINDOW_SIZE)).toEqual(state);
  });

  it('drops a window left on a display that is gone (unplugged monitor)', () => {
    const state = { bounds: { x: 1600, y: 100, width: 1200, height: 900 }, maximized: true };
    expect(fitWindowState(state, [LAPTOP], MIN_WINDOW_SIZE)).toBeNull();
  });

  it('drops a window that shows only a sliver on any display', () => {
    const sliver = { bounds: { x: 1400, y: 0, width: 1000, height: 800 }, maximized: false };
    expect(fitWindowState(sliver, [LAPTOP], MIN_WINDOW_SIZE)).toBeNull();
    const above = { bounds: { x: 100, y: -780, width: 1000, height: 800 }, maximized: false };
    expect(fitWindowState(above, [LAPTOP], MIN_WINDOW_SIZE)).toBeNull();
  });

  it('shrinks a window saved on a bigger display and grows one below the minimum size', () => {
    const big = { bounds: { x: 0, y: 0, width: 2400, height: 1400 }, maximized: false };
    expect(fitWindowState(big, [LAPTOP], MIN_WINDOW_SIZE)?.bounds).toEqual({
      x: 0,
      y: 0,
      width: 1440,
      height: 875,
    });
    const tiny = { bounds: { x: 10, y: 10, width: 200, height: 100 }, maximized: false };
    expect(fitWindowState(tiny, [LAPTOP], MIN_WINDOW_SIZE)?.bounds).toEqual({
      x: 10,
      y: 10,
      width: MIN_WINDOW_SIZE.width,
      height: MIN_WINDOW_SIZE.height,
    });
  });

  it('gives no state when there is none or no display', () => {
    expect(fitWindowState(null, [LAPTOP], MIN_WINDOW_SIZE)).toBeNull();
    expect(fitWindowState({ bounds: LAPTOP, maximized: false }, [], MIN_WINDOW_SIZE)).toBeNull();
  });
});

describe('trackWindowState', () => {
  class FakeWindow extends EventEmitter {
    bounds: Rect = { x: 0, y: 0, width: 800, height: 600 };
    maximized = false;
    destroyed = false;
    getNormalBounds = () => ({ ...this.bounds });
    isMaximized = () => this.maximized;
    isDestroyed = () => this.destroyed;
  }

  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('saves once after moves and resizes settle, and at once on close', () => {
    const window = new FakeWindow();
    const saves: WindowState[] = [];
    trackWindowState(window, (state) => saves.push(state), { debounceMs: 500 });
    window.bounds = { x: 5, y: 5, width: 900, height: 600 };
    window.emit('move');
    vi.advanceTimersByTime(300);
    window.bounds = { x: 5, y: 5, width: 950, height: 650 };
    window.emit('resize');
    expect(saves).toHaveLength(0);
    vi.advanceTimersByTime(500);
    expect(saves).toEqual([{ bounds: { x: 5, y: 5, width: 950, height: 650 }, maximized: false }]);
    window.maximized = true;
    window.emit('maximize');
    window.emit('close');
    expect(saves.at(-1)).toEqual({
      bounds: { x: 5, y: 5, width: 950, height: 650 },
      maximized: true,
    });
    vi.advanceTimersByTime(1000);
    expect(saves).toHaveLength(2);
  });

  it('reports a failed save instead of throwing, and skips a destroyed window', () => {
    const window = new FakeWindow();
    const errors: unknown[] = [];
    trackWindowState(
      window,
      () => {
        throw new Error('EROFS');
      },
      { onError: (e) => errors.push(e) },
    );
    expect(() => window.emit('close')).not.toThrow();
    expect(errors).toHaveLength(1);
    window.destroyed = true;
    window.emit('close');
    expect(errors).toHaveLength(1);
  });
});

it('the state file holds no more than bounds and the flag', async () => {
  const dir = await makeTempDir('switchboard-window-state-');
  try {
    const file = path.join(dir.path, WINDOW_STATE_FILE_NAME);
    writeWindowState(file, { bounds: LAPTOP, maximized: false });
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8'))).sort()).toEqual([
      'bounds',
      'maximized',
      'version',
    ]);
  } finally {
    await dir.remove();
  }
});
