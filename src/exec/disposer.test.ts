import { describe, expect, it } from 'vitest';
import { Disposer } from './disposer.js';

describe('Disposer', () => {
  it('releases in reverse order of acquisition, each once, even when one fails', async () => {
    const order: string[] = [];
    const d = new Disposer();
    d.add('proxy', () => order.push('proxy'));
    const sandbox = d.add('sandbox', () => order.push('sandbox'));
    d.add('tracer', () => {
      order.push('tracer');
      throw new Error('cgroup busy');
    });
    d.add('bridge', async () => {
      await new Promise((r) => setTimeout(r, 5));
      order.push('bridge');
    });
    await sandbox.release();
    expect(d.held).toEqual(['proxy', 'tracer', 'bridge']);
    const problems = await d.dispose();
    await d.dispose();
    expect(order).toEqual(['sandbox', 'bridge', 'tracer', 'proxy']);
    expect(problems).toEqual(['could not release tracer: cgroup busy']);
    expect(d.held).toEqual([]);
  });

  it('a resource acquired while disposing is released at once', async () => {
    const d = new Disposer();
    let released = false;
    d.add('slow', () => new Promise((r) => setTimeout(r, 20)));
    const disposing = d.dispose();
    d.add('late tracer', () => {
      released = true;
    });
    await disposing;
    expect(released).toBe(true);
  });
});
