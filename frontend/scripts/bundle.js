// How the bundle is built: shared by the build and by the test that checks the
// committed copy is a fresh build of src/.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const outfile = resolve(root, 'dist/agent-ui.js');
/** Where the Python package serves it from, with the interface at /. */
export const packaged = resolve(root, '../shared/stalwart_agents/static/agent-ui.js');

/** @type {import('esbuild').BuildOptions} */
export const options = {
  entryPoints: [resolve(root, 'src/index.js')],
  bundle: true,
  format: 'esm',
  minify: true,
  target: 'es2021',
  legalComments: 'eof',
  outfile,
};
