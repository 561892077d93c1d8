/* Mirrors okf_sphinx/engine/object_names.py (its smart part; the reading tools' lookup by name,
 * find_object, runs in Python only): the objects a whole query names, by tier. */
define('engine/object_names', function (use) {
  'use strict';
  var C = use('core/constants'), fmt = use('core/index_format'), V = use('engine/validators');
  var own = Object.prototype.hasOwnProperty;

  // sid -> tier of the searchable objects (of kinds) the whole query names (n/<shard>)
  async function named(index, query, kinds) {
    var shards = V.checkSmart(index.manifest.smart).name_shards, written = fmt.objectNameQuery(query);
    if (!shards || written === null) return new Map();
    var q = fmt.asciiLower(written), key = fmt.nameKey(q);
    var shard = await index.load(fmt.nameShardName(key, shards), V.checkNames);
    var out = new Map();
    function endsWith(s, tail) { return s.length > tail.length && s.slice(-tail.length - 1) === '.' + tail; }
    (own.call(shard, key) ? shard[key] : []).forEach(function (e) {
      var name = e[0], kind = e[1], sid = e[2];
      if (kinds !== null && kinds.indexOf(kind) < 0) return;
      if (sid >= index.sectionCount) throw V.corrupt('manifest', 'an object-name shard refers to a section past the searchable ones');
      var lowered = fmt.asciiLower(name);
      if (lowered === q) out.set(sid, name === written ? C.FULL_NAME : C.FULL_NAME_ANY_CASE);
      else if (endsWith(lowered, q)) out.set(sid, endsWith(name, written) ? C.TAIL_NAME : C.TAIL_NAME_ANY_CASE);
    });
    return out;
  }

  return { named: named };
});
