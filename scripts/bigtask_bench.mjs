// Big task pages in Lighthouse (desktop preset), several runs each, with where the main thread's
// time goes: BENCHMARKS.md's "Big tasks" section. scripts/lighthouse.sh starts `cabrito serve` and
// calls this with `bash scripts/lighthouse.sh --big [--sizes 25,200,1000,2000] [--runs 5]`.
//
//   node scripts/bigtask_bench.mjs --base http://127.0.0.1:PORT/ [--sizes LIST] [--runs K]
//        [--spec 'kind=add_parameter&seed=3'] [--json FILE]
//
// Per run: performance score, largest contentful paint, total blocking time, the app's
// `cabrito-task-rendered` mark and `cabrito-generate` measure, the longest main-thread task of the
// load and what that task spent its time on (from Lighthouse's trace: script, style, layout, paint).
// Then a Markdown table of the medians.

import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import * as chromeLauncher from 'chrome-launcher';
import { writeFileSync } from 'node:fs';
import { chromiumFlags } from './chromium_flags.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const base = opt('--base');
if (!base) {
  console.error('bigtask_bench.mjs: --base URL is required');
  process.exit(2);
}
const sizes = opt('--sizes', '25,200,1000,2000').split(',').map(Number);
const runs = Number(opt('--runs', '5'));
if (!sizes.every((n) => Number.isInteger(n) && n >= 1 && n <= 2000)) {
  console.error(`bigtask_bench.mjs: --sizes must be whole numbers from 1 to 2000 joined by commas, not '${opt('--sizes')}'`);
  process.exit(2);
}
if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
  console.error(`bigtask_bench.mjs: --runs must be a whole number from 1 to 50, not '${opt('--runs')}'`);
  process.exit(2);
}
const extra = opt('--spec', 'kind=add_parameter&seed=3');
const chromePath = process.env.CABRITO_CHROMIUM || '/usr/bin/chromium';

// Trace events of the page's main thread (the renderer's CrRendererMain with the most work).
function mainThread(events) {
  const names = new Map();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain') names.set(`${e.pid}:${e.tid}`, 0);
  }
  for (const e of events) {
    const k = `${e.pid}:${e.tid}`;
    if (names.has(k) && e.name === 'RunTask' && e.dur) names.set(k, names.get(k) + e.dur);
  }
  const best = [...names.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return events.filter((e) => `${e.pid}:${e.tid}` === best && e.ph === 'X');
}

// What a task spent its time on: the durations of the events directly inside it, by kind.
const KINDS = {
  script: ['FunctionCall', 'EvaluateScript', 'v8.compile', 'v8.compileModule', 'TimerFire', 'FireAnimationFrame',
    'EventDispatch', 'RunMicrotasks', 'v8.callFunction', 'V8.Execute', 'v8.run', 'wasm.CompileLazy'],
  style: ['UpdateLayoutTree', 'RecalculateStyles', 'ParseAuthorStyleSheet'],
  layout: ['Layout', 'PrePaint', 'Layerize'],
  paint: ['Paint', 'PaintImage', 'CompositeLayers', 'UpdateLayer', 'Commit'],
};
function breakdown(thread, task) {
  const end = task.ts + task.dur;
  const inside = thread.filter((e) => e !== task && e.ts >= task.ts && e.ts + (e.dur || 0) <= end && e.dur);
  // Only the outermost events of each kind count (nested ones are inside them).
  inside.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const out = { script: 0, style: 0, layout: 0, paint: 0 };
  const open = { script: 0, style: 0, layout: 0, paint: 0 };
  for (const e of inside) {
    for (const [k, list] of Object.entries(KINDS)) {
      if (list.includes(e.name) && e.ts >= open[k]) {
        out[k] += e.dur / 1000;
        open[k] = e.ts + e.dur;
      }
    }
  }
  return out;
}

// The start-up's timeline, in ms from the navigation's start: the HTML, the app's glue JS and
// wasm (request to last byte, bytes on the wire) from Lighthouse's network records; the end of the
// wasm's streaming compilation (the first `v8.wasm.compileConsumeDone` on the main thread) from the
// trace; the app's own marks: `cabrito-start` (its `main` ran: the wasm is instantiated) and
// `cabrito-generate-start` (the first render generates the task).
function startup(lhr, events, timing) {
  const reqs = lhr.audits['network-requests']?.details?.items || [];
  const doc = reqs.find((r) => r.resourceType === 'Document') || reqs[0];
  const glue = reqs.find((r) => /\/cabrito-[0-9a-f]+\.js$/.test(r.url));
  const wasm = reqs.find((r) => /\/cabrito-[0-9a-f]+_bg\.wasm$/.test(r.url));
  const nav = events.find((e) => e.name === 'navigationStart' && /^http/.test(e.args?.data?.documentLoaderURL || ''));
  const thread = new Set(mainThread(events).map((e) => `${e.pid}:${e.tid}`));
  const done = nav && events
    .filter((e) => e.name === 'v8.wasm.compileConsumeDone' && thread.has(`${e.pid}:${e.tid}`) && e.ts > nav.ts)
    .sort((a, b) => a.ts - b.ts)[0];
  return {
    html: doc?.networkEndTime,
    glue: glue?.networkEndTime,
    wasmStart: wasm?.networkRequestTime,
    wasmEnd: wasm?.networkEndTime,
    wasmBytes: wasm?.transferSize,
    compiled: done ? (done.ts + (done.dur || 0) - nav.ts) / 1000 : null,
    started: timing('cabrito-start')?.startTime,
    generate: timing('cabrito-generate-start')?.startTime,
  };
}

