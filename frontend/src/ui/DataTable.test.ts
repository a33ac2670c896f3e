import { createElement as h } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DataTable, type DataColumn } from './DataTable';

// DataTable's markup is what table.css lays out as a table or, in a narrow
// box, as cards: these check the contract between the two (the layout
// itself is checked in Chromium by e2e/phone.test.mjs).

interface Row {
  id: string;
  name: string;
  email: string;
}

const rows: Row[] = [
  { id: 'a', name: 'H100', email: 'ops@example.com' },
  { id: 'b', name: 'A100', email: 'dc@example.org' },
];

const columns: DataColumn<Row>[] = [
  { key: 'email', header: 'Email', cell: (r) => r.email, cellProps: (r) => ({ 'data-testid': 'email', 'data-id': r.id }) },
  { key: 'name', header: 'Model', primary: true, cell: (r) => r.name },
  { key: 'chart', header: 'History', hideLabel: true, cell: () => h('svg', { viewBox: '0 0 10 10' }) },
  { key: 'rent', header: 'Actions', actions: true, cell: (r) => h('button', { type: 'button' }, `Rent ${r.name}`) },
];

// Vitest runs in Node without a DOM: the markup is read back from
// React's server rendering with a small parser for the elements it emits.
interface Node {
  tag: string;
  attrs: Record<string, string>;
  children: Node[];
  text: string;
}

