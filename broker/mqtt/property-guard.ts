/**
 * Strict parsing of MQTT 5 properties for one connection (issue 14; OASIS MQTT 5.0 §2.2.2.2).
 *
 * mqtt-packet 9 parses properties leniently: a property given twice becomes an array, a value
 * that cannot be read becomes `null`/`-1`/`false`, and the last property may run past the
 * declared property length (into the next packet's bytes). aedes then uses such values as
 * numbers: a CONNECT with two Session Expiry Intervals made aedes 2.0.0-beta.1 throw from a
 * timer set-up when the connection closed, which would end the broker process. Here each of
 * those is a malformed packet ([MQTT-2.2.2-2] duplicates are a Protocol Error): the parser
 * reports an error before the packet is emitted and aedes closes only this connection.
 *
 * Only User Property (any number of times) and Subscription Identifier (several, in PUBLISH)
 * may repeat. These are mqtt-packet internals (`_parseProperties`, `_parseStringPair`,
 * `_parseVarByteNum`); test/broker/mqtt/mqtt5-malformed.test.ts covers them.
 */

interface PropertyParser {
  packet: { length: number };
  error: Error | null;
  _pos: number;
  _parseProperties(): Record<string, unknown> | false;
  _parseStringPair(): { name: string | null; value: string | null };
  _parseVarByteNum(fullInfo: true): { bytes: number; value: number } | false;
  _emitError(err: Error): void;
}

/** Properties whose value is a Byte that mqtt-packet turns into a boolean (false is valid). */
const BOOLEAN_PROPERTIES = new Set([
  'requestResponseInformation',
  'requestProblemInformation',
  'payloadFormatIndicator',
  'retainAvailable',
  'wildcardSubscriptionAvailable',
  'subscriptionIdentifiersAvailable',
  'sharedSubscriptionAvailable',
]);

const REPEATABLE = new Set(['userProperties', 'subscriptionIdentifier']);

/** Why a single parsed value is unusable, or null when it is fine. */
function valueProblem(name: string, value: unknown): string | null {
  if (value === undefined || value === null || value === -1) return `malformed property ${name}`;
  if (value === false && !BOOLEAN_PROPERTIES.has(name)) return `malformed property ${name}`;
  return null;
}

function propertiesProblem(props: Record<string, unknown>): string | null {
  for (const [name, value] of Object.entries(props)) {
    if (name === 'userProperties') continue; // checked pair by pair (_parseStringPair)
    if (Array.isArray(value)) {
      if (!REPEATABLE.has(name)) return `duplicate property ${name}`;
      for (const v of value) {
        const problem = valueProblem(name, v);
        if (problem) return problem;
      }
      continue;
    }
    const problem = valueProblem(name, value);
    if (problem) return problem;
  }
  return null;
}

/** Installs the strict property checks on an aedes client's mqtt-packet parser. */
export function guardProperties(parser: PropertyParser): void {
  let badPair = false;
  const parsePair = parser._parseStringPair.bind(parser);
  parser._parseStringPair = () => {
    const pair = parsePair();
    if (pair.name === null || pair.value === null) {
      badPair = true;
      // mqtt-packet reads `.name` of what it gets back: give it strings, report after.
      return { name: '', value: '' };
    }
    return pair;
  };
  const parseProperties = parser._parseProperties.bind(parser);
  parser._parseProperties = () => {
    const start = parser._pos;
    const length = parser._parseVarByteNum(true);
    parser._pos = start;
    badPair = false;
    const props = parseProperties();
    if (props === false || parser.error) return props;
    const end = length === false ? -1 : start + length.bytes + length.value;
    let problem: string | null = null;
    if (length === false || parser._pos !== end || end > parser.packet.length) {
      problem = 'property length does not match the properties';
    } else if (badPair) problem = 'malformed property userProperties';
    else problem = propertiesProblem(props);
    if (problem === null) return props;
    parser._emitError(new Error(problem));
    return false;
  };
}
