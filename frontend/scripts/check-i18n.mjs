#!/usr/bin/env node
// check-i18n keeps the SPA's translations honest. It fails when
//  1. a locale misses a key that en has, or has a key en does not have;
//  2. a value is empty or not a string, or its {{placeholders}} differ from en;
//  3. a t('literal.key') in the source names a key en does not have;
//  4. a .tsx file renders text that does not come from t(): JSX text between
//     tags, or a user-visible attribute (placeholder, title, alt, aria-label,
//     label) with a literal string. The test is a heuristic (TypeScript
//     interface, type and class lines are skipped); a line that is meant to
//     show fixed text can say so with an `i18n-ignore` comment.
//  5. the email templates (internal/mail/templates/<language>.json) break
//     rules 1 and 2, or leave a text in English: a text equal to English with
//     a word left once placeholders, acronyms in capitals (GPU, FP16) and the
//     brand are taken out is an error, unless the file's "_sameAsEnglish"
//     lists its key (a borrowed word, such as "Upload" in Portuguese). The
//     Go test TestTemplatesAgreeInEveryLanguage applies the same rules.
// Values equal to English in another locale are listed as a hint, not an error
// (brand names and model numbers are the same in every language).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const localeDir = join(root, 'src', 'i18n', 'locales');
const srcDir = join(root, 'src');
const REFERENCE = 'en';

const problems = [];
const hints = [];

function flatten(obj, prefix = '', out = new Map()) {
  for (const [key, value] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) flatten(value, path, out);
    else out.set(path, value);
  }
  return out;
}

function placeholders(text) {
  return [...String(text).matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort().join(',');
}

// 1 and 2: locale files against the reference.
const locales = new Map();
for (const file of readdirSync(localeDir).filter((f) => f.endsWith('.json')).sort()) {
  const name = file.replace(/\.json$/, '');
  try {
    locales.set(name, flatten(JSON.parse(readFileSync(join(localeDir, file), 'utf8'))));
  } catch (err) {
    problems.push(`${file}: not valid JSON: ${err.message}`);
  }
}
const reference = locales.get(REFERENCE);
if (!reference) {
  problems.push(`no ${REFERENCE}.json in ${relative(root, localeDir)}`);
} else {
  for (const [name, keys] of locales) {
    for (const [key, value] of keys) {
      if (typeof value !== 'string' || value.trim() === '') problems.push(`${name}: ${key} is empty or not a string`);
    }
    if (name === REFERENCE) continue;
    for (const key of reference.keys()) {
      if (!keys.has(key)) problems.push(`${name}: missing key ${key}`);
    }
    for (const [key, value] of keys) {
      if (!reference.has(key)) {
        problems.push(`${name}: extra key ${key} (not in ${REFERENCE})`);
        continue;
      }
      const en = reference.get(key);
      if (placeholders(value) !== placeholders(en)) {
        problems.push(`${name}: ${key} has placeholders {${placeholders(value)}}, ${REFERENCE} has {${placeholders(en)}}`);
      }
      if (value === en && /\p{L}{3,}/u.test(en) && en !== 'GPUnex') hints.push(`${name}: ${key} equals English: ${JSON.stringify(en)}`);
    }
  }
}

// 3 and 4: the source.
function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== 'gql') out.push(...sourceFiles(path));
    } else if (/\.(tsx?|mts)$/.test(entry) && !entry.endsWith('.d.ts')) {
      out.push(path);
    }
  }
  return out;
}

