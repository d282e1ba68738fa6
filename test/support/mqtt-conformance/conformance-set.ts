/**
 * The MQTT conformance set (issue 24): every case, 3.1.1 first, then MQTT 5. Run it with
 * `runCase` against any `ConformanceTarget`; `test/broker/mqtt/mqtt-conformance-set.test.ts`
 * runs it against Switchboard (auth off and on), `BENCH_ONLY=mqtt-conformance npm run bench`
 * against Switchboard and Mosquitto side by side.
 */
import { commonCases } from './cases-common';
import { v5Cases } from './cases-v5';
import type { ConformanceCase } from './conformance-kit';

export {
  Skipped,
  runCase,
  type ConformanceCase,
  type ConformanceTarget,
  type Credentials,
  type Outcome,
} from './conformance-kit';

export const conformanceCases: readonly ConformanceCase[] = [...commonCases, ...v5Cases];
