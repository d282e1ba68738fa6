/**
 * The application menu as a template (Electron's `MenuItemConstructorOptions[]`), built from
 * the platform and whether the app is packaged. Pure (Electron types only): main.ts passes it to
 * `Menu.buildFromTemplate`, tests read it. Only roles, no custom click handlers: nothing here
 * can reach the broker or navigate the page. Developer tools exist in development builds only.
 */
import type { MenuItemConstructorOptions } from 'electron';

export interface AppMenuOptions {
  /** `process.platform`. */
  platform: NodeJS.Platform;
  /** `app.isPackaged`: packaged builds have no reload or developer tools entries. */
  packaged: boolean;
  /** Shown in the macOS application menu. Default `Switchboard`. */
  appName?: string;
}

export function appMenuTemplate({
  platform,
  packaged,
  appName = 'Switchboard',
}: AppMenuOptions): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [];
  if (mac) {
    template.push({
      label: appName,
      submenu: [
        { role: 'about' },
        { type: 'separator' },
        { role: 'services' },
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { role: 'quit' },
      ],
    });
  } else {
    template.push({ label: '&File', submenu: [{ role: 'quit' }] });
  }
  // Edit roles make copy/paste work in text fields (on macOS only through the menu).
  template.push({
    label: mac ? 'Edit' : '&Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      { role: 'selectAll' },
    ],
  });
  const developer: MenuItemConstructorOptions[] = packaged
    ? []
    : [{ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' }];
  template.push({
    label: mac ? 'View' : '&View',
    submenu: [
      ...developer,
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  });
  template.push({
    role: 'window',
    submenu: mac
      ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }]
      : [{ role: 'minimize' }, { role: 'close' }],
  });
  return template;
}
