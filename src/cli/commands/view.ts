import { errorMessage, InputError, SetupError } from '../../errors.js';
import { shutdownSignal } from '../../exec/shutdown.js';
import { VIEW_HOST, ViewServer } from '../../view/server.js';
import { wholeNumber } from '../flags.js';
import { type CliIO, type GlobalOptions, oneLine, outputDir } from '../io.js';

export type ViewOptions = GlobalOptions & { port?: string | number; host?: string };

/** 0 asks the system for a free port. */
const PORT = { fallback: 0, min: 0, max: 65535, fix: 'give a port from 1 to 65535, or leave it out' };

/** Serves until SIGINT/SIGTERM, then closes every stream, watcher and connection and returns 0. */
export async function viewCommand(
  io: CliIO,
  opts: ViewOptions,
  stop: AbortSignal = shutdownSignal(),
): Promise<number> {
  if (opts.host !== undefined && opts.host !== VIEW_HOST && opts.host !== 'localhost') {
    throw new InputError(
      `--host ${opts.host}: agentguard view listens on ${VIEW_HOST} only, since its pages show the evidence of this machine's runs. Fix: drop --host, or forward the port over SSH (ssh -L).`,
    );
  }
  const port = wholeNumber('--port', opts.port, PORT);
  let server: ViewServer;
  try {
    server = await ViewServer.start({
      outputDir: outputDir(opts),
      port,
      log: (line) => io.err(oneLine(line)),
    });
  } catch (err) {
    throw new SetupError(
      `cannot listen on ${VIEW_HOST}:${port}: ${errorMessage(err)}. Fix: choose another --port, or leave it out for any free port.`,
    );
  }
  io.out(`agentguard view: ${outputDir(opts)}`);
  io.out(server.url);
  io.err('Press Ctrl-C to stop.');
  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    else stop.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.stop();
  io.err('agentguard view: stopped');
  return 0;
}
