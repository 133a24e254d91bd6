// Lighthouse (npm `lighthouse`, Debian's Chromium) over the playground's views, against a running
// `cabrito serve`. scripts/lighthouse.sh starts the server and calls this; see there for the modes.
//
//   node scripts/lighthouse.mjs --base http://127.0.0.1:PORT/ [--bench] [--json FILE]
//                               [--only VIEW,VIEW] [--skip VIEW,VIEW] [--preset desktop|mobile]
//                               [--repeat K] [--lhr DIR] [--cpu-slowdown X]
//
// Test mode (the default) fails (exit 1) when a view scores under the floors for accessibility and
// best practices, in either theme; performance is printed, never checked (scores are noisy on a
// shared machine). Bench mode runs the gallery and task pages at n = 25, 200, 1,000 and 2,000, desktop
// and mobile, and prints a Markdown table: performance, largest contentful paint, total blocking
// time and the app's own `cabrito-task-rendered` mark. `--only` keeps the named views (`gallery`,
// `task n=25`, ...), `--skip` leaves them out, `--preset` one preset, and `--repeat K` runs each K times and reports the median
// (of the score, LCP, TBT and the mark, each on its own); `--lhr DIR` keeps each run's full report.
// Each run also reports the host's CPU as Lighthouse measures it (`benchmarkIndex`): the default 4x CPU
// slowdown assumes a high-end desktop (1,500-2,000); on a slower host the same page scores lower.
// `--cpu-slowdown X` sets the mobile preset's multiplier (Lighthouse's docs/throttling.md says how to pick it).

import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import * as chromeLauncher from 'chrome-launcher';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { chromiumFlags } from './chromium_flags.mjs';

const FLOORS = { accessibility: 100, 'best-practices': 100 };

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  // A flag given without its value is refused, not taken as absent.
  if (i + 1 >= args.length || args[i + 1].startsWith('--')) {
    console.error(`lighthouse.mjs: ${name} needs a value`);
    process.exit(2);
  }
  return args[i + 1];
};
const base = opt('--base');
if (!base) {
  console.error('lighthouse.mjs: --base URL is required');
  process.exit(2);
}
const bench = args.includes('--bench');
const only = opt('--only') ? opt('--only').split(',') : null;
const skip = opt('--skip') ? opt('--skip').split(',') : [];
const onlyPreset = opt('--preset');
const repeat = Number(opt('--repeat') || 1);
const slowdown = opt('--cpu-slowdown') === undefined ? undefined : Number(opt('--cpu-slowdown'));
const usage = (msg) => {
  console.error(`lighthouse.mjs: ${msg}`);
  process.exit(2);
};
if (!Number.isInteger(repeat) || repeat < 1 || repeat > 50) usage(`--repeat must be a whole number from 1 to 50, not '${opt('--repeat')}'`);
if (slowdown !== undefined && !(slowdown >= 1 && slowdown <= 20)) usage(`--cpu-slowdown must be a number from 1 to 20, not '${opt('--cpu-slowdown')}'`);
if (onlyPreset !== undefined && !['desktop', 'mobile'].includes(onlyPreset)) usage(`--preset must be desktop or mobile, not '${onlyPreset}'`);
// mkdir -p (not Node's `recursive: true`, which spins for ever under /proc).
const makeDir = (d) => {
  try {
    mkdirSync(d);
  } catch (e) {
    if (e.code === 'EEXIST' && statSync(d).isDirectory()) return;
    if (e.code !== 'ENOENT' || dirname(d) === d) throw e;
    makeDir(dirname(d));
    mkdirSync(d);
  }
};
if (opt('--lhr') !== undefined) {
  try {
    makeDir(opt('--lhr'));
  } catch (e) {
    usage(`--lhr: cannot make the folder '${opt('--lhr')}' for the reports: ${e.message}`);
  }
}
const median = (xs) => {
  const v = xs.filter((x) => x != null).sort((a, b) => a - b);
  return v.length ? v[Math.floor((v.length - 1) / 2)] : null;
};
const chromePath = process.env.CABRITO_CHROMIUM || '/usr/bin/chromium';

