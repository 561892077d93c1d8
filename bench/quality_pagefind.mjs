// Pagefind over a built site, offline, in Node: its own indexer and its own runtime.
//
//   node quality_pagefind.mjs index SITE_DIR OUT_DIR   (Pagefind's Node API, default config)
//   node quality_pagefind.mjs query OUT_DIR < queries.json
//
// `query` imports OUT_DIR/pagefind.js (the runtime a browser would load) with a fetch()
// that reads file:// URLs from disk, runs pagefind.search(q) for each query of a JSON
// array of strings and prints one JSON line per query: the URLs of the first 10
// results, best first (result.data() loads each result's fragment, as a page would).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [mode, a, b] = process.argv.slice(2);

if (mode === 'index') {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const pagefind = await import(pathToFileURL(path.join(here, 'node_modules', 'pagefind', 'lib', 'index.js')).href);
  const { index, errors } = await pagefind.createIndex({ keepIndexUrl: true });
  if (errors.length) throw new Error(errors.join('\n'));
  const added = await index.addDirectory({ path: path.resolve(a) });
  if (added.errors.length) throw new Error(added.errors.join('\n'));
  const written = await index.writeFiles({ outputPath: path.resolve(b) });
  if (written.errors.length) throw new Error(written.errors.join('\n'));
  await pagefind.close();
  process.stdout.write(JSON.stringify({ pages: added.page_count }) + '\n');
} else if (mode === 'query') {
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (url, init) => {
    const u = new URL(String(url));
    if (u.protocol !== 'file:') return realFetch(url, init);
    const body = fs.readFileSync(fileURLToPath(u));
    const type = u.pathname.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
    return new Response(body, { status: 200, headers: { 'content-type': type } });
  };
  const dir = path.resolve(a);
  const pagefind = await import(pathToFileURL(path.join(dir, 'pagefind.js')).href);
  await pagefind.options({ basePath: pathToFileURL(dir).href + '/', baseUrl: '/' });
  await pagefind.init();
  const queries = JSON.parse(fs.readFileSync(0, 'utf8'));
  for (const q of queries) {
    const found = await pagefind.search(q);
    const top = found && found.results ? found.results.slice(0, 10) : [];
    const urls = [];
    for (const r of top) urls.push((await r.data()).url);
    process.stdout.write(JSON.stringify(urls) + '\n');
  }
} else {
  process.stderr.write('usage: quality_pagefind.mjs index SITE OUT | query OUT < queries.json\n');
  process.exit(2);
}
