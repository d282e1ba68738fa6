/**
 * A libsignal client party for the sealed-sender tests: identity key, in-memory stores and a
 * PQXDH bundle (signed prekey, one-time prekey, Kyber prekey), with sealed-sender encryption
 * and decryption as a real client does them (`spec/protocol-extensions.md` §4, R48). The stores
 * are the client's, not the broker's: the broker never sees any of this.
 */
import type { PublicKey, SessionRecord } from '@signalapp/libsignal-client';
import {
  IdentityChange,
  IdentityKeyStore,
  KEMKeyPair,
  KyberPreKeyRecord,
  KyberPreKeyStore,
  PreKeyBundle,
  PreKeyRecord,
  PreKeyStore,
  PrivateKey,
  ProtocolAddress,
  SenderCertificate,
  SessionStore,
  SignedPreKeyRecord,
  SignedPreKeyStore,
  processPreKeyBundle,
  sealedSenderDecryptMessage,
  sealedSenderEncryptMessage,
  type Direction,
} from '@signalapp/libsignal-client';

class Sessions extends SessionStore {
  private readonly map = new Map<string, SessionRecord>();
  async saveSession(name: ProtocolAddress, record: SessionRecord): Promise<void> {
    this.map.set(name.toString(), record);
  }
  async getSession(name: ProtocolAddress): Promise<SessionRecord | null> {
    return this.map.get(name.toString()) ?? null;
  }
  async getExistingSessions(addresses: ProtocolAddress[]): Promise<SessionRecord[]> {
    return addresses.flatMap((a) => this.map.get(a.toString()) ?? []);
  }
}

class Identities extends IdentityKeyStore {
  private readonly known = new Map<string, PublicKey>();
  constructor(
    private readonly key: PrivateKey,
    private readonly registrationId: number,
  ) {
    super();
  }
  async getIdentityKey(): Promise<PrivateKey> {
    return this.key;
  }
  async getLocalRegistrationId(): Promise<number> {
    return this.registrationId;
  }
  async saveIdentity(name: ProtocolAddress, key: PublicKey): Promise<IdentityChange> {
    const had = this.known.get(name.toString());
    this.known.set(name.toString(), key);
    return had && !had.equals(key)
      ? IdentityChange.ReplacedExisting
      : IdentityChange.NewOrUnchanged;
  }
  async isTrustedIdentity(
    _name: ProtocolAddress,
    _key: PublicKey,
    _d: Direction,
  ): Promise<boolean> {
    return true;
  }
  async getIdentity(name: ProtocolAddress): Promise<PublicKey | null> {
    return this.known.get(name.toString()) ?? null;
  }
}

class PreKeys extends PreKeyStore {
  readonly map = new Map<number, PreKeyRecord>();
  async savePreKey(id: number, record: PreKeyRecord): Promise<void> {
    this.map.set(id, record);
  }
  async getPreKey(id: number): Promise<PreKeyRecord> {
    const r = this.map.get(id);
    if (!r) throw new Error(`no prekey ${id}`);
    return r;
  }
  async removePreKey(id: number): Promise<void> {
    this.map.delete(id);
  }
}

class SignedPreKeys extends SignedPreKeyStore {
  readonly map = new Map<number, SignedPreKeyRecord>();
  async saveSignedPreKey(id: number, record: SignedPreKeyRecord): Promise<void> {
    this.map.set(id, record);
  }
  async getSignedPreKey(id: number): Promise<SignedPreKeyRecord> {
    const r = this.map.get(id);
    if (!r) throw new Error(`no signed prekey ${id}`);
    return r;
  }
}

class KyberPreKeys extends KyberPreKeyStore {
  readonly map = new Map<number, KyberPreKeyRecord>();
  async saveKyberPreKey(id: number, record: KyberPreKeyRecord): Promise<void> {
    this.map.set(id, record);
  }
  async getKyberPreKey(id: number): Promise<KyberPreKeyRecord> {
    const r = this.map.get(id);
    if (!r) throw new Error(`no kyber prekey ${id}`);
    return r;
  }
  async markKyberPreKeyUsed(): Promise<void> {}
}

/** One libsignal client (device 1) named `name`. */
export class SignalParty {
  readonly identityKey = PrivateKey.generate();
  readonly address: ProtocolAddress;
  private readonly sessions = new Sessions();
  private readonly identities: Identities;
  private readonly preKeys = new PreKeys();
  private readonly signedPreKeys = new SignedPreKeys();
  private readonly kyberPreKeys = new KyberPreKeys();

  constructor(readonly name: string) {
    this.address = ProtocolAddress.new(name, 1);
    this.identities = new Identities(this.identityKey, 1000 + name.length);
  }

  /** Base64 of the 33-byte public identity key (what `SEALED_CERT_REQUEST` sends). */
  publicKeyB64(): string {
    return Buffer.from(this.identityKey.getPublicKey().serialize()).toString('base64');
  }

  /** A fresh PQXDH bundle (one-time prekey 1 and Kyber prekey 1), its secrets kept here. */
  bundle(): PreKeyBundle {
    const signed = PrivateKey.generate();
    const signedSig = this.identityKey.sign(signed.getPublicKey().serialize());
    this.signedPreKeys.map.set(
      1,
      SignedPreKeyRecord.new(1, Date.now(), signed.getPublicKey(), signed, signedSig),
    );
    const oneTime = PrivateKey.generate();
    this.preKeys.map.set(1, PreKeyRecord.new(1, oneTime.getPublicKey(), oneTime));
    const kyber = KEMKeyPair.generate();
    const kyberSig = this.identityKey.sign(kyber.getPublicKey().serialize());
    this.kyberPreKeys.map.set(1, KyberPreKeyRecord.new(1, Date.now(), kyber, kyberSig));
    return PreKeyBundle.new(
      1000 + this.name.length,
      1,
      1,
      oneTime.getPublicKey(),
      1,
      signed.getPublicKey(),
      signedSig,
      this.identityKey.getPublicKey(),
      1,
      kyber.getPublicKey(),
      kyberSig,
    );
  }

  /** Seals `plaintext` for `to` (whose bundle this party processes) under `cert` (base64). */
  async seal(
    to: SignalParty,
    bundle: PreKeyBundle,
    certB64: string,
    plaintext: string,
  ): Promise<string> {
    await processPreKeyBundle(bundle, to.address, this.address, this.sessions, this.identities);
    const cert = SenderCertificate.deserialize(new Uint8Array(Buffer.from(certB64, 'base64')));
    const sealed = await sealedSenderEncryptMessage(
      new Uint8Array(Buffer.from(plaintext)),
      to.address,
      cert,
      this.sessions,
      this.identities,
    );
    return Buffer.from(sealed).toString('base64');
  }

  /** Opens a sealed blob (base64) against the pinned `root`: the plaintext and the sender. */
  async open(blobB64: string, root: PublicKey) {
    const result = await sealedSenderDecryptMessage(
      new Uint8Array(Buffer.from(blobB64, 'base64')),
      root,
      Date.now(),
      null,
      this.name,
      1,
      this.sessions,
      this.identities,
      this.preKeys,
      this.signedPreKeys,
      this.kyberPreKeys,
    );
    return {
      plaintext: Buffer.from(result.message()).toString(),
      senderUuid: result.senderUuid(),
      deviceId: result.deviceId(),
    };
  }
}
