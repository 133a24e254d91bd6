// The Chromium flags every headless run of the app adds (scripts/chromium-quiet.flags says why), and
// how to join them with a launcher's own: Chromium reads only the last `--disable-features=`, so
// every list's features are merged into one such flag.
import { readFileSync } from 'node:fs';

export const QUIET_FLAGS = readFileSync(new URL('./chromium-quiet.flags', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => line.replace(/#.*/, '').trim())
  .filter((line) => line);

// `lists` joined, with QUIET_FLAGS last and one `--disable-features=` holding all their features.
export function chromiumFlags(...lists) {
  const key = '--disable-features=';
  const features = [];
  const rest = [];
  for (const flag of [...lists.flat(), ...QUIET_FLAGS]) {
    if (flag.startsWith(key)) {
      for (const f of flag.slice(key.length).split(',')) if (f && !features.includes(f)) features.push(f);
    } else rest.push(flag);
  }
  return features.length ? [...rest, key + features.join(',')] : rest;
}
