// Publish ready: apply the publishing checklist to package.json.
import { readFileSync, writeFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
pkg.files = ['src'];
pkg.engines = { node: '>=18' };
pkg.scripts = { ...pkg.scripts, lint: 'node --check src/pad.js' };
writeFileSync('package.json', `${JSON.stringify(pkg, null, 2)}\n`);
console.log('publish-ready: files, engines and lint script set');
