import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { options, outfile, packaged, packagedStrings, root, stringsJson } from '../scripts/bundle.js';
import { shipped } from '../src/strings.js';

// 25 KB until changing a call before approving it, and batches in the inbox, took the interface to its edge;
// 26 KB until a seventh element, a thread's decision history, came in.
const LIMIT = 28 * 1024;

test('the bundle is built (npm run build)', () => {
  assert.ok(existsSync(outfile), 'dist/agent-ui.js is missing: run npm run build');
});

test('the gzipped bundle is at most 28 KB', () => {
  const size = gzipSync(readFileSync(outfile)).length;
  assert.ok(size <= LIMIT, `gzipped bundle is ${size} bytes, over ${LIMIT}`);
});

test('the Python package serves exactly the built bundle', () => {
  assert.ok(readFileSync(outfile).equals(readFileSync(packaged)), 'shared/stalwart_agents/static/agent-ui.js differs: run npm run build');
});

test('the Python package says exactly the shipped strings (npm run build)', () => {
  assert.equal(readFileSync(packagedStrings, 'utf8'), stringsJson(shipped), 'static/strings.json differs: run npm run build');
});

test('the bundle the Python package serves is a fresh build of src/', async () => {
  const fresh = await build({ ...options, write: false });
  assert.ok(Buffer.from(fresh.outputFiles[0].contents).equals(readFileSync(packaged)), 'src/ changed since the last build: run npm run build');
});

test('custom-elements.json is a fresh analysis of src/', () => {
  // cem writes under its working directory, whatever --outdir says, and (unless told not to) into package.json.
  const out = mkdtempSync(join(root, 'node_modules', '.cem-'));
  try {
    const config = join(out, 'cem.config.mjs');
    const project = pathToFileURL(join(root, 'custom-elements-manifest.config.mjs')).href;
    writeFileSync(config, `import project from ${JSON.stringify(project)};\nexport default { ...project, packagejson: false };\n`);
    const cli = join(root, 'node_modules/@custom-elements-manifest/analyzer/cem.js');
    const args = ['analyze', '--litelement', '--globs', 'src/**/*.js', '--outdir', relative(root, out), '--config', config, '--quiet'];
    execFileSync(process.execPath, [cli, ...args], { cwd: root, stdio: 'pipe' });
    const fresh = JSON.parse(readFileSync(join(out, 'custom-elements.json'), 'utf8'));
    const manifest = JSON.parse(readFileSync(join(root, 'custom-elements.json'), 'utf8'));
    assert.deepEqual(manifest, fresh, 'src/ changed since the last manifest: run npm run manifest');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('the bundle names no other host, sets no inline style and builds no code from strings', () => {
  const source = readFileSync(outfile, 'utf8');
  assert.doesNotMatch(source, /(?:https?:)?\/\/[a-z0-9-]+\.[a-z]/i, 'an address on another host');
  assert.doesNotMatch(source, /\bstyle=/, 'an inline style attribute (the CSP has no unsafe-inline)');
  assert.doesNotMatch(source, /\beval\(|new Function\(/, 'code built from strings (the CSP has no unsafe-eval)');
});
