import { describe, expect, it } from 'vitest';
import { route } from './routes.js';

describe('route', () => {
  it('maps the site layout and the live pages', () => {
    expect(route('GET', '/')).toEqual({ kind: 'index' });
    expect(route('HEAD', '/index.html')).toEqual({ kind: 'index' });
    expect(route('GET', '/runs/20261203-192253-0efa27a0.html')).toEqual({
      kind: 'run',
      file: '20261203-192253-0efa27a0.html',
    });
    expect(route('GET', '/batches/id-0123456789abcdef01234567.html')).toEqual({
      kind: 'batch',
      file: 'id-0123456789abcdef01234567.html',
    });
    expect(route('GET', '/live/20261203-192253-0efa27a0')).toEqual({
      kind: 'live',
      runId: '20261203-192253-0efa27a0',
    });
    expect(route('GET', '/live/20261203-192253-0efa27a0/events')).toEqual({
      kind: 'live-events',
      runId: '20261203-192253-0efa27a0',
    });
  });

  it('refuses every way out of the folder, encoded or not', () => {
    for (const p of [
      '/runs/../history.db',
      '/runs/..%2F..%2Fetc%2Fpasswd.html',
      '/runs/%2e%2e/x.html',
      '/runs/.hidden.html',
      '/runs/A.html',
      '/runs/x.json',
      '/runs/x.html/more',
      '/live/..',
      '/live/%2e%2e/events',
      '/live/.agentguard/events',
      '/live/a%2Fb',
      '/live/a%5Cb',
      '/live/a%00b',
      '/live/%E0%A4%A',
      '/live/x/other',
      '/history.db',
      'no-slash',
    ]) {
      expect(route('GET', p), p).toEqual({ kind: 'not-found' });
    }
  });

  it('only reads', () => {
    for (const m of ['POST', 'PUT', 'DELETE', 'OPTIONS', undefined]) {
      expect(route(m, '/')).toEqual({ kind: 'bad-method' });
    }
  });
});
