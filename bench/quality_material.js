// Material for MkDocs' own search, run in Node over a built site: the site's search worker
// (assets/javascripts/workers/search.<hash>.min.js, lunr bundled in it) is evaluated
// unchanged in a VM context that stands in for a Web Worker — `self`, `addEventListener`
// ("message") and `postMessage` — and is driven through its message API as Material's
// page does: SETUP (type 0) with search/search_index.json's config and docs and
// {suggest: false}, answered by READY (type 1); then one QUERY (type 2) per query with
// the raw text the search box holds, answered by RESULT (type 3) whose `items` are the
// result groups, one per page, in rank order.  Printed: one JSON line per query, the
// page URLs of the groups (the location before any '#'), best first.
//
// Usage: node quality_material.js SITE_DIR < queries.json (a JSON array of strings)
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const site = process.argv[2];
const workers = path.join(site, 'assets', 'javascripts', 'workers');
const worker = fs.readdirSync(workers).find((f) => /^search\.[0-9a-f]+\.min\.js$/.test(f));
if (!worker) throw new Error(`no Material search worker in ${workers}`);

let listener = null;
let replies = [];
const context = vm.createContext({
  console: { log: () => {}, warn: () => {}, error: console.error },
  addEventListener: (type, fn) => { if (type === 'message') listener = fn; },
  postMessage: (message) => replies.push(message),
  importScripts: () => { throw new Error('importScripts: only English sites are supported here'); },
  setTimeout, clearTimeout, Promise, TextEncoder, TextDecoder, URL,
});
context.self = vm.runInContext('this', context);
vm.runInContext(fs.readFileSync(path.join(workers, worker), 'utf8'), context, { filename: worker });
if (!listener) throw new Error(`${worker} registered no message listener`);

async function send(message) {
  replies = [];
  listener({ data: message });
  for (let i = 0; i < 1000 && !replies.length; i++) await new Promise((r) => setImmediate(r));
  if (replies.length !== 1) throw new Error(`expected one reply to message type ${message.type}, got ${replies.length}`);
  return replies[0];
}

(async () => {
  const index = JSON.parse(fs.readFileSync(path.join(site, 'search', 'search_index.json'), 'utf8'));
  const ready = await send({ type: 0, data: { config: index.config, docs: index.docs, options: { suggest: false } } });
  if (ready.type !== 1) throw new Error(`setup answered type ${ready.type}`);
  const queries = JSON.parse(fs.readFileSync(0, 'utf8'));
  for (const q of queries) {
    const result = await send({ type: 2, data: q });
    if (result.type !== 3) throw new Error(`query answered type ${result.type}`);
    const urls = [];
    for (const group of result.data.items) {
      const page = group[0].location.split('#')[0];
      if (!urls.includes(page)) urls.push(page);
      if (urls.length === 10) break;
    }
    process.stdout.write(JSON.stringify(urls) + '\n');
  }
})().catch((err) => { console.error(err); process.exit(1); });
