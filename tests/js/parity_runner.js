// Parity runner: answers JSON-lines requests on stdin with okf-search.js in Node.
//   OKF_RUNTIME=<assembled okf-search.js> node parity_runner.js <_okf folder> [--cold]
// Request: {"query": …, "limit": …, "mode": …, …options} (all but query may be absent).  Response line: the result
// or the error envelope, exactly as Python's Index.search would give it.  With --cold
// every request gets a fresh engine and the line is {"answer": …, "loaded": [names]}.
'use strict';
const path = require('path');
const okf = require(path.resolve(process.env.OKF_RUNTIME));

const dir = process.argv[2];
const cold = process.argv.includes('--cold');
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', async () => {
  const base = okf.nodeLoader(dir);
  let loaded = [];
  const tracing = (name) => { loaded.push(name); return base(name); };
  let engine = new okf.Index(tracing);
  const out = [];
  for (const line of input.split('\n')) {
    if (!line.trim()) continue;
    const req = JSON.parse(line);
    if (cold) { engine = new okf.Index(tracing); loaded = []; }
    let answer;
    try {
      const extra = Object.keys(req).filter((k) => k !== 'query' && k !== 'limit');
      if (extra.length) {  // search(query, {mode, limit, …options})
        const opts = Object.assign({}, req);
        delete opts.query;
        answer = await engine.search(req.query, opts);
      } else {
        answer = await engine.search(req.query, 'limit' in req ? req.limit : undefined);
      }
    } catch (e) {
      answer = e instanceof okf.OkfError ? e.envelope : { crash: String((e && e.stack) || e) };
    }
    out.push(JSON.stringify(cold ? { answer, loaded } : answer));
  }
  process.stdout.write(out.join('\n') + '\n');
});
