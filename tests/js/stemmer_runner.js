// Stem a JSON array of words read from stdin with okf-stemmer.js; print the JSON array of
// stems (null for a language without a stemmer).  Usage: node stemmer_runner.js LANG
'use strict';
const path = require('path');
const OkfStemmer = require(path.join(__dirname, '..', '..', 'okf_sphinx', 'static', 'okf-stemmer.js'));
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const words = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const stem = OkfStemmer.forLanguage(process.argv[2] || null);
  const out = stem === null ? null : words.map(stem);
  process.stdout.write(JSON.stringify({
    version: OkfStemmer.VERSION,
    algorithm: OkfStemmer.algorithmFor(process.argv[2] || null),
    languages: OkfStemmer.supportedLanguages(),
    stems: out,
  }));
});
