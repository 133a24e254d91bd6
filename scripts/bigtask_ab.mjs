// Big task pages on two (or more) builds, alternated, each load cold (a new browser context: no HTTP
// cache, no compiled-code cache): the app's `cabrito-task-rendered` mark and the longest main-thread task,
// for `n` = 1,000 and 2,000 with the Grade panel (the default) and with the graph panel opened by the link,
// and `n` = 25 (the fixed cost). Also when the task was painted: the end of the first frame after the mark
// (a timeout set from that frame's animation callback), so that work moved from before the mark to the
// frame after it shows as such.
// BENCHMARKS.md's side-by-side comparisons of a change ("A/B").
//
//   node scripts/bigtask_ab.mjs RUNS LABEL=URL [LABEL=URL ...]
//   CASES='kind=merge_codebases&seed=3&n=1000;...' node scripts/bigtask_ab.mjs ...   other task links
//
// Each URL is a `cabrito serve` of one build's dist/ (e.g. `target/debug/cabrito serve --addr
// 127.0.0.1:8378 --dist /tmp/dist-before`); wait until each has written its precompressed copies (it says
// so) before measuring. Prints, per case and build, the medians and every run's mark/longest task in ms.

import puppeteer from 'puppeteer-core';
import { chromiumFlags } from './chromium_flags.mjs';

const [runsArg, ...builds] = process.argv.slice(2);
const runs = Number(runsArg);
if (!Number.isInteger(runs) || runs < 1 || runs > 50 || builds.length === 0) {
  console.error('usage: node scripts/bigtask_ab.mjs RUNS LABEL=URL [LABEL=URL ...]   (RUNS: 1 to 50)');
  process.exit(2);
}
const targets = builds.map((b) => {
  const at = b.indexOf('=');
  if (at < 1 || !/^https?:\/\//.test(b.slice(at + 1))) {
    console.error(`bigtask_ab.mjs: '${b}' is not LABEL=URL (an http address)`);
    process.exit(2);
  }
  return [b.slice(0, at), b.slice(at + 1).replace(/\/?$/, '/')];
});
// Each case is a task link's query and its label.
const cases = process.env.CASES
  ? process.env.CASES.split(';').filter((q) => q.trim()).map((q) => [q, q])
  : [['25', ''], ['1000', '&panel=graph'], ['2000', '&panel=graph'], ['1000', ''], ['2000', '']].map(([n, panel]) => [
      `kind=add_parameter&seed=3&n=${n}${panel}`,
      `n=${n} ${panel ? 'graph panel' : 'Grade panel'}`,
    ]);
const browser = await puppeteer.launch({
  executablePath: process.env.CABRITO_CHROMIUM || '/usr/bin/chromium',
  args: chromiumFlags(['--no-sandbox']),
  headless: true,
});
const results = new Map();
try {
  for (let r = 0; r < runs; r++) {
    for (const [query, name] of cases) {
      for (const [label, base] of targets) {
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        await page.setViewport({ width: 1280, height: 720 });
        await page.evaluateOnNewDocument(() => {
          window.__longest = 0;
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
          }).observe({ type: 'longtask', buffered: true });
          const mark = Performance.prototype.mark;
          Performance.prototype.mark = function (name, ...rest) {
            if (name === 'cabrito-task-rendered' && window.__painted === undefined) {
              window.__painted = null;
              requestAnimationFrame(() => setTimeout(() => (window.__painted = performance.now()), 0));
            }
            return mark.call(this, name, ...rest);
          };
        });
        await page.goto(`${base}#/task?${query}`, { waitUntil: 'load' });
        await page.waitForFunction(() => performance.getEntriesByName('cabrito-task-rendered').length > 0, {
          timeout: 30000,
        });
        // Long tasks after the mark (the worker probe, the checker) count too.
        await new Promise((done) => setTimeout(done, 1500));
        const [mark, longest, painted] = await page.evaluate(() => [
          performance.getEntriesByName('cabrito-task-rendered')[0].startTime,
          window.__longest,
          window.__painted,
        ]);
        const key = `${name}  ${label}`;
        if (!results.has(key)) results.set(key, []);
        results.get(key).push([Math.round(mark), Math.round(longest), Math.round(painted ?? NaN)]);
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [key, got] of results) {
  const marks = got.map((g) => g[0]);
  const longest = got.map((g) => g[1]);
  const painted = got.map((g) => g[2]);
  console.log(
    `${key.padEnd(36)} mark ${String(median(marks)).padStart(4)} ms  painted ${String(median(painted)).padStart(4)} ms  longest task ${String(median(longest)).padStart(4)} ms   runs (mark/longest/painted) ${got.map((g) => g.join('/')).join(' ')}`,
  );
}
