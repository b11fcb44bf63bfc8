import { describe, expect, it } from 'vitest';
import { diffFile, makeBundle } from '../test-bundle.js';
import { secretPaths } from './secret-paths.js';

describe('secret-paths', () => {
  it('passes for ordinary files', () => {
    const bundle = makeBundle({ diff: { files: [diffFile('src/env.ts'), diffFile('docs/keys.md')] } });
    expect(secretPaths.run(bundle)).toMatchObject({ passed: true, evidence: [] });
  });

  it('flags added key files and .env at any depth with the default patterns', () => {
    const bundle = makeBundle({
      diff: {
        files: [
          diffFile('.env', { status: 'added' }),
          diffFile('deploy/certs/server.pem', { status: 'added' }),
        ],
        ignored_files: ['home/.ssh/id_rsa.pub'],
      },
    });
    const result = secretPaths.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.evidence.map((e) => e.path)).toEqual([
      '.env',
      'deploy/certs/server.pem',
      'home/.ssh/id_rsa.pub',
    ]);
    expect(result.message).toBe(
      '3 changed paths look like a secret file: .env, deploy/certs/server.pem, home/.ssh/id_rsa.pub',
    );
  });

  it('flags env files at any depth by default, but not the templates committed on purpose', () => {
    const flagged = ['deploy/prod.env', 'config/.env.production', '.env.local', 'a/b/staging.env'];
    const templates = ['.env.example', 'deploy/prod.env.example', 'a/.env.sample', '.env.template', '.envrc'];
    const bundle = makeBundle({
      diff: { files: [...flagged, ...templates].map((p) => diffFile(p, { status: 'added' })) },
    });
    expect(secretPaths.run(bundle).evidence.map((e) => e.path)).toEqual(flagged);
  });

  it('does not flag deleting a secret file but does flag renaming one away', () => {
    const deleted = makeBundle({ diff: { files: [diffFile('.env', { status: 'deleted', added: 0 })] } });
    expect(secretPaths.run(deleted).passed).toBe(true);
    const renamed = makeBundle({
      diff: { files: [diffFile('notes.txt', { status: 'renamed', old_path: 'id_rsa' })] },
    });
    expect(secretPaths.run(renamed)).toMatchObject({ passed: false, evidence: [{ path: 'id_rsa' }] });
  });

  it('flags a secret file name in any case, and still leaves its templates alone', () => {
    const flagged = ['.ENV', 'certs/SERVER.PEM', 'keys/ID_RSA', 'aws/Credentials'];
    const templates = ['.ENV.EXAMPLE', 'deploy/Prod.Env.Template'];
    const bundle = makeBundle({
      diff: { files: [...flagged, ...templates].map((p) => diffFile(p, { status: 'added' })) },
    });
    expect(secretPaths.run(bundle).evidence.map((e) => e.path)).toEqual(flagged);
  });

  it('uses the configured patterns instead of the defaults', () => {
    const bundle = makeBundle({
      config: { secret_paths: ['vault/**'] },
      diff: { files: [diffFile('.env'), diffFile('vault/token')] },
    });
    expect(secretPaths.run(bundle).evidence.map((e) => e.path)).toEqual(['vault/token']);
  });
});
