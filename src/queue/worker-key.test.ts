import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  loadOrCreateWorkerKey,
  loadRegisteredKeys,
  publicKeyFile,
  signatureProblem,
  signValue,
} from './worker-key.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'ag-key-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('worker keys', () => {
  it('are made once, readable by their owner only, and read back the same', () => {
    const file = path.join(tmp(), 'sub', 'worker-key.pem');
    const made = loadOrCreateWorkerKey(file);
    expect(made.created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const again = loadOrCreateWorkerKey(file);
    expect(again.created).toBe(false);
    expect(again.id).toBe(made.id);
    expect(readFileSync(publicKeyFile(file), 'utf8')).toBe(made.publicPem);
  });

  it('refuse a key file others can read, or a key that is not Ed25519', () => {
    const file = path.join(tmp(), 'k.pem');
    loadOrCreateWorkerKey(file);
    chmodSync(file, 0o640);
    expect(() => loadOrCreateWorkerKey(file)).toThrow(/readable by others \(mode 640\).*chmod 600/);
    const rsa = path.join(tmp(), 'rsa.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(rsa, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    expect(() => loadOrCreateWorkerKey(rsa)).toThrow(/a rsa key, not Ed25519/);
  });

  it('register public keys from a folder; refuse a private key there, another kind, or none', () => {
    const dir = tmp();
    const aFile = path.join(tmp(), 'a.pem');
    const a = loadOrCreateWorkerKey(aFile);
    const b = loadOrCreateWorkerKey(path.join(tmp(), 'b.pem'));
    const keys = path.join(dir, 'keys');
    mkdirSync(keys);
    expect(() => loadRegisteredKeys(keys)).toThrow(/holds no key/);
    writeFileSync(path.join(keys, 'a.pub'), a.publicPem);
    writeFileSync(path.join(keys, 'b.pem'), b.publicPem);
    writeFileSync(path.join(keys, 'notes.txt'), 'ignored');
    const registered = loadRegisteredKeys(keys);
    expect([...registered.keys()].sort()).toEqual([a.id, b.id].sort());
    const signed = signValue({ x: 1 }, a);
    expect(signatureProblem(signed, registered)).toBeNull();
    expect(signatureProblem({ ...signed, x: 2 }, registered)).toMatch(/does not match its content/);
    writeFileSync(path.join(keys, 'oops.pem'), readFileSync(aFile));
    expect(() => loadRegisteredKeys(keys)).toThrow(/holds a private or unknown key/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    const single = path.join(dir, 'rsa.pub');
    writeFileSync(single, rsa.export({ type: 'spki', format: 'pem' }));
    expect(() => loadRegisteredKeys(single)).toThrow(/holds a rsa key, not a worker's Ed25519 key/);
    expect(() => loadRegisteredKeys(path.join(dir, 'none'))).toThrow(/does not exist/);
  });
});
