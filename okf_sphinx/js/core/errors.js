/* Mirrors okf_sphinx/core/errors.py: the one error type every surface raises, carrying the
 * contract's envelope, and how a message quotes a value (JSON, as JSON.stringify writes it). */
define('core/errors', function (use) {
  'use strict';
  var C = use('core/constants');
  var own = Object.prototype.hasOwnProperty;

  // A refused operation: code is one of EXIT_CODES; details are extra envelope fields.
  function OkfError(code, message, details) {
    if (!own.call(C.EXIT_CODES, code)) throw new Error('unknown okf error code ' + jsonText(code));
    var e = { code: code, message: message };
    for (var k in details || {}) if (own.call(details, k)) e[k] = details[k];
    this.code = code;
    this.message = message;
    this.details = details || {};
    this.envelope = { error: e };
  }
  OkfError.prototype = Object.create(Error.prototype);
  OkfError.prototype.name = 'OkfError';

  // A value as an error message quotes it: JSON.stringify's form with object keys sorted
  // (UTF-16 order, RFC 8785), NaN and infinities as String() writes them (json_text).
  function jsonText(value) {
    if (typeof value === 'number') return isFinite(value) ? JSON.stringify(value) : String(value);
    if (Array.isArray(value)) return '[' + value.map(jsonText).join(',') + ']';
    if (value !== null && typeof value === 'object') {
      return '{' + Object.keys(value).sort().map(function (k) { return JSON.stringify(k) + ':' + jsonText(value[k]); }).join(',') + '}';
    }
    return value === undefined ? 'null' : JSON.stringify(value);
  }

  return { OkfError: OkfError, jsonText: jsonText };
});
