import path from 'node:path';
import { z } from 'zod';
import { loadYamlFile, type YamlFileKind } from '../config/load-yaml-file.js';
import { ConfigError, type ConfigIssue, InputError } from '../errors.js';
import {
  publicKeyId,
  readHmacKey,
  readPublicKey,
  type SignatureFile,
  signatureValid,
  type VerifyKey,
} from './signing.js';

/*
 * A local trust policy: which keys this machine trusts to sign packs, and how many distinct
 * trusted signatures a pack needs. Nothing is fetched; keys are files next to the policy. A pack
 * that meets the policy is one that enough trusted keys signed — not one that is safe to run.
 */

const KeySchema = z
  .strictObject({
    /** A label for messages. */
    name: z.string().min(1).optional(),
    /** Ed25519 public key (PEM), relative to the policy file. Its id is computed from it. */
    public_key: z.string().min(1).optional(),
    /** HMAC-SHA256 shared key file, relative to the policy file; needs `id`. */
    hmac_key: z.string().min(1).optional(),
    /** The key id: required for an HMAC key; for a public key, checked against the key. */
    id: z.string().min(1).optional(),
  })
  .refine((k) => (k.public_key === undefined) !== (k.hmac_key === undefined), {
    message: 'give exactly one of public_key or hmac_key',
  })
  .refine((k) => k.hmac_key === undefined || k.id !== undefined, { message: 'an hmac_key needs an id' });

export const TrustPolicySchema = z.strictObject({
  schema: z.literal(1, { error: 'must be 1, the only trust policy schema this agentguard reads' }),
  required_signatures: z.number().int().min(1).default(1),
  keys: z.array(KeySchema).min(1, 'must list at least one trusted key'),
});

const POLICY_FILE: YamlFileKind = {
  what: 'trust policy',
  docs: 'docs/packs.md',
  notMapping: { message: 'must be a YAML mapping', fix: 'see docs/packs.md for the trust policy format' },
};

export type TrustedKey = { id: string; label: string; verify: VerifyKey };
export type TrustPolicy = { file: string; required: number; keys: TrustedKey[] };

export function loadTrustPolicy(file: string): TrustPolicy {
  const abs = path.resolve(file);
  const loaded = loadYamlFile(abs, TrustPolicySchema, POLICY_FILE);
  if (!loaded.ok) throw new ConfigError(loaded.issues);
  const issues: ConfigIssue[] = [];
  const keys: TrustedKey[] = [];
  for (const [i, k] of loaded.value.keys.entries()) {
    const field = `keys[${i}]`;
    try {
      if (k.public_key !== undefined) {
        const key = readPublicKey(path.resolve(path.dirname(abs), k.public_key));
        const id = publicKeyId(key);
        if (k.id !== undefined && k.id !== id)
          issues.push({
            file: abs,
            field: `${field}.id`,
            message: `says '${k.id}' but the key's id is '${id}'`,
            fix: `write id: ${id}, or leave id out`,
          });
        keys.push({ id, label: k.name ?? id, verify: { algorithm: 'ed25519', key } });
      } else if (k.hmac_key !== undefined && k.id !== undefined) {
        const key = readHmacKey(path.resolve(path.dirname(abs), k.hmac_key));
        keys.push({ id: k.id, label: k.name ?? k.id, verify: { algorithm: 'hmac-sha256', key } });
      }
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      // A key file's own fix, where its message gives one, is the fix of the policy's entry too.
      const [message = '', fix] = err.message.split('. Fix: ');
      issues.push({
        file: abs,
        field,
        message: message.replace(/\.$/, ''),
        fix: fix?.replace(/\.$/, '') ?? 'fix the key file or its path',
      });
    }
  }
  const ids = keys.map((k) => k.id);
  for (const id of new Set(ids.filter((id, i) => ids.indexOf(id) !== i)))
    issues.push({
      file: abs,
      field: 'keys',
      message: `key '${id}' is listed twice`,
      fix: 'list each key once',
    });
  if (loaded.value.required_signatures > keys.length && issues.length === 0)
    issues.push({
      file: abs,
      field: 'required_signatures',
      message: `requires ${loaded.value.required_signatures} signatures but lists ${keys.length} keys`,
      fix: 'lower required_signatures or list more keys',
    });
  if (issues.length > 0) throw new ConfigError(issues);
  return { file: abs, required: loaded.value.required_signatures, keys };
}

export type TrustVerdict = {
  ok: boolean;
  required: number;
  /** Trusted keys whose signature checked out. */
  valid: string[];
  /** Trusted keys with no valid signature. */
  missing: string[];
  /** Signatures that did not count, and why. */
  ignored: string[];
};

/** Count the distinct trusted keys that validly signed `root`. Pure but for the signature checks. */
export function evaluateTrust(
  root: string,
  signatures: SignatureFile | null,
  policy: TrustPolicy,
): TrustVerdict {
  const valid = new Set<string>();
  const ignored: string[] = [];
  if (signatures !== null && signatures.root !== root)
    ignored.push(`the signature file is for root digest ${signatures.root}, not this pack's ${root}`);
  else
    for (const s of signatures?.signatures ?? []) {
      const key = policy.keys.find((k) => k.id === s.key_id);
      if (key === undefined) ignored.push(`key ${s.key_id} is not in the trust policy`);
      else if (key.verify.algorithm !== s.algorithm)
        ignored.push(
          `key ${key.label}: the signature is ${s.algorithm}, the policy has a ${key.verify.algorithm} key`,
        );
      else if (!signatureValid(root, s.signature, key.verify))
        ignored.push(`key ${key.label}: the signature does not match the pack's root digest`);
      else valid.add(key.id);
    }
  const label = (k: TrustedKey) => (k.label === k.id ? k.id : `${k.label} (${k.id})`);
  return {
    ok: valid.size >= policy.required,
    required: policy.required,
    valid: policy.keys.filter((k) => valid.has(k.id)).map(label),
    missing: policy.keys.filter((k) => !valid.has(k.id)).map(label),
    ignored,
  };
}

/** The one sentence for a pack below the policy. */
export function trustFailure(pack: string, policy: TrustPolicy, v: TrustVerdict): string {
  const need = v.required - v.valid.length;
  return (
    `${pack}: has ${v.valid.length} valid signature${v.valid.length === 1 ? '' : 's'} from keys trusted by ${policy.file}, which requires ${v.required}; ` +
    `missing: ${need} more from ${v.missing.join(', ')}` +
    (v.ignored.length > 0 ? `; not counted: ${v.ignored.join('; ')}` : '') +
    `. Fix: have ${need === 1 ? 'one of these keys' : `${need} of these keys`} sign it ('agentguard pack sign'), or pass the right --signatures file.`
  );
}
