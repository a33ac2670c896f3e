// GraphiQL, bundled into the binary as the second entry of the Vite build
// (graphiql.html): it loads nothing from outside the server, so /graphiql
// works offline and under the strict Content-Security-Policy the server
// sends with it (internal/api/graphiql.go). It is its own entry, so none of
// it is in the SPA's bundle.
//
// It talks to the API as the SPA does: the session cookie (same-origin) and
// the CSRF header on HTTP, the cookie on the WebSocket upgrade for
// subscriptions (graphql-transport-ws). Its interface is GraphiQL's own, in
// English; this file renders no text of its own.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher, type Fetcher } from '@graphiql/toolkit';
import { parse, type DocumentNode } from 'graphql';
import { createClient } from 'graphql-ws';
import { setNonce } from 'get-nonce';
import { CSRF_HEADER, GRAPHQL_PATH } from '../api/client';
import 'graphiql/style.css';
import './graphiql.css';

function webSocketUrl(): string {
  const url = new URL(GRAPHQL_PATH, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

// The page's CSP admits <style> elements only with this response's nonce
// (style-src): GraphiQL's dialogs (Radix, through react-style-singleton) add
// one to lock the page's scroll, and take the nonce from get-nonce.
const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
if (nonce) setNonce(nonce);

const toolkitFetcher = createGraphiQLFetcher({
  url: GRAPHQL_PATH,
  headers: { ...CSRF_HEADER },
  // The cookie authenticates the upgrade; the payload stays empty.
  wsClient: createClient({ url: webSocketUrl(), lazy: true, connectionParams: {} }),
});

// The toolkit sends an operation over the WebSocket when the document
// GraphiQL hands it (fetcherOpts.documentAST) says it is a subscription;
// that AST is the editor's last parse, which can trail an edit made just
// before Run, and a subscription sent as a POST gets its first event only.
// The document is therefore read from the text being sent.
function parsed(query: string): DocumentNode | undefined {
  try {
    return parse(query);
  } catch {
    return undefined;
  }
}

const fetcher: Fetcher = (params, opts) =>
  toolkitFetcher(params, { ...opts, documentAST: parsed(params.query) ?? opts?.documentAST });

const root = document.getElementById('graphiql');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <GraphiQL fetcher={fetcher} defaultEditorToolsVisibility={false} />
    </StrictMode>,
  );
}