// Comments are blanked (keeping line breaks and length) so that line numbers
// stay right and commented-out JSX is not reported.
function stripComments(code) {
  return code
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`\\])\/\/[^\n]*/g, (m, lead) => lead + ' '.repeat(m.length - lead.length));
}

function lineOf(code, index) {
  return code.slice(0, index).split('\n').length;
}

const LETTER = /\p{L}/u;
// JSX text: after a tag's closing '>' (a tag name, attribute value or
// attribute expression ends right before it, never a space as in `a > b`),
// up to the next '<' or '{'. Code after a JSX expression or a generic type
// (`/>;`, `>(null)`, `>,`) starts with punctuation, which JSX text rarely does.
// A generic type's parameters or arguments followed by `extends`
// (`interface P<V extends string> extends Base {`) are code too.
const CODE_AFTER_TAG = /^\s*[;(),:?&|\]]|=>|\breturn\b|^\s*extends\b/;
// A TypeScript declaration line (interface, type alias, class) is never JSX.
const DECLARATION_LINE = /^\s*(export\s+)?(declare\s+)?(abstract\s+)?(interface|type|class)\s+\w/;
const JSX_TEXT = /(?<=[\w"'}\/])>([^<>{}]+)(?=[<{])/g;
const VISIBLE_ATTR = /\b(placeholder|title|alt|aria-label|label)=("[^"]*"|'[^']*')/g;
const T_CALL = /\bt\(\s*(['"])([\w.-]+)\1/g;

for (const file of sourceFiles(srcDir)) {
  const raw = readFileSync(file, 'utf8');
  const code = stripComments(raw);
  const rawLines = raw.split('\n');
  const codeLines = code.split('\n');
  const rel = relative(root, file);
  const ignored = (line) => /i18n-ignore/.test(rawLines[line - 1] ?? '');

  if (reference) {
    for (const m of code.matchAll(T_CALL)) {
      const key = m[2];
      if (!reference.has(key)) problems.push(`${rel}:${lineOf(code, m.index)}: t('${key}') is not a key of ${REFERENCE}.json`);
    }
  }
  if (!file.endsWith('.tsx')) continue;
  for (const m of code.matchAll(JSX_TEXT)) {
    const text = m[1].trim();
    const line = lineOf(code, m.index);
    const declaration = DECLARATION_LINE.test(codeLines[line - 1] ?? '');
    if (text && LETTER.test(text) && !CODE_AFTER_TAG.test(m[1]) && !declaration && !ignored(line)) {
      problems.push(`${rel}:${line}: JSX text not wrapped in t(): ${JSON.stringify(text)}`);
    }
  }
  for (const m of code.matchAll(VISIBLE_ATTR)) {
    const value = m[2].slice(1, -1);
    const line = lineOf(code, m.index);
    if (LETTER.test(value) && !ignored(line)) {
      problems.push(`${rel}:${line}: ${m[1]} attribute is a literal, not t(): ${JSON.stringify(value)}`);
    }
  }
}

// 5: the email templates.
const mailDir = join(root, '..', 'internal', 'mail', 'templates');
const MAIL_LANGUAGES = ['en', 'es', 'pt', 'hi', 'ar'];
const SAME_AS_ENGLISH = '_sameAsEnglish';
const untranslated = (text) =>
  /\p{L}{3,}/u.test(String(text).replace(/\{\{[^}]*\}\}|\b[A-Z0-9]{2,}\b|GPUnex/g, ''));
const mail = new Map();
const mailSame = new Map();
for (const lang of MAIL_LANGUAGES) {
  const file = join(mailDir, `${lang}.json`);
  try {
    const tree = JSON.parse(readFileSync(file, 'utf8'));
    const same = tree[SAME_AS_ENGLISH] ?? [];
    delete tree[SAME_AS_ENGLISH];
    if (!Array.isArray(same) || same.some((k) => typeof k !== 'string')) {
      problems.push(`mail ${lang}: ${SAME_AS_ENGLISH} is not a list of keys`);
    }
    mail.set(lang, flatten(tree));
    mailSame.set(lang, Array.isArray(same) ? same : []);
  } catch (err) {
    problems.push(`mail ${relative(root, file)}: ${err.message}`);
  }
}
const mailEn = mail.get(REFERENCE);
if (mailEn) {
  for (const [lang, keys] of mail) {
    for (const [key, value] of keys) {
      if (typeof value !== 'string' || value.trim() === '') problems.push(`mail ${lang}: ${key} is empty or not a string`);
    }
    if (lang === REFERENCE) continue;
    for (const key of mailEn.keys()) {
      if (!keys.has(key)) problems.push(`mail ${lang}: missing key ${key}`);
    }
    for (const [key, value] of keys) {
      if (!mailEn.has(key)) {
        problems.push(`mail ${lang}: extra key ${key} (not in ${REFERENCE})`);
        continue;
      }
      const en = mailEn.get(key);
      if (placeholders(value) !== placeholders(en)) {
        problems.push(`mail ${lang}: ${key} has placeholders {${placeholders(value)}}, ${REFERENCE} has {${placeholders(en)}}`);
      }
      if (value === en && untranslated(en) && !mailSame.get(lang).includes(key)) {
        problems.push(`mail ${lang}: ${key} is still English: ${JSON.stringify(en)}`);
      }
    }
    for (const key of mailSame.get(lang)) {
      if (!mailEn.has(key)) problems.push(`mail ${lang}: ${SAME_AS_ENGLISH} names ${key}, which ${REFERENCE} does not have`);
    }
  }
}

const keyCount = reference ? reference.size : 0;
for (const hint of hints) console.log(`hint: ${hint}`);
if (problems.length > 0) {
  for (const problem of problems) console.error(`error: ${problem}`);
  console.error(`check:i18n: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`check:i18n: ok: ${locales.size} locales (${[...locales.keys()].join(', ')}) with the same ${keyCount} keys; no untranslated JSX text found`);
console.log(`check:i18n: ok: ${mail.size} email template files with the same ${mailEn?.size ?? 0} keys, placeholders and no English left`);
