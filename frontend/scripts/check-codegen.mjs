#!/usr/bin/env node
// check-codegen fails when src/gql/ is stale: it regenerates the typed
// operations from ../schema/*.graphqls and the graphql() documents in src/,
// and compares the result with what was there before. The regenerated files
// are left in place, so running `npm run codegen` and committing fixes it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const gqlDir = join(root, 'src', 'gql');

function snapshot() {
  const files = new Map();
  if (!existsSync(gqlDir)) return files;
  for (const name of readdirSync(gqlDir).sort()) files.set(name, readFileSync(join(gqlDir, name), 'utf8'));
  return files;
}

const before = snapshot();
execFileSync(process.execPath, [join(root, 'node_modules', '@graphql-codegen', 'cli', 'esm', 'bin.js'), '--config', 'codegen.ts', '--silent'], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
});
const after = snapshot();

const stale = [];
for (const name of new Set([...before.keys(), ...after.keys()])) {
  if (before.get(name) !== after.get(name)) stale.push(name);
}
if (stale.length > 0) {
  console.error(`check:codegen: src/gql is stale (${stale.join(', ')}); it has been regenerated, commit the result`);
  process.exit(1);
}
console.log(`check:codegen: ok: src/gql (${after.size} files) matches the schema and the operations`);
