/// <reference types="vitest/config" />
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// In development the SPA runs on Vite and talks to a `gpunex serve` started
// separately (GPUNEX_API, default http://127.0.0.1:8080). The proxy rewrites
// Origin so the server's same-host WebSocket check accepts the upgrade.
const api = process.env.GPUNEX_API ?? 'http://127.0.0.1:8080';
const outDir = fileURLToPath(new URL('./dist', import.meta.url));

// dist/.gitkeep is committed so the Go embed directive has a directory to
// embed before the first build. Vite's emptyOutDir would delete it, so this
// plugin empties dist itself and keeps that one file.
function cleanDistKeepingGitkeep(outDir: string): Plugin {
  return {
    name: 'gpunex-clean-dist',
    apply: 'build',
    buildStart() {
      let entries: string[] = [];
      try {
        entries = readdirSync(outDir);
      } catch {
        return;
      }
      for (const entry of entries) {
        if (entry !== '.gitkeep') rmSync(join(outDir, entry), { recursive: true, force: true });
      }
    },
  };
}

// `vite build --mode graphiql` builds GraphiQL (graphiql.html and
// src/graphiql/) into dist/graphiql/, served at /graphiql when introspection
// is on. It is a build of its own, after the SPA's, so that nothing of it
// (nor of the graphql-js modules it loads at once and the SPA loads lazily)
// lands in the SPA's chunks; React is duplicated in it instead.
const graphiql = defineConfig({
  plugins: [react()],
  base: '/graphiql/',
  logLevel: 'warn',
  build: {
    outDir: join(outDir, 'graphiql'),
    emptyOutDir: true,
    sourcemap: false,
    rolldownOptions: {
      input: fileURLToPath(new URL('./graphiql.html', import.meta.url)),
      onLog(level, log, handler) {
        // react-compiler-runtime (GraphiQL's) marks itself "use no memo"
        // for the React compiler, which this build does not run.
        if (log.code === 'MODULE_LEVEL_DIRECTIVE' && log.id?.includes('react-compiler-runtime')) return;
        handler(level, log);
      },
    },
    // GraphiQL with CodeMirror is one chunk of about 800 kB, loaded only
    // by /graphiql.
    chunkSizeWarningLimit: 1024,
  },
});

const spa = defineConfig({
  plugins: [react(), cleanDistKeepingGitkeep(outDir)],
  build: {
    outDir,
    emptyOutDir: false,
    sourcemap: false,
  },
  // `npm run test:unit`: the pure logic (reducers, error codes) in Node;
  // what needs a browser is tested in real Chromium by e2e/.
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
  server: {
    proxy: {
      '/graphql': {
        target: api,
        ws: true,
        changeOrigin: true,
        configure(proxy) {
          proxy.on('proxyReq', (req) => req.setHeader('origin', api));
          proxy.on('proxyReqWs', (req) => req.setHeader('origin', api));
        },
      },
    },
  },
});

export default defineConfig(({ mode }) => (mode === 'graphiql' ? graphiql : spa));
