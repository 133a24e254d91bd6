// Trunk's post-build hook (Trunk.toml): the in-page grader. Bundles www/pygrade/pygrade.mjs (with
// Pyodide's loader, from package-lock.json) into dist/pygrade.js, a module Web Worker, and copies what
// it loads at run time into dist/pyodide/: Pyodide's wasm, standard library and lock file, and the
// grading harnesses themselves (crates/native/src/harness.py and merge_harness.py, the files the
// native grader runs). Nothing here
// is linked from index.html: the app starts the worker only when a user asks for hidden tests without
// a grading worker (src/web/inpage.rs). Fails with a message when pyodide is missing (`npm ci`).
//
//   TRUNK_STAGING_DIR=dist TRUNK_PROFILE=release node scripts/build_pygrade.mjs

import { build } from 'esbuild';
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('build_pygrade.mjs: TRUNK_STAGING_DIR is not set (run it as a Trunk hook, or set it to the built folder)');
  process.exit(1);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pyodide = join(root, 'node_modules/pyodide');
// What Pyodide fetches when it starts (its loader is bundled into pygrade.js).
const FILES = ['pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];
try {
  const out = join(dir, 'pyodide');
  mkdirSync(out, { recursive: true });
  let bytes = 0;
  for (const f of FILES) {
    copyFileSync(join(pyodide, f), join(out, f));
    bytes += statSync(join(out, f)).size;
  }
  for (const h of ['harness.py', 'merge_harness.py']) {
    copyFileSync(join(root, 'crates/native/src/', h), join(out, h));
  }
  const r = await build({
    entryPoints: [join(root, 'www/pygrade/pygrade.mjs')],
    outfile: join(dir, 'pygrade.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['node:*', 'ws'],
    define: { PYODIDE_BYTES: String(bytes) },
    minify: process.env.TRUNK_PROFILE === 'release',
    legalComments: 'none',
    metafile: true,
    logLevel: 'error',
  });
  const js = Object.values(r.metafile.outputs)[0];
  console.log(`build_pygrade.mjs: pygrade.js ${js.bytes} B, pyodide/ ${bytes} B`);
} catch (e) {
  console.error(`build_pygrade.mjs: the in-page grader could not be built: ${e.message}`);
  process.exit(1);
}
