// Trunk's post-build hook (Trunk.toml): bundle the solution editor (www/editor/editor.mjs, CodeMirror 6
// from package-lock.json) into one script, dist/editor.js, which the app fetches only when a reader opens
// "Your solution" (src/web/editor.rs); index.html does not link it, so the first download stays the app.
// Minified in release builds. Fails with a message when esbuild or a CodeMirror package is missing
// (run `npm ci` first: scripts/setup.sh does).
//
//   TRUNK_STAGING_DIR=dist TRUNK_PROFILE=release node scripts/build_editor.mjs

import { build } from 'esbuild';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('build_editor.mjs: TRUNK_STAGING_DIR is not set (run it as a Trunk hook, or set it to the built folder)');
  process.exit(1);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
try {
  const r = await build({
    entryPoints: [join(root, 'www/editor/editor.mjs')],
    outfile: join(dir, 'editor.js'),
    bundle: true,
    format: 'iife',
    target: 'es2020',
    minify: process.env.TRUNK_PROFILE === 'release',
    legalComments: 'none',
    metafile: true,
    logLevel: 'error',
  });
  const out = Object.values(r.metafile.outputs)[0];
  console.log(`build_editor.mjs: editor.js ${out.bytes} B`);
} catch (e) {
  console.error(`build_editor.mjs: the editor could not be bundled: ${e.message}`);
  process.exit(1);
}