const median = (xs) => {
  const s = xs.filter((x) => x != null).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => (x == null ? 'n/a' : `${Math.round(x).toLocaleString('en')} ms`);

const chrome = await chromeLauncher.launch({
  chromePath,
  // chrome-launcher's own flags, with ours merged in (one --disable-features).
  ignoreDefaultFlags: true,
  chromeFlags: chromiumFlags(chromeLauncher.Launcher.defaultFlags(), ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']),
});
const rows = [];
try {
  for (const n of sizes) {
    for (let r = 0; r < runs; r++) {
      const url = `${base}#/task?v=1&n=${n}&${extra}`;
      const flags = { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] };
      const result = await lighthouse(url, flags, desktopConfig);
      const lhr = result.lhr;
      if (lhr.runtimeError) {
        console.error(`n=${n}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
        continue;
      }
      const timings = lhr.audits['user-timings']?.details?.items || [];
      const timing = (name) => timings.find((i) => i.name === name);
      const thread = mainThread(result.artifacts.Trace.traceEvents);
      const tasks = thread.filter((e) => e.name === 'RunTask').sort((a, b) => b.dur - a.dur);
      const longest = tasks[0];
      const row = {
        n,
        run: r + 1,
        performance: Math.round(lhr.categories.performance.score * 100),
        lcp: lhr.audits['largest-contentful-paint']?.numericValue,
        tbt: lhr.audits['total-blocking-time']?.numericValue,
        rendered: timing('cabrito-task-rendered')?.startTime,
        generate: timing('cabrito-generate')?.duration,
        longest: longest ? longest.dur / 1000 : null,
        over50: tasks.filter((t) => t.dur > 50000).length,
        inLongest: longest ? breakdown(thread, longest) : null,
        measures: timings.filter((i) => i.timingType === 'Measure').map((i) => [i.name, i.duration]),
        startup: startup(lhr, result.artifacts.Trace.traceEvents, timing),
      };
      rows.push(row);
      const traceOut = opt('--trace');
      if (traceOut && rows.length === 1) writeFileSync(traceOut, JSON.stringify(result.artifacts.Trace));
      const lhrOut = opt('--lhr');
      if (lhrOut && rows.length === 1) writeFileSync(lhrOut, JSON.stringify(lhr));
      const b = row.inLongest || {};
      const st = row.startup;
      console.log(
        `         start-up (ms from navigation start): HTML ${ms(st.html)}, glue JS ${ms(st.glue)}, ` +
          `wasm ${ms(st.wasmStart)}–${ms(st.wasmEnd)} (${st.wasmBytes == null ? 'n/a' : `${Math.round(st.wasmBytes / 1000)} kB sent`}), ` +
          `compiled ${ms(st.compiled)}, app started ${ms(st.started)}, generate ${ms(st.generate)}, ` +
          `task rendered ${ms(row.rendered)}`,
      );
      console.log(
        `n=${String(n).padEnd(5)} run ${row.run}: performance ${row.performance}, LCP ${ms(row.lcp)}, TBT ${ms(row.tbt)}, ` +
          `task rendered ${ms(row.rendered)} (generate ${ms(row.generate)}), longest task ${ms(row.longest)} ` +
          `[script ${ms(b.script)}, style ${ms(b.style)}, layout ${ms(b.layout)}, paint ${ms(b.paint)}], ` +
          `${row.over50} tasks over 50 ms; measures: ${row.measures.map(([k, v]) => `${k} ${ms(v)}`).join(', ')}`,
      );
    }
  }
} finally {
  await chrome.kill();
}

console.log(`\nMedians of ${runs} runs (desktop preset; task ${extra}):\n`);
console.log('| n | performance | LCP | TBT | `cabrito-task-rendered` | generate | longest task | of which script / style / layout / paint |');
console.log('|---|---|---|---|---|---|---|---|');
for (const n of sizes) {
  const rs = rows.filter((r) => r.n === n);
  const m = (f) => median(rs.map(f));
  console.log(
    `| ${n.toLocaleString('en')} | ${m((r) => r.performance)} | ${ms(m((r) => r.lcp))} | ${ms(m((r) => r.tbt))} | ` +
      `${ms(m((r) => r.rendered))} (${ms(Math.min(...rs.map((r) => r.rendered ?? Infinity)))}–${ms(Math.max(...rs.map((r) => r.rendered ?? 0)))}) | ` +
      `${ms(m((r) => r.generate))} | ${ms(m((r) => r.longest))} | ` +
      `${['script', 'style', 'layout', 'paint'].map((k) => ms(m((r) => r.inLongest?.[k]))).join(' / ')} |`,
  );
}
console.log(`\nStart-up, medians (ms from navigation start):\n`);
console.log('| n | HTML | glue JS | wasm request | wasm last byte | wasm sent | compiled | app started | generate | task rendered |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const n of sizes) {
  const rs = rows.filter((r) => r.n === n);
  const m = (f) => median(rs.map(f));
  const kb = m((r) => r.startup.wasmBytes);
  console.log(
    `| ${n.toLocaleString('en')} | ${['html', 'glue', 'wasmStart', 'wasmEnd'].map((k) => ms(m((r) => r.startup[k]))).join(' | ')} | ` +
      `${kb == null ? 'n/a' : `${Math.round(kb / 1000)} kB`} | ` +
      `${['compiled', 'started', 'generate'].map((k) => ms(m((r) => r.startup[k]))).join(' | ')} | ${ms(m((r) => r.rendered))} |`,
  );
}
const json = opt('--json');
if (json) writeFileSync(json, JSON.stringify(rows, null, 1));
