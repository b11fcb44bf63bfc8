import { describe, expect, it } from 'vitest';
import { insertAmongTests, jsTwins, mutateLiteral, pythonTwins } from './test-twins.js';

const free = () => false;

describe('twins of the task tests', () => {
  it('changes an expected literal to another value of its kind', () => {
    expect(mutateLiteral(' 100')).toBe(' 1007');
    expect(mutateLiteral('-3')).toBe('-23');
    expect(mutateLiteral('2.5')).toBe('2.51');
    expect(mutateLiteral('"a-b"')).toBe('"a-x"');
    expect(mutateLiteral("'x'")).toBe("'y'");
    expect(mutateLiteral("['a', 'b']")).toBe("['a', 'x']");
    expect(mutateLiteral('[1, [2, 3],]')).toBe('[1, [2, 37]]');
    // No literal of a kind a test's leftover state could reach by chance.
    expect(mutateLiteral('True')).toBeNull();
    expect(mutateLiteral('[]')).toBeNull();
    expect(mutateLiteral('f(1)')).toBeNull();
  });

  it('twins a unittest method and a pytest function beside their originals', () => {
    const text = [
      'class TestT(unittest.TestCase):',
      '    def test_f(self):',
      '        x = to_celsius(212, "F")',
      '        self.assertEqual(x, 100)',
      '',
      'def test_slug():',
      '    assert slug("A b") == "a-b", "slugged"',
      '',
      'def test_calls():',
      '    assert f(1) == g(2)',
      '',
    ].join('\n');
    const { text: out, twins } = pythonTwins(text, free);
    expect(twins.map((t) => t.of).sort()).toEqual(['test_f', 'test_slug']);
    const lines = out.split('\n');
    expect(lines).toContain('        self.assertEqual(x, 1007)');
    expect(lines).toContain('    assert slug("A b") == "a-x", "slugged"');
    // No literal to change: no twin (a negated one would pass once the original changed some state).
    expect(out).not.toContain('!=');
    // Each twin sits right after its original, at the original's depth, under a drawn name.
    const first = twins.find((t) => t.of === 'test_f');
    expect(lines.indexOf(`    def ${first?.name}(self):`)).toBeGreaterThan(
      lines.indexOf('    def test_f(self):'),
    );
    expect(first?.name.startsWith('test_f_')).toBe(true);
  });

  it('leaves tests whose outcome is not their top-level assertions', () => {
    const text = [
      '@pytest.mark.xfail',
      'def test_a():',
      '    assert f() == 1',
      '',
      'def test_b():',
      '    if flag:',
      '        assert f() == 1',
      '',
      'def test_c():',
      '    if not ready():',
      '        return',
      '    assert f() == 1',
      '',
      'def test_d():',
      '    assert f() == 1 == g()',
      '',
    ].join('\n');
    expect(pythonTwins(text, free).twins).toEqual([]);
  });

  it('twins node:test and vitest calls, single-line and blocks', () => {
    const text = [
      "test('breaks at spaces', () => assert.deepStrictEqual(wrap('a b'), ['a', 'b']));",
      "it('counts', () => {",
      "  const n = count('abc');",
      '  expect(n).toBe(3);',
      '});',
      "test('maybe', () => {",
      '  if (x) assert.equal(f(), 1);',
      '});',
      '',
    ].join('\n');
    const { text: out, twins } = jsTwins(text, free);
    expect(twins.map((t) => t.of).sort()).toEqual(['breaks at spaces', 'counts']);
    const wrapTwin = twins.find((t) => t.of === 'breaks at spaces');
    expect(out).toContain(
      `test('${wrapTwin?.name}', () => assert.deepStrictEqual(wrap('a b'), ['a', 'x']));`,
    );
    expect(out).toContain('  expect(n).toBe(37);');
  });

  it("twins a file's only test twice, and at most three of many", () => {
    const one = pythonTwins('def test_a():\n    assert f() == 1\n', free);
    expect(one.twins.map((t) => t.of)).toEqual(['test_a', 'test_a']);
    expect(new Set(one.twins.map((t) => t.name)).size).toBe(2);
    const many = Array.from({ length: 6 }, (_, i) => `def test_${i}():\n    assert f(${i}) == ${i}\n`).join(
      '\n',
    );
    expect(pythonTwins(many, free).twins).toHaveLength(3);
  });

  it('puts a block before one of the top-level tests or at the end', () => {
    const text = 'import x\n\n\ndef test_a():\n    pass\n\n\n@mark\ndef test_b():\n    pass\n';
    const seen = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const out = insertAmongTests(text, '\nBLOCK\n', true);
      seen.add(out.split('\n').indexOf('BLOCK'));
      const kept = (t: string) => t.split('\n').filter((l) => l !== '' && l !== 'BLOCK');
      expect(kept(out)).toEqual(kept(text));
      // Never between a decorator and its function.
      expect(out).not.toContain('@mark\nBLOCK');
    }
    expect(seen.size).toBe(3);
  });
});
