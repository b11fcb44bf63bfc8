// The CLI's entry bundled after tsc (`npm run build`): a run loads ~70 files instead of ~470
// (each ES module costs Node a resolve, a read and a link; ~200 ms CPU of a trivial run). The
// commands stay separate chunks, loaded when they run. tsc's dist/ stays whole beside it: the
// other entry points (the sandbox bridge, the mock agent, the build's own scripts) run from it.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const out = path.join(dist, 'cli');
const CHUNK = /^chunk-.*\.js(\.map)?$/;

/**
 * A module's `import.meta.url` still names its own file in dist/: the files it finds beside itself
 * (the parsed rules, the bridge's script, the microvm's guest files) are where tsc put them.
 */
const ownUrl = {
  name: 'own-import-meta-url',
  transform(code, id) {
    if (!code.includes('import.meta.url') || !id.startsWith(dist + path.sep)) return null;
    const rel = path.relative(out, id).split(path.sep).join('/');
    return {
      code: code.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`),
    };
  },
};

const entry = path.join(out, 'main.js');
if (/from "\.\/chunk-/.test(readFileSync(entry, 'utf8'))) {
  console.error(`${entry} is bundled already: tsc writes the entry this bundles. Fix: npm run build.`);
  process.exit(2);
}
for (const f of readdirSync(out)) if (CHUNK.test(f)) rmSync(path.join(out, f));
await build({
  input: { main: entry },
  platform: 'node',
  // Native addons and what only some commands load stay packages of node_modules.
  external: [/^node:/, 'better-sqlite3', 'bullmq', 'ioredis', 'playwright-core'],
  plugins: [ownUrl],
  output: {
    dir: out,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunk-[name]-[hash].js',
    // Which modules each file holds (stack traces; what the CLI loads, test/e2e/help.test.ts); not packed.
    sourcemap: true,
  },
  logLevel: 'warn',
  // The rewrite keeps every line where it was, so the maps still name the right module and line.
  onLog(level, log, handler) {
    if (log.code !== 'SOURCEMAP_BROKEN') handler(level, log);
  },
});
