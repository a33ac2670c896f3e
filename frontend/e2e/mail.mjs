// mail.mjs reads what a test server mailed. Without an SMTP URL, gpunex serve
// writes each message as an RFC 5322 .eml file under <data-dir>/mail/outbox
// (see internal/mail's FileSender); the tests read the links a person would
// click from there.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { patience } from './patience.mjs';

/** outboxDir is where a server started with dataDir writes its mail. */
export const outboxDir = (dataDir) => join(dataDir, 'mail', 'outbox');

/** decodeBody decodes a message body by its Content-Transfer-Encoding. */
function decodeBody(headers, body) {
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/**
 * confirmationLink waits for the sign-up email to address and returns the
 * confirmation link in it (…/confirm-email?token=…), as the person would
 * click it.
 */
export async function confirmationLink(dataDir, address, { timeoutMs = patience() } = {}) {
  const deadline = Date.now() + timeoutMs;
  const link = /https?:\/\/[^\s"<>]+\/confirm-email\?token=[A-Za-z0-9_-]+/;
  for (;;) {
    for (const m of readMessages(dataDir)) {
      if (!m.to.toLowerCase().includes(address.toLowerCase())) continue;
      const found = link.exec(m.text);
      if (found) return found[0];
    }
    if (Date.now() > deadline) {
      const seen = readMessages(dataDir).map((m) => `${m.to}: ${m.subject}`);
      throw new Error(`no confirmation email to ${address} within ${timeoutMs} ms; outbox: ${JSON.stringify(seen)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** decodeWords decodes the RFC 2047 encoded words of a header value. */
export function decodeWords(value) {
  return value
    .replace(/\?=\s+=\?/g, '?==?') // whitespace between encoded words is not text
    .replace(/=\?([^?]+)\?([bq])\?([^?]*)\?=/gi, (_, charset, encoding, data) => {
      const bytes =
        encoding.toLowerCase() === 'b'
          ? Buffer.from(data, 'base64')
          : Buffer.from(
              data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, hex) => String.fromCharCode(parseInt(hex, 16))),
              'latin1',
            );
      return new TextDecoder(charset).decode(bytes);
    });
}

/**
 * readMessages returns every message in the outbox as { file, to, kind,
 * subject, text, html, language }: kind is the X-GPUnex-Kind header, the
 * subject decoded, the text/plain and text/html parts decoded apart (html
 * is '' for a message without one), and the html's lang attribute.
 */
export function readMessages(dataDir) {
  const dir = outboxDir(dataDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((file) => {
      const raw = readFileSync(join(dir, file), 'utf8');
      const split = raw.search(/\r?\n\r?\n/);
      const headers = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
      const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
      const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
      const parts = boundary ? body.split(`--${boundary}`).slice(1, -1) : [`${headers}\n\n${body}`];
      const byType = {};
      for (const part of parts) {
        const at = part.search(/\r?\n\r?\n/);
        const partHeaders = part.slice(0, at).replace(/\r?\n[ \t]+/g, ' ');
        const type = /content-type:\s*([\w/+-]+)/i.exec(partHeaders)?.[1]?.toLowerCase() ?? 'text/plain';
        byType[type] ??= decodeBody(partHeaders, part.slice(at).replace(/^\r?\n\r?\n/, '')).replace(/\r\n/g, '\n');
      }
      const html = byType['text/html'] ?? '';
      return {
        file,
        to: /^to:\s*(.*)$/im.exec(headers)?.[1] ?? '',
        kind: /^x-gpunex-kind:\s*(\S+)/im.exec(headers)?.[1] ?? '',
        subject: decodeWords(/^subject:\s*(.*)$/im.exec(headers)?.[1] ?? ''),
        text: byType['text/plain'] ?? '',
        html,
        language: /<html[^>]*\slang="([^"]+)"/i.exec(html)?.[1] ?? '',
      };
    });
}

/**
 * waitForMessage polls the outbox until a message to address of kind (its
 * X-GPUnex-Kind, e.g. account.confirm_email) arrives, and returns it as
 * readMessages does.
 */
export async function waitForMessage(dataDir, address, kind, { timeoutMs = patience() } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const m of readMessages(dataDir)) {
      if (m.kind === kind && m.to.toLowerCase().includes(address.toLowerCase())) return m;
    }
    if (Date.now() > deadline) {
      const seen = readMessages(dataDir).map((m) => `${m.to}: ${m.subject}`);
      throw new Error(`no ${kind} email to ${address} within ${timeoutMs} ms; outbox: ${JSON.stringify(seen)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
