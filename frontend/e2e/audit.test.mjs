// GraphQL over HTTP conformance: graphql-http's audit suite against the real
// server's /graphql. Every MUST has to pass; SHOULD and MAY results are
// printed (warnings) but do not fail the test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditServer } from 'graphql-http';
import { explainFailure } from './artifacts.mjs';
import { startServer } from './server.mjs';
import { testPatience } from './patience.mjs';

test('audit: /graphql passes every MUST of the GraphQL over HTTP spec', { timeout: testPatience() }, async () => {
  const server = await startServer();
  try {
    const url = `${server.url}/graphql`;
    const results = await auditServer({ url });
    const failedMusts = [];
    for (const result of results) {
      const line = `${result.status.padEnd(5)} ${result.id} ${result.name}`;
      if (result.status === 'ok') {
        console.log(`${line}`);
        continue;
      }
      let detail = `${line}\n    reason: ${result.reason}`;
      if (result.response) {
        const body = await result.response.text().catch(() => '<unreadable body>');
        const headers = JSON.stringify(Object.fromEntries(result.response.headers));
        detail += `\n    response: ${result.response.status} ${headers} ${body.slice(0, 500)}`;
      }
      console.log(`${detail}`);
      if (result.status === 'error' && result.name.startsWith('MUST')) failedMusts.push(detail);
    }
    const count = (status) => results.filter((r) => r.status === status).length;
    console.log(`audit: ${results.length} checks: ${count('ok')} ok, ${count('warn')} warn, ${count('error')} error`);
    assert.deepEqual(failedMusts, [], `MUST audits failed:\n${failedMusts.join('\n')}`);
  } catch (err) {
    throw await explainFailure(err, { logs: { 'server output': server.output() } });
  } finally {
    await server.stop();
  }
});
