import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import SlowestFilesReporter from './slowest-files-reporter';

const moduleOf = (file: string, ms: number) =>
  ({ relativeModuleId: file, diagnostic: () => ({ duration: ms }) }) as unknown as TestModule;

describe('slowest files reporter', () => {
  afterEach(() => vi.restoreAllMocks());

  it('prints the ten slowest files, slowest first, with the total', () => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out += String(chunk);
      return true;
    });
    const modules = Array.from({ length: 12 }, (_, i) => moduleOf(`test/f${i}.test.ts`, i * 1000));
    new SlowestFilesReporter().onTestRunEnd(modules);
    const rows = out.split('\n').filter((l) => l.includes(' s  test/'));
    expect(rows).toHaveLength(10);
    expect(rows[0]).toContain('11.0 s  test/f11.test.ts');
    expect(rows[9]).toContain('2.0 s  test/f2.test.ts');
    expect(out).toContain('of 12; 66 s of tests and hooks in all');
  });

  it('stays quiet for a run of a few files', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    new SlowestFilesReporter().onTestRunEnd([moduleOf('test/a.test.ts', 5)]);
    expect(write).not.toHaveBeenCalled();
  });
});
