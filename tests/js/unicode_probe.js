// Prints what this engine's own Unicode support says, to find where it differs from the
// build's Python tables: {"word": [lo, hi, …] (/[\p{L}\p{N}\p{M}]/u), "assigned": [lo, hi, …],
// "lower": {hex: toLowerCase()} for code points it changes, "nfc": {hex: NFC} where NFC changes
// a lone code point, "unicode": process.versions.unicode}.
'use strict';
const word = /^[\p{L}\p{N}\p{M}]$/u;
const unassigned = /^\p{Cn}$/u;
function ranges(test) {
  const out = [];
  let start = -1;
  for (let cp = 0; cp <= 0x110000; cp++) {
    const ok = cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) && test(String.fromCodePoint(cp));
    if (ok && start < 0) start = cp;
    else if (!ok && start >= 0) { out.push(start, cp - 1); start = -1; }
  }
  return out;
}
const lower = {}, nfc = {};
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const c = String.fromCodePoint(cp);
  if (c.toLowerCase() !== c) lower[cp.toString(16)] = c.toLowerCase();
  if (c.normalize('NFC') !== c) nfc[cp.toString(16)] = c.normalize('NFC');
}
process.stdout.write(JSON.stringify({
  unicode: process.versions.unicode,
  word: ranges((c) => word.test(c)),
  assigned: ranges((c) => !unassigned.test(c)),
  lower, nfc,
}));
