/**
 * Keeps `<dataDir>/local-broker.json` (`shared/console-secrets-file.ts`) naming the URL of the
 * console's running local broker, so `switchboard-admin --console-data-dir` reaches a broker the
 * console started on a port other than the default (issue 22 follow-up: it used to try 17352).
 * Written atomically each time the broker comes up on a new address; never holds a secret.
 */
import path from 'node:path';
import {
  CONSOLE_BROKER_ENDPOINT_FILE,
  type ConsoleBrokerEndpointSchema,
} from '../../shared/console-secrets-file';
import type { z } from 'zod';
import { writeFileAtomicSync } from './atomic-file-sync';
import type { BrokerSupervisor } from './broker-supervisor';

/**
 * Writes the file whenever `supervisor` reports a running broker at a new address.
 * @returns a function that stops watching (the file stays: the CLI then names the URL it
 *   could not reach).
 */
export function keepBrokerEndpointFile(
  supervisor: Pick<BrokerSupervisor, 'onStatus' | 'endpoint'>,
  dataDir: string,
  onError: (err: unknown) => void,
): () => void {
  const file = path.join(dataDir, CONSOLE_BROKER_ENDPOINT_FILE);
  let written = '';
  return supervisor.onStatus(() => {
    const endpoint = supervisor.endpoint();
    if (!endpoint) return;
    const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
    const content: z.infer<typeof ConsoleBrokerEndpointSchema> = {
      version: 1,
      url: `http://${host}:${endpoint.port}`,
    };
    const text = `${JSON.stringify(content)}\n`;
    if (text === written) return;
    try {
      writeFileAtomicSync(file, text, 0o644);
      written = text;
    } catch (err) {
      onError(err);
    }
  });
}
