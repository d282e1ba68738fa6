#!/usr/bin/env node
/**
 * Offline operator tool for sealed sender (`spec/protocol-extensions.md` §4.2; docs/e2ee.md).
 *
 * Without arguments: generates a trust-root key pair and a server key pair, mints a
 * `ServerCertificate` with key id 1, and prints the four values of §4.2:
 *   SEALED_TRUST_ROOT_PUBLIC=<base64>   pin in every client app
 *   TYO_MQ_SEALED_SERVER_CERT=<base64>  the broker's .env
 *   TYO_MQ_SEALED_SERVER_KEY=<base64>   the broker's .env
 *   SEALED_ROOT_PRIVATE=<base64>        keep OFFLINE; needed only to mint a new server cert
 *
 * Rotation: `--root-private <base64> --key-id <n>` reuses the root (read from the environment
 * variable SEALED_ROOT_PRIVATE when the flag is absent) and mints a new server key and
 * certificate under key id n (n ≥ 1; the revoked id 0xDEADC357 is refused).
 * Run it on an offline machine; the output holds private keys.
 */
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { PrivateKey, ServerCertificate } from '@signalapp/libsignal-client';

const REVOKED_KEY_ID = 0xdeadc357;
const { values } = parseArgs({
  options: {
    'root-private': { type: 'string' },
    'key-id': { type: 'string', default: '1' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(
    'usage: sealed-mint-server-cert.mjs [--root-private <base64>] [--key-id <n>]\n',
  );
  process.exit(0);
}
const keyId = Number(values['key-id']);
if (!Number.isInteger(keyId) || keyId < 1 || keyId > 0xffffffff || keyId === REVOKED_KEY_ID) {
  process.stderr.write('--key-id must be an integer in 1…4294967295, never 0xDEADC357\n');
  process.exit(2);
}
const rootText = values['root-private'] ?? process.env.SEALED_ROOT_PRIVATE ?? '';
const root = rootText
  ? PrivateKey.deserialize(new Uint8Array(Buffer.from(rootText, 'base64')))
  : PrivateKey.generate();
const server = PrivateKey.generate();
const cert = ServerCertificate.new(keyId, server.getPublicKey(), root);
const b64 = (bytes) => Buffer.from(bytes).toString('base64');
process.stdout.write(
  [
    `SEALED_TRUST_ROOT_PUBLIC=${b64(root.getPublicKey().serialize())}`,
    `TYO_MQ_SEALED_SERVER_CERT=${b64(cert.serialize())}`,
    `TYO_MQ_SEALED_SERVER_KEY=${b64(server.serialize())}`,
    `SEALED_ROOT_PRIVATE=${b64(root.serialize())}`,
    '',
  ].join('\n'),
);
