import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  timingSafeEqual,
  verify,
} from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { errorMessage, InputError } from '../errors.js';
import { readTextFile } from '../evidence/read.js';
import { sha256Hex } from './manifest.js';

/*
 * Detached signatures over a pack's root digest. Ed25519 (node:crypto) is the default: the signer
 * keeps the private key and consumers hold only the public key. HMAC-SHA256 is the shared-key mode:
 * whoever can check such a signature can also make one. What is signed is a fixed prefix and the
 * root digest, never the archive, so a signature survives renaming or copying the file and says
 * nothing about anything but those bytes.
 */

export type Algorithm = 'ed25519' | 'hmac-sha256';

export const SignatureFileSchema = z.strictObject({
  schema: z.literal(1),
  kind: z.literal('agentguard-pack-signatures'),
  root: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  signatures: z.array(
    z.strictObject({
      key_id: z.string().min(1),
      algorithm: z.enum(['ed25519', 'hmac-sha256']),
      signature: z.string().min(1),
    }),
  ),
});
export type SignatureFile = z.output<typeof SignatureFileSchema>;

const MIN_HMAC_KEY_CHARS = 32;

function message(root: string): Buffer {
  return Buffer.from(`agentguard-pack-signature-v1\n${root}\n`);
}

/** A public key's id: `ed25519:` and the first 16 hex digits of the SHA-256 of its DER (SPKI) form. */
export function publicKeyId(key: KeyObject): string {
  return `ed25519:${sha256Hex(key.export({ type: 'spki', format: 'der' })).slice(0, 16)}`;
}

export function generateEd25519(
  dir: string,
  name: string,
): { id: string; privateFile: string; publicFile: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privateFile = path.join(dir, `${name}.key`);
  const publicFile = path.join(dir, `${name}.pub`);
  for (const f of [privateFile, publicFile])
    if (existsSync(f)) throw new InputError(`${f} already exists. Fix: choose another --name or folder.`);
  writeFileSync(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
    flag: 'wx',
  });
  writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644, flag: 'wx' });
  return { id: publicKeyId(publicKey), privateFile, publicFile };
}

export function generateHmacKey(dir: string, name: string): { file: string } {
  const file = path.join(dir, `${name}.hmac`);
  if (existsSync(file)) throw new InputError(`${file} already exists. Fix: choose another --name or folder.`);
  writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return { file };
}

/**
 * Key material that is public by nature (a PEM block of any kind, an OpenSSH or JSON web key): as
 * an HMAC secret, anyone who has the public half could sign. Named in the refusal.
 */
