// Bundle src/index.js into dist/agent-ui.js and copy it into the Python package,
// which serves it with the interface at / (no Node at run time).
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';
import { shipped } from '../src/strings.js';
import { options, outfile, packaged, packagedStrings, stringsJson } from './bundle.js';

await build(options);
mkdirSync(dirname(packaged), { recursive: true });
copyFileSync(outfile, packaged);
writeFileSync(packagedStrings, stringsJson(shipped));
console.log(`built ${outfile}\ncopied to ${packaged}\nstrings in ${packagedStrings}`);
