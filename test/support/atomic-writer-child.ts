/**
 * Child process for the torn-write test: rewrites the settings file at argv[2] in a tight loop
 * (large content, alternating versions) through `SettingsFile.write` until it is killed.
 */
import { SettingsFile } from '../../broker/config/settings-file';

const file = new SettingsFile(process.argv[2]!);
const big = (v: number) => ({
  version: v,
  auth: { tokens: Array.from({ length: 4000 }, (_, i) => ({ token: `t-${v}-${i}`, realm: 'r' })) },
});
let n = 0;
process.send?.('ready');
for (;;) {
  await file.write(big(n++ % 2));
}
