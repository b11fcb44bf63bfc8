import { describe, expect, it } from 'vitest';
import { DependencySchema } from '../config/setup-schema.js';
import { installCommands } from './install-dependencies.js';

const dep = (raw: object) => DependencySchema.parse(raw);

describe('installCommands', () => {
  it('npm: npm ci in the lockfile folder, offline from the cache, no install scripts unless allowed', () => {
    const [ci, ...rest] = installCommands(
      dep({ manager: 'npm', lockfile: 'web/package-lock.json', cache: '/c' }),
      '/ws',
    );
    expect(rest).toEqual([]);
    expect(ci?.cwd).toBe('/ws/web');
    expect(ci?.argv).toEqual(
      expect.arrayContaining(['npm', 'ci', '--offline', '--cache', '/c', '--ignore-scripts']),
    );
    const scripted = installCommands(
      dep({ manager: 'npm', mirror: 'https://r.example/', scripts: true }),
      '/ws',
    );
    expect(scripted[0]?.argv).toContain('--registry');
    expect(scripted[0]?.argv).not.toContain('--ignore-scripts');
    expect(scripted[0]?.argv).not.toContain('--offline');
  });

  it('pip: a venv in the workspace, then its pip from the wheels only, or from the mirror', () => {
    const [venv, pip] = installCommands(dep({ manager: 'pip', cache: '/wheels', target: 'env' }), '/ws');
    expect(venv?.argv).toEqual(['python3', '-m', 'venv', '/ws/env']);
    expect(pip?.argv.slice(0, 4)).toEqual(['/ws/env/bin/python', '-m', 'pip', 'install']);
    expect(pip?.argv).toEqual(
      expect.arrayContaining(['--no-index', '--find-links', '/wheels', '--only-binary', ':all:']),
    );
    expect(pip?.argv.slice(-2)).toEqual(['-r', '/ws/requirements.txt']);
    const mirrored = installCommands(
      dep({ manager: 'pip', mirror: 'https://p.example/simple/', scripts: true }),
      '/ws',
    );
    expect(mirrored[1]?.argv).toEqual(expect.arrayContaining(['--index-url', 'https://p.example/simple/']));
    expect(mirrored[1]?.argv).not.toContain('--only-binary');
    expect(mirrored[1]?.argv).not.toContain('--no-index');
  });
});