const task = (n) => `#/task?v=1&kind=add_parameter&n=${n}&seed=3`;
// [name, fragment, presets, themes, categories]
const ALL = ['performance', 'accessibility', 'best-practices'];
const CHECK = ['accessibility', 'best-practices'];
const allRuns = bench
  ? [
      ['gallery', '#/', ['desktop', 'mobile'], ['light'], ['performance']],
      ...[25, 200, 1000, 2000].map((n) => [`task n=${n}`, task(n), ['desktop', 'mobile'], ['light'], ['performance']]),
    ]
  : [
      ['gallery', '#/', ['desktop', 'mobile'], ['light'], ALL],
      ['task n=25', task(25), ['desktop', 'mobile'], ['light'], ALL],
      ['gallery', '#/', ['desktop'], ['dark'], CHECK],
      ['task n=25', task(25), ['desktop'], ['dark'], CHECK],
      ['task runtime', '#/task?v=1&kind=dead_code&axis=runtime&n=10&seed=3', ['desktop'], ['light', 'dark'], CHECK],
      ['task instr.', '#/task?v=1&kind=add_parameter&axis=instructions&n=10&seed=3', ['desktop'], ['light', 'dark'], CHECK],
      // A big task: the windowed code and the clustered call graph (web/bigraph.rs).
      ['task n=1000', task(1000), ['desktop'], ['light', 'dark'], CHECK],
      ['scale', '#/scale?v=1&kind=add_parameter', ['desktop'], ['light', 'dark'], CHECK],
      ['results', '#/results', ['desktop'], ['light', 'dark'], CHECK],
      ['traces', '#/traces', ['desktop'], ['light', 'dark'], CHECK],
      ['agents', '#/agents?v=1&kind=add_parameter&n=10&seed=3', ['desktop'], ['light', 'dark'], CHECK],
    ];
const runs = allRuns
  .filter(([name]) => (!only || only.includes(name)) && !skip.includes(name))
  .map(([name, fragment, presets, ...rest]) => [name, fragment, presets.filter((p) => !onlyPreset || p === onlyPreset), ...rest]);
const names = [...new Set(allRuns.map(([name]) => name))];
for (const [flag, list] of [['--only', only || []], ['--skip', skip]]) {
  for (const name of list) if (!names.includes(name)) usage(`${flag}: no view '${name}'; the views are ${names.join(', ')}`);
}
if (!runs.some(([, , presets]) => presets.length)) usage(`nothing to run: no view of --only has the preset '${onlyPreset}'`);

// One Chromium per theme: the dark one is told the system is dark (prefers-color-scheme).
const chromes = {};
async function chromeFor(theme) {
  if (!chromes[theme]) {
    const flags = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];
    if (theme === 'dark') flags.push('--force-dark-mode', '--blink-settings=preferredColorScheme=0');
    // chrome-launcher's own flags, with ours merged in (one --disable-features).
    chromes[theme] = await chromeLauncher.launch({
      chromePath,
      ignoreDefaultFlags: true,
      chromeFlags: chromiumFlags(chromeLauncher.Launcher.defaultFlags(), flags),
    });
  }
  return chromes[theme];
}

