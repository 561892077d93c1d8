/* JavaScript only: JavaScript strings are UTF-16, Python's are code points. These helpers
 * count, slice and compare by code point as Python does, and give a string's UTF-8 bytes. */
define('core/strings', function () {
  'use strict';
  function cpAt(s, i) { return s.codePointAt(i); }
  // Python's len(s)
  function cpLen(s) {
    var n = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 0xdc00 || c > 0xdfff || i === 0 || (s.charCodeAt(i - 1) & 0xfc00) !== 0xd800) n++;
    }
    return n;
  }
  // Python's s[a:b] for 0 <= a <= b
  function cpSlice(s, a, b) {
    var i = 0, n = 0, start = -1;
    while (i < s.length && n < b) {
      if (n === a) start = i;
      i += cpAt(s, i) > 0xffff ? 2 : 1;
      n++;
    }
    if (start < 0) start = n === a ? i : s.length;
    return s.slice(start, i);
  }
  // Python's s.encode("utf-8") as a list of bytes
  function utf8(s) {
    var out = [];
    for (var i = 0; i < s.length; i++) {
      var c = cpAt(s, i);
      if (c > 0xffff) i++;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | c >> 6, 0x80 | c & 63);
      else if (c < 0x10000) out.push(0xe0 | c >> 12, 0x80 | c >> 6 & 63, 0x80 | c & 63);
      else out.push(0xf0 | c >> 18, 0x80 | c >> 12 & 63, 0x80 | c >> 6 & 63, 0x80 | c & 63);
    }
    return out;
  }
  // Python's s.isascii()
  function isAscii(s) { return !/[^\x00-\x7f]/.test(s); }
  // Python's str order (code points), not UTF-16 order
  function cpCompare(a, b) {
    var x = Array.from(a), y = Array.from(b);
    for (var i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return cpAt(x[i], 0) - cpAt(y[i], 0);
    return x.length - y.length;
  }
  // bisect.bisect_right(a, x)
  function bisectRight(a, x) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (x < a[mid]) hi = mid; else lo = mid + 1; }
    return lo;
  }
  // bisect.bisect_left(a, x)
  function bisectLeft(a, x) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  }
  return { cpAt: cpAt, cpLen: cpLen, cpSlice: cpSlice, utf8: utf8, isAscii: isAscii, cpCompare: cpCompare,
    bisectRight: bisectRight, bisectLeft: bisectLeft };
});
