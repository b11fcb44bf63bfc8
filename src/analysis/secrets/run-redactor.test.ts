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
