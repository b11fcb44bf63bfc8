import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { ConfigError, errorMessage } from '../errors.js';
import { canonicalJson } from '../provenance/digest.js';

/*
 * Each worker signs its results with its own Ed25519 key; the coordinator accepts a result only when
 * a key the operator registered with it (--worker-keys) signed it. Whoever can write to Redis can
 * then still enqueue or delete, but not answer an attempt.
 */

/** A worker's key: the private half signs, the public half (and its id) is what the operator registers. */
export type WorkerKey = { privateKey: KeyObject; publicPem: string; id: string };

/** A key's id: sha256 of its public key (SPKI DER), as results name the key that signed them. */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** The public half of a key file, beside it: what the operator copies to the coordinator. */
export const publicKeyFile = (keyFile: string) => `${keyFile}.pub`;

/**
 * The worker's key from `file`, made there on first use (mode 0600 in a 0700 folder, with the
 * public half in `file.pub`). A key file others can read, or one that is not an Ed25519 private
 * key, is refused naming the file.
 */
export function loadOrCreateWorkerKey(file: string): WorkerKey & { created: boolean } {
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { flag: 'wx', mode: 0o600 });
    chmodSync(file, 0o600); // whatever the umask
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(publicKeyFile(file), publicPem, { mode: 0o644 });
    return { privateKey, publicPem, id: keyId(publicKey), created: true };
  }
  const st = statSync(file);
  if (!st.isFile() || (st.mode & 0o077) !== 0)
    throw new ConfigError(
      `--key ${file}: the worker's private key is readable by others (mode ${(st.mode & 0o777).toString(8)}) or not a file. ` +
        `Fix: chmod 600 ${file}, or remove it and let the worker make a new one (then register the new .pub).`,
    );
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(readFileSync(file));
  } catch (err) {
    throw new ConfigError(
      `--key ${file}: not a private key (${errorMessage(err)}). Fix: remove it and let the worker make a new one.`,
    );
  }
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new ConfigError(
      `--key ${file}: a ${privateKey.asymmetricKeyType} key, not Ed25519. Fix: remove it and let the worker make a new one.`,
    );
  const publicKey = createPublicKey(privateKey);
  return {
    privateKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    id: keyId(publicKey),
    created: false,
  };
}

/** The keys of the workers the operator registered: id → public key. */
export type RegisteredKeys = ReadonlyMap<string, KeyObject>;

/**
 * The registered workers' public keys from `where`: one PEM file, or a folder of them (`*.pub`,
 * `*.pem`). Each must be an Ed25519 public key; a private key, another kind of key or an empty
 * folder is refused naming the file and the flag.
 */
export function loadRegisteredKeys(where: string, flag = '--worker-keys'): RegisteredKeys {
  let files: string[];
  try {
    files = statSync(where).isDirectory()
      ? readdirSync(where)
          .filter((n) => /\.(pub|pem)$/.test(n))
          .sort()
          .map((n) => path.join(where, n))
      : [where];
  } catch {
    throw new ConfigError(
      `${flag} ${where} does not exist. Fix: give the file or folder holding the workers' public keys (each worker's KEY.pub).`,
    );
  }
  const keys = new Map<string, KeyObject>();
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const pems = text.match(/-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g) ?? [];
    if (pems.length === 0)
      throw new ConfigError(`${flag}: ${f} holds no PEM key. Fix: copy a worker's KEY.pub there.`);
    for (const pem of pems) {
      if (!pem.startsWith('-----BEGIN PUBLIC KEY-----'))
        throw new ConfigError(
          `${flag}: ${f} holds a private or unknown key, not a public one. Fix: register only the workers' KEY.pub files, and remove the private key from this host.`,
        );
      const key = createPublicKey(pem);
      if (key.asymmetricKeyType !== 'ed25519')
        throw new ConfigError(
          `${flag}: ${f} holds a ${key.asymmetricKeyType} key, not a worker's Ed25519 key. Fix: copy the worker's KEY.pub.`,
        );
      keys.set(keyId(key), key);
    }
  }
  if (keys.size === 0)
    throw new ConfigError(
      `${flag} ${where} holds no key (*.pub or *.pem). Fix: copy each worker's KEY.pub there.`,
    );
  return keys;
}

/** The value with `signature` and `signed_by` added: Ed25519 over its canonical JSON. */
export function signValue<T extends object>(
  value: T,
  key: WorkerKey,
): T & { signed_by: string; signature: string } {
  const body = { ...value, signed_by: key.id };
  const signature = sign(null, Buffer.from(canonicalJson(body)), key.privateKey).toString('base64');
  return { ...body, signature };
}

/** Null when a registered key signed `value` as it is; else why it is not accepted, in one sentence. */
export function signatureProblem(value: Record<string, unknown>, keys: RegisteredKeys): string | null {
  const { signature, ...body } = value;
  const by = body.signed_by;
  if (typeof signature !== 'string' || typeof by !== 'string')
    return 'it is not signed (a worker of this version signs every result with its --key)';
  const key = keys.get(by);
  if (!key) return `it is signed by key ${by.slice(0, 16)}…, which is not registered with --worker-keys`;
  let ok = false;
  try {
    ok = verify(null, Buffer.from(canonicalJson(body)), key, Buffer.from(signature, 'base64'));
  } catch {
    ok = false;
  }
  return ok ? null : `its signature by key ${by.slice(0, 16)}… does not match its content`;
}
