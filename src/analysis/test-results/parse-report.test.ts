import { describe, expect, it } from 'vitest';
import {
  parseCargo,
  parseGoJson,
  parseJestJson,
  parseJunit,
  parseTap,
  parseUnittest,
} from './parse-report.js';

describe('parseJunit', () => {
  it("reads node's junit reporter: suites, failures, skips, entities", () => {
    const xml = `<?xml version="1.0"?><testsuites>
      <testcase name="one" time="0.1" classname="test"/>
      <testcase name="two &amp; &lt;more&gt;" classname="test" failure="1 == 2"><failure message="x">boom</failure></testcase>
      <testcase name="three" classname="test"><skipped type="skipped" message="true"/></testcase>
      <testsuite name="grp" tests="1"><testcase name="inner" classname="test"/></testsuite>
    </testsuites>`;
    expect(parseJunit(xml)).toEqual([
      { name: 'test > one', status: 'passed' },
      { name: 'test > two & <more>', status: 'failed' },
      { name: 'test > three', status: 'skipped' },
      { name: 'test > grp > inner', status: 'passed' },
    ]);
  });

  it("reads pytest's --junitxml, an <error> being a failure", () => {
    const xml = `<testsuites><testsuite name="pytest" errors="1">
      <testcase classname="tests.test_a" name="test_ok" time="0.001" />
      <testcase classname="tests.test_a" name="test_err"><error message="fixture">E</error></testcase>
    </testsuite></testsuites>`;
    expect(parseJunit(xml)).toEqual([
      { name: 'tests.test_a > pytest > test_ok', status: 'passed' },
      { name: 'tests.test_a > pytest > test_err', status: 'failed' },
    ]);
  });

  it('finds nothing in what is not a report', () => {
    expect(parseJunit('all good, trust me')).toEqual([]);
  });
});

describe('parseTap', () => {
  it('reads ok, not ok and directives, naming subtests under their parents', () => {
    const tap = [
      'TAP version 13',
      '# Subtest: grp',
      '    # Subtest: inner',
      '    ok 1 - inner',
      '    not ok 2 - broken # TODO later',
      '    1..2',
      'ok 1 - grp',
      'not ok 2 - top',
      'ok 3 - skipped one # SKIP no network',
      'ok 4 plain',
      '1..4',
    ].join('\n');
    expect(parseTap(tap)).toEqual([
      { name: 'grp > inner', status: 'passed' },
      { name: 'grp > broken', status: 'skipped' },
      { name: 'grp', status: 'passed' },
      { name: 'top', status: 'failed' },
      { name: 'skipped one', status: 'skipped' },
      { name: 'plain', status: 'passed' },
    ]);
  });
});

describe('parseGoJson', () => {
  it('keeps the last verdict of each named test, not package events', () => {
    const lines = [
      '{"Action":"run","Package":"m/p","Test":"TestA"}',
      '{"Action":"pass","Package":"m/p","Test":"TestA"}',
      '{"Action":"fail","Package":"m/p","Test":"TestB/sub"}',
      '{"Action":"skip","Package":"m/p","Test":"TestC"}',
      '{"Action":"pass","Package":"m/p"}',
      'not json',
    ].join('\n');
    expect(parseGoJson(lines)).toEqual([
      { name: 'm/p TestA', status: 'passed' },
      { name: 'm/p TestB/sub', status: 'failed' },
      { name: 'm/p TestC', status: 'skipped' },
    ]);
  });
});

describe('parseCargo', () => {
  it('reads libtest lines', () => {
    const out = 'running 3 tests\ntest a::one ... ok\ntest a::two ... FAILED\ntest a::three ... ignored\n';
    expect(parseCargo(out)).toEqual([
      { name: 'a::one', status: 'passed' },
      { name: 'a::two', status: 'failed' },
      { name: 'a::three', status: 'skipped' },
    ]);
  });
});

describe('parseUnittest', () => {
  it('reads -v lines of python 3.11+ and older', () => {
    const err = [
      'test_a (test_stock.InventoryTest.test_a) ... ok',
      'test_b (test_stock.InventoryTest) ... FAIL',
      "test_c (test_stock.InventoryTest.test_c) ... skipped 'slow'",
      'test_d (test_stock.InventoryTest.test_d) ... ERROR',
    ].join('\n');
    expect(parseUnittest(err)).toEqual([
      { name: 'test_stock.InventoryTest.test_a', status: 'passed' },
      { name: 'test_stock.InventoryTest.test_b', status: 'failed' },
      { name: 'test_stock.InventoryTest.test_c', status: 'skipped' },
      { name: 'test_stock.InventoryTest.test_d', status: 'failed' },
    ]);
  });
});

describe('parseJestJson', () => {
  it('reads assertion results; a broken report is no tests', () => {
    const report = JSON.stringify({
      testResults: [
        {
          assertionResults: [
            { fullName: 'a b', status: 'passed' },
            { fullName: 'a c', status: 'pending' },
          ],
        },
      ],
    });
    expect(parseJestJson(report)).toEqual([
      { name: 'a b', status: 'passed' },
      { name: 'a c', status: 'skipped' },
    ]);
    expect(parseJestJson('{')).toEqual([]);
  });
});
