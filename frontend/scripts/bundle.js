// How the bundle is built: shared by the build and by the test that checks the
// committed copy is a fresh build of src/.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
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

/**
 * What esbuild's minifier leaves as written, made smaller: it keeps template literals whole, so the styles' CSS kept
 * its comments and indentation, and the templates their indentation.  In a `*.styles.js` file, each `css` literal
 * (none has a `${...}`) loses its comments and has one space for every run of whitespace.  In every other source,
 * each run of whitespace with a line break in the static text of an `html` literal becomes one line break, which
 * HTML renders alike: the templates put no literal text in the elements that keep whitespace (the log's turns and
 * replies, a result's `<pre>`, a `<textarea>`), only bindings.
 * @type {import('esbuild').Plugin}
 */
export const templateLiterals = {
  name: 'template-literals',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async ({ path }) => {
      if (!path.startsWith(resolve(root, 'src'))) return undefined;
      const source = await readFile(path, 'utf8');
      if (path.endsWith('.styles.js')) {
        const contents = source.replace(/css`([^`$]*)`/g, (_, text) => `css\`${text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\s+/g, ' ').trim()}\``);
        return { contents, loader: 'js' };
      }
      return { contents: squeezeHtml(source, path), loader: 'js' };
    });
  },
};

/** `source` with each whitespace run that holds a line break, in an `html` literal's static text, one line break. @param {string} source @param {string} path */
export function squeezeHtml(source, path) {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true);
  /** @type {Array<[number, number]>} */
  const spans = [];
  /** @param {import('typescript').Node} node */
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && node.tag.text === 'html') {
      const template = node.template;
      const parts = ts.isNoSubstitutionTemplateLiteral(template) ? [template] : [template.head, ...template.templateSpans.map((span) => span.literal)];
      for (const part of parts) spans.push([part.getStart(file), part.getEnd()]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let out = '';
  let at = 0;
  for (const [start, end] of spans.sort((a, b) => a[0] - b[0])) {
    out += source.slice(at, start) + source.slice(start, end).replace(/[ \t]*\n\s*/g, '\n');
    at = end;
  }
  return out + source.slice(at);
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
  plugins: [templateLiterals],
};