function parse(html: string): Node {
  const root: Node = { tag: '#root', attrs: {}, children: [], text: '' };
  const stack = [root];
  const voids = new Set(['br', 'img', 'input', 'hr']);
  for (const m of html.matchAll(/<(\/?)([a-z0-9]+)((?:\s+[a-zA-Z-]+(?:="[^"]*")?)*)\s*(\/?)>|([^<]+)/g)) {
    const top = stack[stack.length - 1]!;
    if (m[5] !== undefined) {
      for (const n of stack) n.text += m[5].replace(/&amp;/g, '&');
      continue;
    }
    if (m[1]) {
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of (m[3] ?? '').matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g)) attrs[a[1]!] = a[2] ?? '';
    const node: Node = { tag: m[2]!, attrs, children: [], text: '' };
    top.children.push(node);
    if (!m[4] && !voids.has(node.tag)) stack.push(node);
  }
  return root;
}

function all(node: Node, match: (n: Node) => boolean): Node[] {
  const found: Node[] = [];
  const walk = (n: Node) => {
    if (match(n)) found.push(n);
    n.children.forEach(walk);
  };
  walk(node);
  return found;
}

function render(props: Partial<Parameters<typeof DataTable<Row>>[0]> = {}): Node {
  return parse(renderToStaticMarkup(h(DataTable<Row>, { caption: 'GPUs for rent', rows, rowKey: (r: Row) => r.id, columns, ...props })));
}

const byTag = (tag: string) => (n: Node) => n.tag === tag;
const cellOf = (column: string) => (n: Node) => n.attrs['data-column'] === column;

describe('DataTable', () => {
  it('names each row by its primary column, a row header first in the source order of its cells', () => {
    const doc = render();
    const heads = all(doc, (n) => n.tag === 'th' && n.attrs.scope === 'row');
    expect(heads.map((th) => th.text)).toEqual(['H100', 'A100']);
    expect(heads[0]?.attrs.role).toBe('rowheader');
    // The primary value is the card's title: no label before it.
    expect(heads[0]?.attrs['data-label']).toBeUndefined();
    expect(heads[0]?.attrs.class).toContain('dt-primary');
  });

  it('labels every other value with its column head, for the phone layout, and keeps its attributes', () => {
    const email = all(render(), cellOf('email'))[0];
    expect(email?.tag).toBe('td');
    expect(email?.attrs['data-label']).toBe('Email');
    expect(email?.attrs['data-testid']).toBe('email');
    expect(email?.attrs['data-id']).toBe('a');
    // The label is drawn by CSS (::before), not text: a cell's text is its value.
    expect(email?.text).toBe('ops@example.com');
  });

  it('draws a chart and the actions without a label, and hides the actions head but for screen readers', () => {
    const doc = render();
    const chart = all(doc, cellOf('chart'))[0];
    expect(chart?.attrs.class).toContain('dt-nolabel');
    expect(chart?.attrs['data-label']).toBeUndefined();
    const rent = all(doc, cellOf('rent'))[0];
    expect(rent?.attrs.class).toContain('dt-actions');
    expect(rent?.attrs['data-label']).toBeUndefined();
    const head = all(doc, (n) => n.tag === 'th' && n.attrs.scope === 'col' && (n.attrs.class ?? '').includes('dt-actions'))[0];
    expect(head?.children[0]?.attrs.class).toBe('visually-hidden');
    expect(head?.text).toBe('Actions');
  });

  it('states the table roles (kept whatever the CSS display) and names the table by its caption', () => {
    const doc = render({ testId: 'listings', tableProps: { 'data-live': true } });
    const table = all(doc, byTag('table'))[0];
    expect(table?.attrs.role).toBe('table');
    expect(table?.attrs.class).toBe('data-table dt');
    expect(table?.attrs['data-testid']).toBe('listings');
    expect(table?.attrs['data-live']).toBe('true');
    expect(table?.attrs['data-rows']).toBe('2');
    expect(all(doc, byTag('caption'))[0]?.text).toBe('GPUs for rent');
    expect(all(doc, (n) => n.attrs.role === 'row')).toHaveLength(3);
    expect(all(doc, (n) => n.attrs.role === 'columnheader')).toHaveLength(4);
    expect(all(doc, (n) => n.attrs.role === 'cell')).toHaveLength(6);
  });

  it('shows the empty state instead of an empty table when given one', () => {
    const doc = render({ rows: [], empty: h('p', { className: 'muted' }, 'Nothing to rent') });
    expect(all(doc, byTag('table'))).toHaveLength(0);
    expect(all(doc, byTag('p'))[0]?.text).toBe('Nothing to rent');
    const bare = render({ rows: [] });
    expect(all(bare, byTag('tbody'))[0]?.children).toHaveLength(0);
  });

  it('gives a row its attributes and classes', () => {
    const doc = render({ rowProps: (r) => ({ 'data-testid': 'listing', 'data-id': r.id }), rowClassName: (r) => (r.id === 'b' ? 'muted' : undefined) });
    const trs = all(all(doc, byTag('tbody'))[0]!, byTag('tr'));
    expect(trs.map((tr) => tr.attrs['data-id'])).toEqual(['a', 'b']);
    expect(trs[0]?.attrs['data-testid']).toBe('listing');
    expect(trs[0]?.attrs.class).toBeUndefined();
    expect(trs[1]?.attrs.class).toBe('muted');
  });

  it('aligns a figure column at the end in the table, and styles its values, not its label', () => {
    const doc = render({ columns: [...columns, { key: 'price', header: 'Price', align: 'end', className: 'mono amount', cell: () => '2.5' }] });
    const price = all(doc, cellOf('price'))[0];
    expect(price?.attrs.class).toBe('dt-align-end');
    expect(price?.children[0]?.attrs.class).toBe('dt-value mono amount');
  });

  it('stacks a wide table in a wider box when asked', () => {
    const box = (doc: Node) => all(doc, (n) => (n.attrs.class ?? '') === 'data-table-box')[0];
    expect(box(render())?.attrs['data-stack-below']).toBe('narrow');
    expect(box(render())?.attrs.style).toBeUndefined();
    const wide = box(render({ stackBelow: 'wide' }));
    expect(wide?.attrs['data-stack-below']).toBe('wide');
    expect(wide?.attrs.style).toBe('--dt-stack:wide');
  });
});

// Every table of the SPA, current and future, is a DataTable (issue 11): a
// hand-written <table> would be too wide on a phone. This reads the sources.
describe('the SPA draws its tables with DataTable', () => {
  it('has no <table> outside DataTable.tsx', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join, relative } = await import('node:path');
    const src = join(__dirname, '..');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.tsx$/.test(entry) && !path.endsWith(join('ui', 'DataTable.tsx')) && /<table[\s>]/.test(readFileSync(path, 'utf8')))
          offenders.push(relative(src, path));
      }
    };
    walk(src);
    expect(offenders).toEqual([]);
  });
});
