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

export default defineConfig({
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
