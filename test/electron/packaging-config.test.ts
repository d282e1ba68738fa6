/**
 * electron-builder.yml as electron-builder itself reads it: accepted by its own schema
 * validation, with the targets, the unpacked native binary, the native rebuild and the fuses the
 * desktop app needs (issue 13, "Electron" packaging checklist). Also `npm run dist` is wired.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '..', '..');
// electron-builder's own modules (a devDependency) and its YAML parser.
const requireFromBuilder = createRequire(resolveFromRepo('app-builder-lib/package.json'));
const yaml = requireFromBuilder('js-yaml') as { load(text: string): unknown };
const { validateConfiguration } = requireFromBuilder('./out/util/config/config') as {
  validateConfiguration(
    config: unknown,
    logger: { isEnabled: boolean; add(): void },
  ): Promise<void>;
};

function resolveFromRepo(id: string): string {
  return createRequire(path.join(REPO, 'package.json')).resolve(id);
}

interface BuilderConfig {
  appId: string;
  productName: string;
  files: string[];
  asar: boolean;
  asarUnpack: string[];
  npmRebuild: boolean;
  buildDependenciesFromSource: boolean;
  electronFuses: Record<string, boolean>;
  linux: { target: string[] };
  mac: { target: string[] };
  win: { target: string[] };
}

const config = yaml.load(
  readFileSync(path.join(REPO, 'electron-builder.yml'), 'utf8'),
) as BuilderConfig;

describe('electron-builder.yml', () => {
  it('is a valid electron-builder configuration (its own schema)', async () => {
    await expect(
      validateConfiguration(config, { isEnabled: false, add() {} }),
    ).resolves.toBeUndefined();
    // The validation is real: an unknown fuse is refused.
    const wrong = { ...config, electronFuses: { ...config.electronFuses, runAsNod: false } };
    await expect(validateConfiguration(wrong, { isEnabled: false, add() {} })).rejects.toThrow(
      /Invalid configuration/,
    );
  });

  it('names the app and builds AppImage + deb, dmg and nsis', () => {
    expect(config.appId).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
    expect(config.productName).toBe('Switchboard');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
  });

  it('packs the built app in an asar with better-sqlite3 unpacked and rebuilt for Electron', () => {
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toContain('**/node_modules/better-sqlite3/build/Release/*.node');
    expect(config.npmRebuild).toBe(true);
    expect(config.buildDependenciesFromSource).toBe(false);
    expect(config.files).toEqual(
      expect.arrayContaining(['dist/electron/**/*', 'dist/renderer/**/*']),
    );
    // No sources, tests or secrets files in the package.
    expect(
      config.files.some((pattern) => /^(broker|electron|test|renderer\/src)\//.test(pattern)),
    ).toBe(false);
  });

  it('sets the fuses: no RunAsNode, no NODE_OPTIONS, no inspect, app only from the asar', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
      enableCookieEncryption: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('is what `npm run dist` packages with, and the main entry is the built main process', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      main: string;
      scripts: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.scripts.dist).toBe('node scripts/dist.mjs');
    expect(pkg.main).toBe('dist/electron/main.js');
    expect(pkg.devDependencies['electron-builder']).toBeDefined();
    expect(readFileSync(path.join(REPO, 'scripts', 'dist.mjs'), 'utf8')).toContain(
      "'electron-builder.yml'",
    );
  });
});
