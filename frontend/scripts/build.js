// Bundle src/index.js into dist/agent-ui.js and copy it into the Python package,
// which serves it with the interface at / (no Node at run time).
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';
import { options, outfile, packaged } from './bundle.js';

await build(options);
mkdirSync(dirname(packaged), { recursive: true });
copyFileSync(outfile, packaged);
console.log(`built ${outfile}\ncopied to ${packaged}`);
