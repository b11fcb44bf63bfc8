import { describe, expect, it } from 'vitest';
import { collisionKey } from './entry-names.js';

describe('collisionKey', () => {
  it('folds case fully, compatibility forms and invisible characters', () => {
    const pairs: [string, string][] = [
      ['Registry.yaml', 'registry.yaml'],
      ['regiſtry.yaml', 'registry.yaml'],
      ['regıstry.yaml', 'registry.yaml'],
      ['straße.txt', 'STRASSE.txt'],
      ['regis\u200btry.yaml', 'registry.yaml'],
      ['re\u00adgistry.yaml', 'registry.yaml'],
      ['\uff52egistry.yaml', 'registry.yaml'],
      ['ﬁle', 'file'],
      ['cafe\u0301', 'café'],
    ];
    for (const [a, b] of pairs) expect(collisionKey(a), `${a} / ${b}`).toBe(collisionKey(b));
  });

  it('keeps names apart that differ in more than that', () => {
    expect(collisionKey('a.txt')).not.toBe(collisionKey('b.txt'));
    expect(collisionKey('cafe')).not.toBe(collisionKey('café'));
  });
});
