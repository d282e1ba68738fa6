/**
 * Issue 20's protocol fuzzer, bounded run (the long run is `BENCH_ONLY=fuzz npm run bench`):
 * fast-check-generated inputs to every inbound socket.io event, every management command
 * (signed with the admin token, a realm manager key, a wrong key; tampered, stale, replayed,
 * unsigned), MQTT 3.1.1 and 5 packets of every type and every HTTP route, against a real broker
 * in this process with auth off and on. After every batch the campaign checks that the broker
 * answers, a normal round trip works, the offline durable consumer keeps its stored messages,
 * memory stays bounded and nothing polluted `Object.prototype`, and that no refused proof ran a
 * command (test/helpers/protocol-fuzz/campaign.ts). Fixed seed; `FUZZ_SEED=<n>` replays another.
 */
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../helpers/protocol-fuzz/arbitraries';
import { runCampaign, type CampaignReport } from '../helpers/protocol-fuzz/campaign';
import { ClientEvent } from '../../shared/protocol-events';
import { HttpPath } from '../../shared/http-api';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 0x20f022;
const BATCHES = Number(process.env.FUZZ_BATCHES ?? 6);
const ACTIONS = Number(process.env.FUZZ_ACTIONS ?? 120);

function summary(r: CampaignReport): string {
  const { coverage: _c, ...rest } = r;
  return JSON.stringify(rest);
}

describe('protocol fuzzer (issue 20), bounded run', () => {
  const reports: CampaignReport[] = [];

  for (const auth of [false, true]) {
    it(`auth ${auth ? 'on' : 'off'}: ${BATCHES} batches of ${ACTIONS} generated actions leave the broker serving`, async () => {
      const report = await runCampaign({
        auth,
        seed: SEED + (auth ? 1 : 0),
        batches: BATCHES,
        actionsPerBatch: ACTIONS,
        log: (line) => console.log(line),
      });
      reports.push(report);
      console.log(`protocol-fuzz report: ${summary(report)}`);
      expect(report.failure, `replay: FUZZ_SEED=${report.seed - (auth ? 1 : 0)}`).toBeNull();
      // The generated batches, then the campaign's sweep of every management command.
      expect(report.batches_run).toBe(BATCHES + 1);
      // Every kind of input was sent, and refused proofs were answered as refusals.
      for (const kind of ['emit', 'signed', 'http', 'mqtt'] as const) {
        expect(report.by_kind[kind]).toBeGreaterThan(0);
      }
      expect(report.signed.refused_bad_proof).toBeGreaterThan(0);
      expect(report.http_status['500'] ?? 0).toBe(0);
    }, 90_000);
  }

  it('the two runs together covered every inbound event, management command and HTTP route', () => {
    expect(reports).toHaveLength(2);
    const union = (pick: (r: CampaignReport) => string[]) => new Set(reports.flatMap(pick));
    const events = union((r) => r.coverage.events);
    expect(Object.values(ClientEvent).filter((e) => !events.has(e))).toEqual([]);
    const commands = union((r) => r.coverage.commands);
    expect(COMMAND_NAMES.filter((c) => !commands.has(c))).toEqual([]);
    const paths = union((r) => r.coverage.http_paths);
    const routes = [...Object.values(HttpPath), '/api/realms'];
    expect(routes.filter((p) => !paths.has(p))).toEqual([]);
    expect([...paths].some((p) => /^\/api\/realms\/[^/]+\/dlq$/.test(p))).toBe(true);
  });
});
