/* Mirrors okf_sphinx/engine/vector_files.py: the checks semantic mode's files pass (the
 * manifest's semantic block, w/, semantic.js, v/) — engine/validators.js' rules for the files
 * only semantic mode reads, in its part of the runtime (okf-semantic.js). */
define('engine/vector_files', function (use) {
  'use strict';
  var errors = use('core/errors'), fmt = use('core/index_format'), V = use('engine/validators');
  var OkfError = errors.OkfError, isInt = fmt.isInt, decodeInts = fmt.decodeInts;
  var corrupt = V.corrupt, isObject = V.isObject, isStr = V.isStr;
  var own = Object.prototype.hasOwnProperty;

  function checkSemantic(m, setting) {
    if (m === undefined || m === null) {
      throw new OkfError('semantic_unavailable', 'this index has no semantic vectors: its site names no embedding model. Add ' + setting +
        ' = "<model folder>" to conf.py (semantic_model in the MkDocs plugin\'s options) and rebuild the site, or use mode=\'smart\'',
        { setting: setting });
    }
    if (!(isObject(m) && ['dims', 'max_chars', 'token_shards', 'clusters', 'probe', 'vectors'].every(function (k) { return isInt(m[k]) && m[k] >= 0; })
      && m.dims >= 1 && m.token_shards >= 1 && m.probe >= 1 && isStr(m.prefix) && isStr(m.model))) {
      throw corrupt('manifest', 'the semantic block is missing or invalid');
    }
    return m;
  }
  function checkTokens(dims) {
    var sem = use('core/semantic');
    return function (name, v) {
      if (!isObject(v)) throw corrupt(name, 'a token shard is malformed');
      var out = new Map();
      Object.keys(v).forEach(function (piece) {
        var vector = sem.tokenEntry(v[piece], dims);
        if (vector === null) throw corrupt(name, 'the entry of piece ' + errors.jsonText(piece) + ' is malformed');
        out.set(piece, vector);
      });
      return { get: function (piece) { return out.has(piece) ? out.get(piece) : null; } };
    };
  }
  function vectorsOf(name, text, count, dims) {
    var sem = use('core/semantic');
    if (!isStr(text) || text.length !== count * dims) throw corrupt(name, 'the vectors are malformed');
    var out = [];
    for (var i = 0; i < count; i++) {
      var v = sem.decodeVector(text, i * dims, dims);
      if (v === null) throw corrupt(name, 'the vectors are malformed');
      out.push([v, sem.dot(v, v)]);
    }
    return out;
  }
  function checkCentroids(clusters, dims) {
    return function (name, v) {
      if (!isObject(v)) throw corrupt(name, 'the centroid table is malformed');
      var multi = own.call(v, 'multi') ? v.multi : null;
      if (multi !== null && !(Array.isArray(multi) && multi.length === 2 && multi.every(isStr))) throw corrupt(name, 'the piece starts are malformed');
      // multi: the two strings as Sets of code points, made once per load (wordPieces tests each position)
      return { centroids: vectorsOf(name, v.centroids, clusters, dims),
               multi: multi === null ? null : [new Set(Array.from(multi[0])), new Set(Array.from(multi[1]))] };
    };
  }
  function checkCluster(dims, sections) {
    return function (name, v) {
      var deltas = isObject(v) ? decodeInts(v.sids) : null;
      if (!deltas || !deltas.length) throw corrupt(name, 'a cluster is malformed');
      var sids = [], sid = -1;
      deltas.forEach(function (d, i) {
        if (i && d === 0) throw corrupt(name, "a cluster's sections are out of order");
        sid = i === 0 ? d : sid + d;
        if (sid >= sections) throw corrupt(name, 'a cluster refers to a section past the searchable ones');
        sids.push(sid);
      });
      var vs = vectorsOf(name, v.vectors, sids.length, dims);
      return sids.map(function (s, i) { return [s, vs[i][0], vs[i][1]]; });
    };
  }

  return { checkSemantic: checkSemantic, checkTokens: checkTokens, checkCentroids: checkCentroids, checkCluster: checkCluster };
});
