#!/usr/bin/env node
// i18n-add merges translations into the five locale files at once, so that
// several people (or helpers) adding strings at the same time never lose one
// another's keys. Run it under the lock:
//
//   flock /tmp/i18n.lock node scripts/i18n-add.mjs fragment.json
//
// fragment.json holds one object per language with the same nested keys:
//   { "en": { "tokens": { "machines": "{{count}} machines" } }, "es": {...}, "pt": {...}, "hi": {...}, "ar": {...} }
// A key that exists is overwritten; new keys are appended in their object.
// Every language in the fragment must carry the same keys (check:i18n checks
// the result as a whole).
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const localeDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'i18n', 'locales');
const LANGUAGES = ['en', 'es', 'pt', 'hi', 'ar'];

function flatKeys(obj, prefix = '') {
  return Object.entries(obj).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' ? flatKeys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

function merge(target, source) {
  for (const [k, v] of Object.entries(source)) {
    if (v !== null && typeof v === 'object') {
      if (typeof target[k] !== 'object' || target[k] === null) target[k] = {};
      merge(target[k], v);
    } else {
      target[k] = v;
    }
  }
}

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/i18n-add.mjs fragment.json');
  process.exit(2);
}
const fragment = JSON.parse(readFileSync(file, 'utf8'));
const want = flatKeys(fragment.en ?? {}).sort().join('\n');
for (const lang of LANGUAGES) {
  if (!fragment[lang]) {
    console.error(`fragment has no "${lang}"`);
    process.exit(2);
  }
  if (flatKeys(fragment[lang]).sort().join('\n') !== want) {
    console.error(`fragment's "${lang}" keys differ from "en"`);
    process.exit(2);
  }
}
for (const lang of LANGUAGES) {
  const path = join(localeDir, `${lang}.json`);
  const locale = JSON.parse(readFileSync(path, 'utf8'));
  merge(locale, fragment[lang]);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(locale, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}
console.log(`merged ${want.split('\n').filter(Boolean).length} keys into ${LANGUAGES.join(', ')}`);
