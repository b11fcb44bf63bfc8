import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTENT_SECURITY_POLICY } from '../reports/html/page.js';
import { siteCsp } from '../reports/site/site-page.js';
import { siteScriptSource } from '../reports/site/site-script.js';
import { liveCsp, renderLivePage } from './live-page.js';
import { LiveStream } from './live-stream.js';
import { type Route, route } from './routes.js';
import { newToken, splitTokenPath, tokenMatches } from './token.js';
import { type Page, ViewSite } from './view-site.js';

/** The only address the viewer listens on: the pages show evidence of the machine's runs. */
export const VIEW_HOST = '127.0.0.1';

export type ViewServerOptions = {
  outputDir: string;
  /** 0: any free port. */
  port: number;
  /** How often a live stream looks at its files when no change notification came. */
  pollMs?: number;
  log?: (line: string) => void;
  /** Test seam: a fixed token instead of a random one. */
  token?: string;
  now?: () => Date;
};

/** Each live page holds one stream (two files tailed, two watchers); more than this is a runaway. */
const MAX_STREAMS = 64;

/** Headers on every answer: nothing cached, sniffed, framed or referred. */
const BASE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

/**
 * `agentguard view`: the runs of an output folder over HTTP on 127.0.0.1. Every request must carry
 * the token as the first segment of its path (`/<token>/runs/…`; every link between the pages is
 * relative, so it stays there) and a Host header naming this very address, which shuts out other
 * users' pages and DNS rebinding. No cookie holds it: cookies ignore ports, so a cookie for
 * 127.0.0.1 would go to every other HTTP server on this machine.
 */
export class ViewServer {
  private readonly streams = new Set<LiveStream>();
  private readonly site: ViewSite;
  private readonly now: () => Date;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly token: string,
    private readonly opts: ViewServerOptions,
  ) {
    this.site = new ViewSite(opts.outputDir);
    this.now = opts.now ?? (() => new Date());
  }

  static start(opts: ViewServerOptions): Promise<ViewServer> {
    const token = opts.token ?? newToken();
    const server = createServer();
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: VIEW_HOST, port: opts.port, exclusive: true }, () => {
        server.off('error', reject);
        const port = (server.address() as AddressInfo).port;
        const view = new ViewServer(server, port, token, opts);
        server.on('request', (req, res) => view.handle(req, res));
        resolve(view);
      });
    });
  }

  /** The address to open, token included. */
  get url(): string {
    return `http://${VIEW_HOST}:${this.port}/${this.token}/`;
  }

  /** Ends every live stream (their watchers and timers), then the server and its connections. */
  async stop(): Promise<void> {
    for (const s of [...this.streams]) s.stop();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      this.answer(req, res);
    } catch (err) {
      // The address carries the token: the log names the page without it.
      const page = splitTokenPath(new URL(req.url ?? '/', 'http://x').pathname)?.rest || '/';
      this.opts.log?.(`view: ${req.method} ${page}: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent)
        plain(res, 500, 'the viewer could not read this page; see the terminal it runs in');
      else res.end();
    }
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const host = req.headers.host;
    if (host !== `${VIEW_HOST}:${this.port}` && host !== `localhost:${this.port}`) {
      plain(res, 403, 'forbidden: the viewer answers only requests addressed to 127.0.0.1');
      return;
    }
    const url = new URL(req.url ?? '/', `http://${VIEW_HOST}:${this.port}`);
    const split = splitTokenPath(url.pathname);
    if (split === null || !tokenMatches(split.presented, this.token)) {
      plain(res, 403, 'forbidden: open the address agentguard view printed (it carries the token)');
      return;
    }
    if (split.rest === '' && (req.method === 'GET' || req.method === 'HEAD')) {
      // `/<token>` alone: the pages' relative links need the folder form.
      res.writeHead(308, { ...BASE_HEADERS, Location: `/${this.token}/` });
      res.end();
      return;
    }
    this.serve(route(req.method, split.rest), req.method === 'HEAD', res);
  }

  private serve(target: Route, head: boolean, res: ServerResponse): void {
    switch (target.kind) {
      case 'bad-method':
        res.setHeader('Allow', 'GET, HEAD');
        plain(res, 405, 'the viewer only reads: GET or HEAD');
        return;
      case 'not-found':
        plain(res, 404, 'not found');
        return;
      case 'index':
        html(res, this.site.index(this.now()), siteCsp([siteScriptSource()]));
        return;
      case 'run':
        page(res, this.site.runPage(target.file), CONTENT_SECURITY_POLICY);
        return;
      case 'batch':
        page(res, this.site.batchPage(target.file), siteCsp());
        return;
      case 'live':
        if (this.site.runDir(target.runId) === null) {
          plain(res, 404, `no run folder ${target.runId}`);
          return;
        }
        html(res, renderLivePage(target.runId), liveCsp());
        return;
      case 'live-events':
        this.events(target.runId, head, res);
        return;
    }
  }

  private events(runId: string, head: boolean, res: ServerResponse): void {
    const runDir = this.site.runDir(runId);
    if (runDir === null) {
      plain(res, 404, `no run folder ${runId}`);
      return;
    }
    if (this.streams.size >= MAX_STREAMS) {
      plain(res, 503, `the viewer already serves ${MAX_STREAMS} live streams; close a live page`);
      return;
    }
    res.writeHead(200, {
      ...BASE_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      Connection: 'keep-alive',
    });
    if (head) {
      res.end();
      return;
    }
    // The run's canary tokens exist once its window opened: until then the redactor is rebuilt.
    let redaction = this.site.redactorOf(runDir);
    const stream: LiveStream = new LiveStream(res, {
      runDir,
      redactor: () => {
        if (!redaction.complete) redaction = this.site.redactorOf(runDir);
        return redaction.redactor;
      },
      reportPage: () => this.site.reportPageOf(runId),
      pollMs: this.opts.pollMs ?? 500,
      onClose: () => this.streams.delete(stream),
    });
    this.streams.add(stream);
    stream.start();
  }
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    ...BASE_HEADERS,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Security-Policy': "default-src 'none'",
  });
  res.end(`${text}\n`);
}

function html(res: ServerResponse, body: string, csp: string): void {
  res.writeHead(200, {
    ...BASE_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `${csp}; frame-ancestors 'none'`,
  });
  res.end(body);
}

function page(res: ServerResponse, p: Page, csp: string): void {
  if (p.ok) html(res, p.html, csp);
  else plain(res, p.status, p.text);
}
