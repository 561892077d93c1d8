// Zensical's own search, run in Node over a built site: the site's search worker
// (assets/javascripts/workers/search.<hash>.min.js) is evaluated unchanged in a VM context
// that stands in for a Web Worker (`self`, `self.onmessage`, `self.postMessage`) and is
// driven through its message API as Zensical's page does: SETUP (type 0) with search.json
// ({config, items}), answered by READY (type 1); then one QUERY (type 2) per query with
// the state object the page sends — {input: the raw text of the search box, filter: no
// tags} — answered by RESULT (type 3), whose `items` are the matching sections in rank
// order, ten per answer page (`pagination.next` asks for the next ones, as the page's
// "more results" does).  Printed: one JSON line per query, the page URLs of the first ten
// distinct pages (a section's location before any '#'), best first.
//
// Usage: node quality_zensical.js SITE_DIR < queries.json (a JSON array of strings)
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const site = process.argv[2];
const workers = path.join(site, 'assets', 'javascripts', 'workers');
const worker = fs.readdirSync(workers).find((f) => /^search\.[0-9a-f]+\.min\.js$/.test(f));
if (!worker) throw new Error(`no Zensical search worker in ${workers}`);

let replies = [];
const context = vm.createContext({
  console: { log: () => {}, warn: () => {}, error: console.error },
  setTimeout, clearTimeout, Promise, TextEncoder, TextDecoder, URL, Intl, structuredClone,
});
context.self = vm.runInContext('this', context);
context.self.postMessage = (message) => replies.push(message);
vm.runInContext(fs.readFileSync(path.join(workers, worker), 'utf8'), context, { filename: worker });
const listener = context.self.onmessage;
if (typeof listener !== 'function') throw new Error(`${worker} set no onmessage`);

async function send(message) {
  replies = [];
  // a copy, as postMessage hands a worker a structured clone: the worker changes what it is given
  listener({ data: structuredClone(message) });
  for (let i = 0; i < 1000 && !replies.length; i++) await new Promise((r) => setImmediate(r));
  if (replies.length !== 1) throw new Error(`expected one reply to message type ${message.type}, got ${replies.length}`);
  return replies[0];
}

const NO_TAGS = { input: { type: 'operator', data: { operator: 'and', operands: [] } },
                  aggregation: { input: [{ type: 'term', data: { field: 'tags' } }] } };

(async () => {
  const index = JSON.parse(fs.readFileSync(path.join(site, 'search.json'), 'utf8'));
  const ready = await send({ type: 0, data: index });
  if (ready.type !== 1) throw new Error(`setup answered type ${ready.type}`);
  const queries = JSON.parse(fs.readFileSync(0, 'utf8'));
  for (const q of queries) {
      const urls = [];
    let page;
    for (let step = 0; step < 20 && urls.length < 10; step++) {
      const result = await send({ type: 2, data: { input: q, filter: NO_TAGS, page } });
      if (result.type !== 3) throw new Error(`query answered type ${result.type}`);
      for (const item of result.data.items) {
        const url = index.items[item.id].location.split('#')[0];
        if (!urls.includes(url)) urls.push(url);
        if (urls.length === 10) break;
      }
      page = result.data.pagination.next;
      if (page === undefined) break;
    }
    process.stdout.write(JSON.stringify(urls) + '\n');
  }
})().catch((err) => { console.error(err); process.exit(1); });
