import { describe, expect, it } from 'vitest';
import { withinSandboxRoot } from './resolved-file.js';

describe("a walk that reached the top of bwrap's own tmpfs", () => {
  it('names the file where the sandboxed process sees it, and leaves every other path alone', () => {
    expect(withinSandboxRoot('/newroot/tmp/run/repo/.venv')).toBe('/tmp/run/repo/.venv');
    expect(withinSandboxRoot('/newroot')).toBe('/');
    expect(withinSandboxRoot('/newrootx/a')).toBe('/newrootx/a');
    expect(withinSandboxRoot('/tmp/newroot/a')).toBe('/tmp/newroot/a');
  });
});
