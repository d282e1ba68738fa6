/**
 * The documentation stands on its own (issue 22 item 5): every relative link of README.md,
 * SECURITY.md and docs/*.md reaches a file of the repository (and, for a Markdown file, a
 * heading of it); no document points at the protocol reference files, which are not in the
 * repository; every path it names in backticks exists; and every client-facing event of the
 * protocol maps is documented.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const DOCS = [
  'README.md',
  'SECURITY.md',
  ...readdirSync(path.join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string): string => readFileSync(path.join(REPO, file), 'utf8');
/** Text outside fenced code blocks (examples may show anything). */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(read(file)).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('documentation', () => {
  it('links only to files and headings of this repository', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const m of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const [where, anchor] = target.split('#') as [string, string | undefined];
        const resolved = where === '' ? file : path.normalize(path.join(path.dirname(file), where));
        if (resolved.startsWith('..') || !existsSync(path.join(REPO, resolved))) {
          broken.push(`${file}: ${target}`);
        } else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('does not point at the protocol reference files, which are not in the repository', () => {
    const offenders = DOCS.filter((file) => /spec\/protocol-[a-z]+\.md/.test(read(file)));
    expect(offenders).toEqual([]);
  });

  it('names only paths that exist', () => {
    const missing: string[] = [];
    const top = /^(broker|electron|renderer|shared|test|bench|docs|scripts|bin|\.ci)\//;
    for (const file of DOCS) {
      for (const m of prose(read(file)).matchAll(/`([^`\s]+)`/g)) {
        const named = m[1]!.replace(/[.,:;]$/, '');
        if (!top.test(named) || /[*<>{}…]/.test(named)) continue;
        if (!existsSync(path.join(REPO, named))) missing.push(`${file}: ${named}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents every client-facing event', () => {
    const text = read('docs/protocol.md') + read('docs/management.md');
    const events = [...Object.values(ClientEvent), ...Object.values(ServerEvent)];
    expect(
      events.filter((e) => !text.includes(`\`${e}\``) && !text.includes(`**\`${e}\`**`)),
    ).toEqual([]);
  });
});
