/**
 * The Definitions methods of the ConsoleService (`shared/console-api-definitions.ts`, issue 27):
 * export a connection's definitions as a versioned document, preview an import as a diff
 * against the broker's current definitions, and apply it as signed, audited commands.
 *
 * Secrets stay here: with a passphrase the export reads the keys (`realm_keys` with `reveal`)
 * and returns them only encrypted (definitions-crypto.ts); an import decrypts them here, checks
 * them against the document's hashes and sends them only inside signed commands.
 */
import type { ConsoleService } from '../../shared/console-api';
import { diffDefinitions } from '../../shared/definitions-diff';
import { parseDefinitions, type DefinitionsDocument } from '../../shared/definitions-document';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { ConnectionManager } from './connection-manager';
import {
  decryptRealmKeys,
  encryptRealmKeys,
  sha256OrNull,
  type RealmKeyMap,
} from './definitions-crypto';
import { applyDiff } from './definitions-apply';
import { readDefinitions } from './definitions-read';
import type { ManagerPool } from './manager-pool';

type DefinitionsMethods = Pick<
  ConsoleService,
  'exportDefinitions' | 'previewDefinitions' | 'applyDefinitions'
>;

export interface DefinitionsServiceDeps {
  pool: ManagerPool;
  connections: Pick<ConnectionManager, 'profile'>;
}

/** A name safe in a file name: letters, digits, `-` and `_`. */
const fileSafe = (text: string): string =>
  text.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'broker';

interface ParsedImport {
  document: DefinitionsDocument;
  keys: RealmKeyMap | null;
}

/**
 * Parses `text` and, with a passphrase and `encrypted_keys`, decrypts the keys and checks each
 * against the document's SHA-256 (a mismatch means an edited file: refused).
 */
async function parseImport(text: string, passphrase: string | undefined): Promise<ParsedImport> {
  const parsed = parseDefinitions(text);
  if (!parsed.ok) throw new SwitchboardError('SWB_ERR_VALIDATION', parsed.message);
  const { document } = parsed;
  if (!document.encrypted_keys || passphrase === undefined) return { document, keys: null };
  const keys = await decryptRealmKeys(document.encrypted_keys, passphrase);
  for (const realm of document.realms) {
    const clear = keys[realm.name];
    const matches =
      sha256OrNull(clear?.key ?? null) === realm.keys.key_sha256 &&
      sha256OrNull(clear?.manager_key ?? null) === realm.keys.manager_key_sha256;
    if (!matches) {
      throw new SwitchboardError(
        'SWB_ERR_VALIDATION',
        `The encrypted keys of realm ${realm.name} do not match the file's hashes: the file was altered.`,
      );
    }
  }
  return { document, keys };
}

/** Builds the methods. Errors: see `shared/console-api-definitions.ts`. */
export function createDefinitionsService({
  pool,
  connections,
}: DefinitionsServiceDeps): DefinitionsMethods {
  const origin = (connectionId: string) => {
    const profile = connections.profile(connectionId);
    return { name: profile.name, url: profile.url() };
  };
  const current = (connectionId: string) =>
    readDefinitions(pool.get(connectionId), origin(connectionId), false);
  const keysInHand = (keys: RealmKeyMap | null) => new Set(keys ? Object.keys(keys) : []);

  return {
    exportDefinitions: async ({ connectionId, passphrase }) => {
      const encrypt = passphrase !== undefined;
      const read = await readDefinitions(pool.get(connectionId), origin(connectionId), encrypt);
      const document: DefinitionsDocument = read.keys
        ? { ...read.document, encrypted_keys: await encryptRealmKeys(read.keys, passphrase!) }
        : read.document;
      const day = document.exported_at.slice(0, 10);
      return {
        connectionId,
        fileName: `switchboard-definitions-${fileSafe(connectionId)}-${day}.json`,
        text: `${JSON.stringify(document, null, 2)}\n`,
        encrypted: encrypt,
        realms: document.realms.length,
        tokens: document.tokens.length,
      };
    },

    previewDefinitions: async ({ connectionId, text, passphrase }) => {
      const { document, keys } = await parseImport(text, passphrase);
      const target = await current(connectionId);
      return {
        connectionId,
        source: {
          name: document.broker.name,
          url: document.broker.url,
          exportedAt: document.exported_at,
        },
        encrypted: document.encrypted_keys !== undefined,
        diff: diffDefinitions(document, target.document, keysInHand(keys)),
      };
    },

    applyDefinitions: async ({ connectionId, text, passphrase, applyRemovals }) => {
      const { document, keys } = await parseImport(text, passphrase);
      const target = await current(connectionId);
      const diff = diffDefinitions(document, target.document, keysInHand(keys));
      return applyDiff(
        pool.get(connectionId),
        connectionId,
        diff,
        document,
        target.document,
        keys,
        applyRemovals,
      );
    },
  };
}
