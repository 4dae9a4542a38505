// How the bundle is built: shared by the build and by the test that checks the
// committed copy is a fresh build of src/.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const outfile = resolve(root, 'dist/agent-ui.js');
/** Where the Python package serves it from, with the interface at /. */
export const packaged = resolve(root, '../shared/stalwart_agents/static/agent-ui.js');
/** The shipped strings as JSON, for the server's own pages and messages (the link page, a channel's card). */
export const packagedStrings = resolve(root, '../shared/stalwart_agents/static/strings.json');

/** The shipped strings as the package keeps them: one key a line, so a change reads as a change. @param {object} shipped */
export function stringsJson(shipped) {
  return `${JSON.stringify(shipped, null, 1)}\n`;
}

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
