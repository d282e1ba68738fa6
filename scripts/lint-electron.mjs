#!/usr/bin/env node
/**
 * `npm run lint:electron` (run by .ci/run): @doyensec/electronegativity over electron/, with
 * no finding left unexplained. Every finding must match an entry (rule + file) of
 * scripts/electronegativity-allow.json, which gives the reason it is not a defect and the test
 * that shows it; an entry that matches no finding any more is an error too, so the list stays
 * true. The Electron version is the installed one (the tool cannot detect it from electron/).
 *
 * Network: the tool fetches translations and Electron's release list (its
 * AVAILABLE_SECURITY_FIXES_GLOBAL_CHECK); offline it says so and carries on, which costs about
 * 20 s of timeouts but changes no other finding. That check cannot be excluded from the CLI
 * (`-x` refuses global checks), and Electron updates are handled as dependency updates anyway.
 *
 * Usage: node scripts/lint-electron.mjs [--json]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

/** The tool's entry point and the Electron version we ship. */
const cli = require.resolve('@doyensec/electronegativity/dist/index.js');
const electronVersion = JSON.parse(
  readFileSync(require.resolve('electron/package.json'), 'utf8'),
).version;

const allow = JSON.parse(
  readFileSync(path.join(root, 'scripts/electronegativity-allow.json'), 'utf8'),
).findings;

const dir = mkdtempSync(path.join(tmpdir(), 'electronegativity-'));
const out = path.join(dir, 'findings.sarif');
try {
  const run = spawnSync(
    process.execPath,
    [cli, '-i', path.join(root, 'electron'), '-e', electronVersion, '-r', '-v', 'false', '-o', out],
    { cwd: root, encoding: 'utf8', timeout: 300_000 },
  );
  let sarif;
  try {
    sarif = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    console.error(run.stdout, run.stderr);
    console.error(`lint:electron: electronegativity wrote no report (exit ${run.status})`);
    process.exit(2);
  }
  const findings = sarif.runs.flatMap((r) =>
    r.results.map((res) => {
      const loc = res.locations?.[0]?.physicalLocation;
      const uri = loc?.artifactLocation?.uri ?? '';
      return {
        rule: res.ruleId,
        // Global checks (no file) are reported at `file:///`.
        file: uri === '' || uri.startsWith('file://') ? 'N/A' : uri,
        line: loc?.region?.startLine ?? 0,
        message: res.message?.text ?? '',
      };
    }),
  );
  // A file the tool could not parse is a file it did not check.
  const parseErrors = `${run.stdout}\n${run.stderr}`
    .split('\n')
    .filter((line) => /Error parsing /.test(line));
  for (const line of parseErrors) console.error(`not scanned: ${line.trim()}`);
  const matches = (a, f) => a.rule === f.rule && a.file === f.file;
  const unexplained = findings.filter((f) => !allow.some((a) => matches(a, f)));
  const stale = allow.filter((a) => !findings.some((f) => matches(a, f)));
  const missingReason = allow.filter((a) => typeof a.reason !== 'string' || a.reason.length < 20);
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ electronVersion, findings, unexplained, stale }, null, 2));
  }
  for (const f of unexplained) {
    console.error(`unexplained: ${f.rule} electron/${f.file}:${f.line} ${f.message}`);
  }
  for (const a of stale)
    console.error(`stale allow-list entry (no such finding): ${a.rule} ${a.file}`);
  for (const a of missingReason)
    console.error(`allow-list entry without a reason: ${a.rule} ${a.file}`);
  const failed = unexplained.length + stale.length + missingReason.length + parseErrors.length;
  console.error(
    `lint:electron: electronegativity (Electron ${electronVersion}): ${findings.length} finding(s), ` +
      `${findings.length - unexplained.length} explained in scripts/electronegativity-allow.json` +
      (failed ? `, ${failed} problem(s)` : ''),
  );
  process.exit(failed ? 1 : 0);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
