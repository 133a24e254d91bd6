// Trunk's post-build hook (Trunk.toml): minify the app's JS glue, the ES module wasm-bindgen writes for
// the `cabrito` bin, which Trunk's own JS minifier cannot parse (it stops at `export default` and keeps the
// file as it is). It is part of the first download (tests/first_download.rs). Release builds only.
//
// Trunk has already written index.html with the glue's Subresource Integrity hash (`integrity=sha384-…`
// on its modulepreload link), so the hash is replaced with the minified file's; a browser would refuse
// the file otherwise. Anything unexpected (no glue, a hash not found, esbuild failing) stops the build
// with a message: a build that silently kept a stale hash would load no app at all.
//
//   TRUNK_STAGING_DIR=dist TRUNK_PROFILE=release node scripts/minify_glue.mjs

import { transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const fail = (msg) => {
  console.error(`minify_glue.mjs: ${msg}`);
  process.exit(1);
};
if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);
const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) fail('TRUNK_STAGING_DIR is not set (run it as a Trunk hook, or set it to the built folder)');

const sri = (bytes) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
const htmlPath = join(dir, 'index.html');
let html = readFileSync(htmlPath, 'utf8');
// The app's glue: Trunk names it after the bin with a content hash (`cabrito-<hex>.js`).
const glues = readdirSync(dir).filter((f) => /^cabrito-[0-9a-f]+\.js$/.test(f));
if (glues.length !== 1) fail(`expected one cabrito-<hash>.js in ${dir}, found ${JSON.stringify(glues)}`);
const file = join(dir, glues[0]);
const source = readFileSync(file);
if (!html.includes(glues[0])) fail(`index.html does not load ${glues[0]}`);
const { code } = await transform(source.toString('utf8'), { minify: true, format: 'esm', target: 'es2020' });
const before = sri(source);
const after = sri(Buffer.from(code));
if (html.includes('integrity=')) {
  if (!html.includes(before)) fail(`index.html has no integrity hash for ${glues[0]} (${before})`);
  html = html.split(before).join(after);
  writeFileSync(htmlPath, html);
}
writeFileSync(file, code);
console.log(`minify_glue.mjs: ${glues[0]} ${source.length} B -> ${Buffer.byteLength(code)} B`);
