/* Mirrors okf_sphinx/core/semantic.py: semantic mode's shared rules — word pieces, token shards,
 * the vectors' text form and the one score formula (docs/index-format.md, "Semantic vectors").
 * Strings are cut by code points, as Python cuts them; every score is integer arithmetic, then
 * sqrt, × and ÷, each correctly rounded in both languages. */
define('core/semantic', function (use) {
  'use strict';
  var C = use('core/constants'), fmt = use('core/index_format');

  // The text that places a vocabulary piece in a token shard: the continuation prefix (when the
  // piece has it) and the first KEY_CODE_POINTS code points after it.
  function pieceKey(piece, prefix) {
    if (prefix && piece.slice(0, prefix.length) === prefix && piece.length > prefix.length) {
      return prefix + Array.from(piece.slice(prefix.length)).slice(0, C.KEY_CODE_POINTS).join('');
    }
    return Array.from(piece).slice(0, C.KEY_CODE_POINTS).join('');
  }
  // w/<hex>: the token shard of a vocabulary piece.
  function tokenShard(piece, prefix, shards) { return 'w/' + (fmt.fnv1a32(pieceKey(piece, prefix)) % shards).toString(16); }
  // WordPiece: the greedy longest-match-first split of word into pieces; lookup(piece) resolves
  // to the piece's entry or null. null: the word is unknown (too long, or a position no piece matches).
  // multi (semantic.js, as checkCentroids gives it), when given: the two Sets of code points that
  // start a piece of two or more code points (without, then with the prefix); elsewhere only the
  // one-code-point piece is looked up.
  async function wordPieces(word, lookup, prefix, maxChars, multi) {
    var cps = Array.from(word);
    if (cps.length > maxChars) return null;
    var out = [], start = 0;
    while (start < cps.length) {
      var end = !multi || multi[start === 0 ? 0 : 1].has(cps[start]) ? cps.length : start + 1, entry = null;
      while (start < end) {
        var body = cps.slice(start, end).join('');
        entry = await lookup(start === 0 ? body : prefix + body);
        if (entry !== null && entry !== undefined) break;
        entry = null;
        end -= 1;
      }
      if (entry === null) return null;
      out.push(entry);
      start = end;
    }
    return out;
  }
  // The dims components written at text[start…]; null when a digit is not 1–f.
  function decodeVector(text, start, dims) {
    var out = [];
    for (var i = start; i < start + dims && i < text.length; i++) {
      var d = C.HEX.indexOf(text.charAt(i));
      if (d < 1) return null;
      out.push(d - 8);
    }
    return out.length === dims ? out : null;
  }
  // A token shard's entry (two hex digits of scale, then the vector) as the token's integer
  // vector scale × component; null when malformed.
  function tokenEntry(text, dims) {
    if (typeof text !== 'string' || text.length !== 2 + dims || C.HEX.indexOf(text.charAt(0)) < 0 || C.HEX.indexOf(text.charAt(1)) < 0) return null;
    var scale = parseInt(text.slice(0, 2), 16), values = decodeVector(text, 2, dims);
    if (scale < 1 || values === null) return null;
    return values.map(function (v) { return scale * v; });
  }
  function addInto(total, vector) { for (var i = 0; i < vector.length; i++) total[i] += vector[i]; }
  function dot(a, b) {
    var s = 0;
    for (var i = 0; i < a.length; i++) s += a[i] * b[i];
    return s;
  }
  // d / (sqrt(qq) * sqrt(vv)): integers below 2**53 until sqrt, then three correctly rounded operations.
  function cosine(d, qq, vv) { return d / (Math.sqrt(qq) * Math.sqrt(vv)); }

  return {
    pieceKey: pieceKey, tokenShard: tokenShard, wordPieces: wordPieces, decodeVector: decodeVector, tokenEntry: tokenEntry,
    addInto: addInto, dot: dot, cosine: cosine
  };
});
