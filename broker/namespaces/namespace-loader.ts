/**
 * Custom namespaces (`spec/protocol-admin.md` §16.1).
 *
 * Config: `namespaces: {"<name>": "<module path>" | {module|module_path: "<path>", options}}`.
 * Names gain a leading `/`; relative paths resolve against the process working directory. A
 * module exports a function, or an object with an `attach` function (default or named export):
 * `attach(io, options, context) → api?` with `context = {name, logger, getOptions(),
 * getSettings(key)}`; `getOptions()` reads the live options block. The returned api is exposed as
 * `namespaces[name]`. `/` and `/remote` are reserved (a configured entry is ignored with a
 * warning). Names are attached at start and by `sync()` after a settings change, never re-attached
 * or detached. A missing module, a non-function export or a throw is logged and skipped.
 *
 * Security: a namespace module is code execution with the broker's privileges, named by the
 * settings file — which must therefore be writable only by the service user (0600); see
 * docs/namespaces.md. Modules get no realm/auth context and must authenticate their own sockets.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REMOTE_NAMESPACE } from '../../shared/protocol-events';
import type { Logger } from '../logging/logger';
import type { BrokerServer } from '../transport/socket-types';

/** What a namespace module receives as its third argument. */
export interface NamespaceContext {
  name: string;
  logger: Logger;
  /** The live `options` block of this namespace's entry ({} when none). */
  getOptions(): unknown;
  /** A top-level settings key, live. */
  getSettings(key: string): unknown;
}

export type AttachFunction = (
  io: BrokerServer,
  options: unknown,
  context: NamespaceContext,
) => unknown;

export const RESERVED_NAMESPACES: readonly string[] = ['/', REMOTE_NAMESPACE];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `chat` → `/chat`; `/chat` unchanged. */
export function normalizeNamespaceName(name: string): string {
  return name.startsWith('/') ? name : `/${name}`;
}

/** An entry's module path and options, or null when it names no module. */
export function parseNamespaceEntry(entry: unknown): { module: string; options: unknown } | null {
  if (typeof entry === 'string') return entry ? { module: entry, options: {} } : null;
  if (!isObject(entry)) return null;
  const module = entry.module ?? entry.module_path ?? entry.modulePath;
  if (typeof module !== 'string' || module === '') return null;
  return { module, options: entry.options ?? {} };
}

function attachFunctionOf(mod: unknown): AttachFunction | null {
  const candidates = [isObject(mod) ? mod.default : undefined, mod];
  for (const c of candidates) {
    if (typeof c === 'function') return c as AttachFunction;
    if ((isObject(c) || typeof c === 'function') && typeof (c as Json).attach === 'function') {
      const holder = c as { attach: AttachFunction };
      return (io, options, context) => holder.attach(io, options, context);
    }
  }
  return null;
}

export class NamespaceLoader {
  /** Returned apis by namespace name (null prototype). */
  readonly apis: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  /** Names handled already (attached or failed), with the module path as configured. */
  private readonly seen = new Map<string, string>();
  private running: Promise<string[]> = Promise.resolve([]);

  constructor(
    private readonly io: BrokerServer,
    private readonly settings: () => { namespaces?: unknown } & object,
    private readonly logger: Logger,
    private readonly cwd: string = process.cwd(),
  ) {}

  private entries(): Json {
    const n = this.settings().namespaces;
    return isObject(n) ? n : {};
  }

  /**
   * Attaches every configured name not handled yet; resolves with the names attached by this
   * call. Never rejects. Calls are serialized.
   */
  sync(): Promise<string[]> {
    this.running = this.running.then(() => this.syncOnce());
    return this.running;
  }

  private async syncOnce(): Promise<string[]> {
    const attached: string[] = [];
    for (const [rawName, entry] of Object.entries(this.entries())) {
      const name = normalizeNamespaceName(rawName);
      if (this.seen.has(name)) continue;
      const parsed = parseNamespaceEntry(entry);
      this.seen.set(name, parsed?.module ?? '');
      if (RESERVED_NAMESPACES.includes(name)) {
        this.logger.warn({ namespace: name }, 'reserved namespace name ignored');
        continue;
      }
      if (!parsed) {
        this.logger.error({ namespace: name }, 'namespace entry names no module; skipped');
        continue;
      }
      if (await this.attach(name, rawName, parsed.module, parsed.options)) attached.push(name);
    }
    return attached;
  }

  private async attach(name: string, rawName: string, module: string, options: unknown) {
    const log = this.logger.child({ namespace: name });
    try {
      const mod: unknown = await import(pathToFileURL(resolve(this.cwd, module)).href);
      const attach = attachFunctionOf(mod);
      if (!attach) {
        log.error({ module }, 'namespace module exports no attach function; skipped');
        return false;
      }
      const context: NamespaceContext = {
        name,
        logger: log,
        getOptions: () => parseNamespaceEntry(this.entries()[rawName])?.options ?? options,
        getSettings: (key) => (this.settings() as Json)[key],
      };
      const api = await attach(this.io, options, context);
      if (api !== undefined) this.apis[name] = api;
      log.info({ module }, 'namespace attached');
      return true;
    } catch (err) {
      log.error({ err, module }, 'namespace module failed to load or attach; skipped');
      return false;
    }
  }

  /** `get`'s view (§16.1): `/remote` built-in plus each configured name with its module path. */
  describe(): Record<string, { module: string }> {
    const out: Record<string, { module: string }> = { [REMOTE_NAMESPACE]: { module: 'built-in' } };
    for (const [name, module] of this.seen) {
      if (!RESERVED_NAMESPACES.includes(name) && module) out[name] = { module };
    }
    return out;
  }
}