const ms = (x) => (x == null ? 'n/a' : `${Math.round(x).toLocaleString('en')} ms`);
const rows = [];
const failures = [];
let failed = false;
try {
  for (const [name, fragment, presets, themes, categories] of runs) {
    for (const theme of themes) {
      for (const preset of presets) {
        const chrome = await chromeFor(theme);
        const started = Date.now();
        const flags = { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: categories };
        if (slowdown !== undefined && preset === 'mobile') flags.throttling = { cpuSlowdownMultiplier: slowdown };
        const samples = [];
        let lhr;
        for (let k = 0; k < repeat; k++) {
          const result = await lighthouse(base + fragment, flags, preset === 'desktop' ? desktopConfig : undefined);
          lhr = result.lhr;
          if (opt('--lhr')) writeFileSync(`${opt('--lhr')}/${name.replace(/[^a-z0-9]+/gi, '_')}-${preset}-${theme}-${k}.json`, JSON.stringify(lhr));
          if (lhr.runtimeError) break;
          const score = (c) => (lhr.categories[c] ? Math.round(lhr.categories[c].score * 100) : null);
          const timing = lhr.audits['user-timings']?.details?.items?.find((i) => i.name === 'cabrito-task-rendered');
          samples.push({
            performance: score('performance'),
            accessibility: score('accessibility'),
            bestPractices: score('best-practices'),
            lcp: lhr.audits['largest-contentful-paint']?.numericValue,
            tbt: lhr.audits['total-blocking-time']?.numericValue,
            rendered: timing?.startTime,
            host: lhr.environment?.benchmarkIndex,
            slowdown: lhr.configSettings?.throttling?.cpuSlowdownMultiplier,
          });
        }
        if (lhr.runtimeError) {
          failures.push(`${name} ${preset} ${theme}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
          continue;
        }
        const pick = (k) => (repeat === 1 ? samples[0][k] : median(samples.map((x) => x[k])));
        const row = {
          view: name,
          preset,
          theme,
          performance: pick('performance'),
          accessibility: Math.min(...samples.map((x) => x.accessibility ?? 100)),
          bestPractices: Math.min(...samples.map((x) => x.bestPractices ?? 100)),
          lcp: pick('lcp'),
          tbt: pick('tbt'),
          rendered: pick('rendered'),
          host: pick('host'),
          slowdown: pick('slowdown'),
          seconds: (Date.now() - started) / 1000,
          samples,
        };
        if (!categories.includes('accessibility')) row.accessibility = null;
        if (!categories.includes('best-practices')) row.bestPractices = null;
        rows.push(row);
        const line = [
          `${name.padEnd(13)} ${preset.padEnd(7)} ${theme.padEnd(5)}`,
          row.performance != null ? `performance ${row.performance}` : '',
          row.accessibility != null ? `accessibility ${row.accessibility}` : '',
          row.bestPractices != null ? `best practices ${row.bestPractices}` : '',
          categories.includes('performance') ? `LCP ${ms(row.lcp)}, TBT ${ms(row.tbt)}, task rendered ${ms(row.rendered)}` : '',
          repeat > 1 ? `(median of ${repeat}: performance ${samples.map((x) => x.performance).join(', ')}; ${row.seconds.toFixed(0)} s)` : `(${row.seconds.toFixed(0)} s)`,
        ];
        console.log(line.filter(Boolean).join('  '));
        // Audits that fail without costing points (weight 0) are printed too.
        for (const cat of categories.filter((c) => c === 'accessibility')) {
          for (const r of lhr.categories[cat]?.auditRefs || []) {
            const a = lhr.audits[r.id];
            if (r.weight === 0 && a && a.score !== null && a.score < 1 && a.scoreDisplayMode === 'binary') {
              console.log(`    note: ${a.id} (${cat}, weight 0): ${a.title}`);
            }
          }
        }
        for (const [cat, floor] of Object.entries(FLOORS)) {
          const c = lhr.categories[cat];
          if (!c || Math.round(c.score * 100) >= floor) continue;
          const bad = c.auditRefs
            .map((r) => lhr.audits[r.id])
            .filter((a) => a && a.score !== null && a.score < 1 && a.scoreDisplayMode !== 'informative' && a.scoreDisplayMode !== 'manual')
            .map((a) => {
              const items = (a.details?.items || []).slice(0, 5).map((i) => i.node?.snippet || i.node?.selector || i.url || i.description || '');
              return `    ${a.id}: ${a.title}${items.length ? '\n      ' + items.join('\n      ') : ''}`;
            });
          failures.push(`${name} ${preset} ${theme}: ${cat} ${Math.round(c.score * 100)} < ${floor}\n${bad.join('\n')}`);
        }
      }
    }
  }
} catch (e) {
  failures.push(`lighthouse stopped: ${e && e.stack ? e.stack : e}`);
} finally {
  for (const c of Object.values(chromes)) await c.kill();
}

if (bench) {
  console.log('\n| page | preset | performance | LCP | TBT | `cabrito-task-rendered` | host CPU (benchmarkIndex) | CPU slowdown |\n|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.view} | ${r.preset} | ${r.performance} | ${ms(r.lcp)} | ${ms(r.tbt)} | ${r.rendered == null ? '–' : ms(r.rendered)} | ${r.host == null ? '–' : Math.round(r.host)} | ${r.slowdown ?? '–'}x |`);
  }
}
const json = opt('--json');
if (json) writeFileSync(json, JSON.stringify(rows, null, 1));
if (failures.length) {
  failed = true;
  console.error(`\nLighthouse: ${failures.length} failure(s):\n${failures.join('\n')}`);
}
process.exit(failed ? 1 : 0);
