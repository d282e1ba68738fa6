/**
 * The host's and broker's error texts in an operator's words (trial finding 24: "Invalid input
 * for publishMqtt: mqttPort: Too big…" and "Broker refused AUTH_MANAGEMENT_COMMAND (401):
 * Invalid manager proof" reached the page as they were). Applied where the renderer shows an
 * error (ErrorBanner, the connection test's layers); a text it does not know is shown as it
 * is. The host keeps its own texts for logs and Activity.
 *
 * Sources of the texts: electron/services/console-dispatch.ts (`Invalid input for <method>:
 * <path>: <zod message>; …`), electron/services/manager-client.ts (`Broker refused <action>
 * (<status>): <reason>`).
 */

/** Field names of ConsoleApi inputs as a form labels them; others are split into words. */
const FIELD_LABELS: Record<string, string> = {
  url: 'URL',
  mqttPort: 'MQTT port',
  connectionId: 'connection',
  ttlSeconds: 'TTL',
  messageJson: 'message',
  secret: 'token',
  caFile: 'CA file',
  maxRatePerSec: 'rate',
};

function fieldLabel(path: string): string {
  const last =
    path
      .split('.')
      .filter((part) => !/^\d+$/.test(part))
      .pop() ?? path;
  return FIELD_LABELS[last] ?? last.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** A zod message ("Too big: expected number to be <=65535") as a short requirement. */
function requirement(message: string): string {
  const rules: [RegExp, (m: RegExpMatchArray) => string][] = [
    [/Too big: expected number to be <=?(\d+)/, (m) => `at most ${m[1]}`],
    [/Too small: expected number to be >=?(\d+)/, (m) => `at least ${m[1]}`],
    [/Too small: expected string to have >=1 characters?/, () => 'cannot be empty'],
    [/Too big: expected string to have <=(\d+) characters?/, (m) => `at most ${m[1]} characters`],
    [
      /Too small: expected string to have >=(\d+) characters?/,
      (m) => `at least ${m[1]} characters`,
    ],
    [/Invalid URL/i, () => 'not a valid URL'],
    [/expected int, received number/i, () => 'a whole number'],
    [/Invalid input: expected (\w+), received (\w+)/, (m) => `expected a ${m[1]}`],
  ];
  for (const [pattern, say] of rules) {
    const match = message.match(pattern);
    if (match) return say(match);
  }
  return message.charAt(0).toLowerCase() + message.slice(1);
}

function invalidInput(issues: string): string {
  const parts = issues.split('; ').map((issue) => {
    const colon = issue.indexOf(': ');
    if (colon < 0) return requirement(issue);
    const path = issue.slice(0, colon);
    const what = requirement(issue.slice(colon + 2));
    return path === '(input)' ? what : `the ${fieldLabel(path)} — ${what}`;
  });
  return `Check ${parts.join('; ')}.`;
}

function brokerRefusal(action: string, status: number, reason: string): string {
  if (status === 401) {
    return "The broker refused the admin token (401): check the connection's token or manager key";
  }
  const what = /^[A-Z_]+$/.test(action) ? 'the management command' : `“${action}”`;
  if (status === 403) return `The broker does not allow ${what} (403): ${reason}`;
  return `The broker refused ${what} (${status}): ${reason}`;
}

/** `message` in an operator's words (see the module doc); unknown texts unchanged. */
export function operatorMessage(message: string): string {
  const invalid = /^Invalid input for \w+: ([\s\S]+)$/.exec(message);
  if (invalid) return invalidInput(invalid[1]!);
  const refused = /^Broker refused (\S+) \((\d{3})\): ([\s\S]*)$/.exec(message);
  if (refused) return brokerRefusal(refused[1]!, Number(refused[2]), refused[3]!);
  return message;
}
