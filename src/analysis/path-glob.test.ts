import { describe, expect, it } from 'vitest';
import { compileGlobs, expandPattern } from './path-glob.js';

describe('compileGlobs', () => {
  it('matches a slash-less pattern at any depth', () => {
    const match = compileGlobs(['*.pem']);
    expect(match('key.pem')).toBe('*.pem');
    expect(match('deep/nested/key.pem')).toBe('*.pem');
    expect(match('key.pem.txt')).toBeNull();
  });

  it('anchors patterns with a slash at the workspace root', () => {
    const match = compileGlobs(['src/*.ts']);
    expect(match('src/a.ts')).toBe('src/*.ts');
    expect(match('lib/src/a.ts')).toBeNull();
    expect(match('src/deep/a.ts')).toBeNull();
  });

  it('anchors a leading-slash pattern and treats a named folder as covering its contents', () => {
    const match = compileGlobs(['/secrets', 'build/']);
    expect(match('secrets')).toBe('/secrets');
    expect(match('secrets/a/b.txt')).toBe('/secrets');
    expect(match('nested/secrets/a.txt')).toBeNull();
    expect(match('build/out.js')).toBe('build/');
  });

  it('matches dot files and dot folders', () => {
    const match = compileGlobs(['**/.env', '.github/**']);
    expect(match('.env')).toBe('**/.env');
    expect(match('app/.env')).toBe('**/.env');
    expect(match('.github/workflows/ci.yml')).toBe('.github/**');
    expect(compileGlobs(['**'])('.git/hooks/pre-commit')).toBe('**');
  });

  it('tolerates a leading ./ on patterns and paths', () => {
    expect(compileGlobs(['./docs/**'])('./docs/a.md')).toBe('./docs/**');
    expect(expandPattern('./docs/**')).toEqual(['docs/**']);
  });

  it('matches names holding a newline or another control byte like any other name', () => {
    const match = compileGlobs(['src/**']);
    expect(match('src/a\nb.ts')).toBe('src/**');
    expect(match('src/\n/x.ts')).toBe('src/**');
    expect(match('src/a\u0001b')).toBe('src/**');
    expect(match('srcx/a\nb')).toBeNull();
    expect(compileGlobs(['**/.env'])('a\nb/.env')).toBe('**/.env');
  });

  it('matches nothing for an empty list', () => {
    expect(compileGlobs([])('a.txt')).toBeNull();
  });
});