const PUBLIC_KEY_FORMS: [RegExp, string][] = [
  [/-----BEGIN [A-Z0-9 ]+-----/, 'a PEM block'],
  [/^(ssh-|ecdsa-sha2-|sk-ssh-|sk-ecdsa-)[a-z0-9-]*\s+AAAA/m, 'an OpenSSH public key'],
  [/^\s*\{[\s\S]*"kty"\s*:/, 'a JSON web key'],
];

export function readHmacKey(file: string): Buffer {
  const text = readKeyText(file).trim();
  const form = PUBLIC_KEY_FORMS.find(([re]) => re.test(text));
  if (form !== undefined)
    throw new InputError(
      `${file}: is ${form[1]}, not a shared secret: a key's public half is public, so with it as the HMAC key anyone could sign. Fix: make a secret with 'agentguard keys generate --hmac', or list a public key under public_key:.`,
    );
  if (text.length < MIN_HMAC_KEY_CHARS)
    throw new InputError(
      `${file}: an HMAC key must be at least ${MIN_HMAC_KEY_CHARS} characters. Fix: make one with 'agentguard keys generate --hmac'.`,
    );
  return Buffer.from(text);
}

export function readPublicKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(readKeyText(file));
  } catch (err) {
    throw new InputError(`${file}: is not a PEM public key (${errorMessage(err)}).`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new InputError(`${file}: is a ${key.asymmetricKeyType} key; agentguard signs with ed25519 keys.`);
  return key;
}

/** A key is a few hundred bytes; a signature file a few kilobytes. Either bounded, and a regular file only. */
const KEY_FILE_MAX = 64 * 1024;
const SIGNATURE_FILE_MAX = 1024 * 1024;

function readKeyText(file: string): string {
  const read = readTextFile(file, KEY_FILE_MAX);
  if (!read.ok)
    throw new InputError(`${file}: cannot read the key file (${read.error.detail}). Fix: check the path.`);
  return read.text;
}

export type SigningKey =
  | { algorithm: 'ed25519'; key: KeyObject; id: string }
  | { algorithm: 'hmac-sha256'; key: Buffer; id: string };

/** The signer's key: an Ed25519 private key file, or with `hmacId` an HMAC key file named by that id. */
export function readSigningKey(file: string, hmacId: string | undefined): SigningKey {
  if (hmacId !== undefined) return { algorithm: 'hmac-sha256', key: readHmacKey(file), id: hmacId };
  let key: KeyObject;
  try {
    key = createPrivateKey(readKeyText(file));
  } catch (err) {
    throw new InputError(
      `${file}: is not a PEM private key (${errorMessage(err)}). Fix: pass the .key file from 'agentguard keys generate', or --hmac --key-id ID for a shared HMAC key.`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new InputError(`${file}: is a ${key.asymmetricKeyType} key; agentguard signs with ed25519 keys.`);
  return { algorithm: 'ed25519', key, id: publicKeyId(createPublicKey(key)) };
}

export function signRoot(root: string, key: SigningKey): SignatureFile['signatures'][number] {
  const sig =
    key.algorithm === 'ed25519'
      ? sign(null, message(root), key.key)
      : createHmac('sha256', key.key).update(message(root)).digest();
  return { key_id: key.id, algorithm: key.algorithm, signature: sig.toString('base64') };
}

export type VerifyKey = { algorithm: 'ed25519'; key: KeyObject } | { algorithm: 'hmac-sha256'; key: Buffer };

export function signatureValid(root: string, signature: string, key: VerifyKey): boolean {
  const sig = Buffer.from(signature, 'base64');
  if (key.algorithm === 'ed25519') return verify(null, message(root), key.key, sig);
  const expected = createHmac('sha256', key.key).update(message(root)).digest();
  return sig.length === expected.length && timingSafeEqual(sig, expected);
}

export function readSignatureFile(file: string): SignatureFile {
  let raw: unknown;
  try {
    const read = readTextFile(file, SIGNATURE_FILE_MAX);
    if (!read.ok) throw new Error(read.error.detail);
    raw = JSON.parse(read.text);
  } catch (err) {
    throw new InputError(`${file}: is not a readable signature file (${errorMessage(err)}).`);
  }
  const parsed = SignatureFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new InputError(
      `${file}: is not an agentguard signature file (field '${parsed.error.issues[0]?.path.join('.')}': ${parsed.error.issues[0]?.message}).`,
    );
  return parsed.data;
}

/** Add (or replace, for the same key id) a signature in the signature file, written atomically. */
export function addSignature(
  file: string,
  root: string,
  entry: SignatureFile['signatures'][number],
): SignatureFile {
  const current: SignatureFile = existsSync(file)
    ? readSignatureFile(file)
    : { schema: 1, kind: 'agentguard-pack-signatures', root, signatures: [] };
  if (current.root !== root)
    throw new InputError(
      `${file}: holds signatures for root digest ${current.root}, not this pack's ${root}. Fix: write to another file with --out, or remove the old one.`,
    );
  const next: SignatureFile = {
    ...current,
    signatures: [...current.signatures.filter((s) => s.key_id !== entry.key_id), entry],
  };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o644 });
  renameSync(tmp, file);
  return next;
}
