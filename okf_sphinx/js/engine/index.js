/* Mirrors okf_sphinx/engine/index.py: a built index opened for querying — one build per
 * request, and cached, checked file loads (each through its engine/validators.js check). */
define('engine/index', function (use, root) {
  'use strict';
  var C = use('core/constants'), S = use('core/strings'), errors = use('core/errors'), fmt = use('core/index_format');
  var terms = use('core/terms'), V = use('engine/validators'), source = use('engine/source');
  var OkfError = errors.OkfError;
  var own = Object.prototype.hasOwnProperty;

  // One term's decoded postings: parallel arrays of sid, weighted f and length.
  function Posting(idf, df, sids, freqs, lengths) {
    this.idf = idf;
    this.df = df;
    this.sids = sids;
    this.freqs = freqs;
    this.lengths = lengths;
    this._parts = null;
    this._positions = null;
    this._ranked = null;
  }
  // the term's BM25 part in each of its sections
  Posting.prototype.parts = function (avglen, k1, b) {
    if (this._parts === null) {
      var idf = this.idf, fs = this.freqs, ns = this.lengths;
      this._parts = fs.map(function (f, i) { return fmt.bm25Part(idf, f, ns[i], avglen, k1, b); });
    }
    return this._parts;
  };
  // [-score, sid] of every section as a one-term query ranks them, best first
  Posting.prototype.ranked = function (avglen, k1, b) {
    if (this._ranked === null) {
      var sids = this.sids;
      this._ranked = this.parts(avglen, k1, b).map(function (x, i) { return [-x, sids[i]]; }).sort(byNegScore);
    }
    return this._ranked;
  };
  Object.defineProperty(Posting.prototype, 'positions', {
    get: function () {
      if (this._positions === null) {
        var m = this._positions = new Map();
        this.sids.forEach(function (sid, i) { m.set(sid, i); });
      }
      return this._positions;
    }
  });
  function byNegScore(x, y) { return x[0] !== y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] - y[1]; }

  // One build of the index as this reader knows it: its manifest, its loaded files and what
  // was derived from them.
  function State(manifest) {
    this.manifest = manifest;
    this.files = new Map();
    this.memo = new Map();
  }

  // loader(name, fresh): engine/source.js
  function Index(loader) {
    this.loader = loader;
    this.state = null;
    this.reads = 0;  // files requested so far (a request that read none needs no re-check)
    this.opening = null;
  }
  // JavaScript only: semantic mode's code (okf-semantic.js) and the filters and expansion it uses
  // (okf-options.js), read when a request first needs them (engine/source.js loadPart)
  function semanticPart() { return Promise.all([source.loadPart('okf-semantic.js'), source.loadPart('okf-options.js')]); }
  // JavaScript only: the manifest is read when first needed (Python reads it on open).
  Index.prototype.open = function () {
    var self = this;
    if (this.state) return Promise.resolve(this.state.manifest);
    if (!this.opening) {
      this.opening = Promise.resolve().then(function () { return self.loader('manifest'); }).then(function (got) {
        var m = manifestOf(got);
        if (!self.state) self.state = new State(m);
        return self.state.manifest;
      });
      this.opening.catch(function () { self.opening = null; });
    }
    return this.opening;
  };
  function getter(name, get) { Object.defineProperty(Index.prototype, name, { get: get }); }
  getter('manifest', function () { return this.state ? this.state.manifest : null; });
  getter('snapshotRevision', function () { return this.state.manifest.snapshot_revision; });
  getter('indexRevision', function () { return this.state.manifest.index_revision; });
  getter('sectionCount', function () { return this.state.manifest.sections; });
  getter('sectionsAll', function () { return this.state.manifest.sections_all; });
  getter('avglen', function () { return this.state.manifest.avglen; });
  getter('shards', function () { return this.state.manifest.shards; });
  getter('bm25', function () { return [this.state.manifest.k1, this.state.manifest.b]; });

  // fn() answered from one build of the index. Every file it reads must name the manifest's
  // build (load, ofBuild); a file of another build (index_changed) has the manifest read again
  // past any cache — even one read in this very request, which may be the stale one. When the
  // loader can re-read the manifest cheaply (loader.revalidate: Node) it is also read again
  // after a request that read files; in the browser (a fresh manifest costs a round trip per
  // query) only when a file fails its checks. A changed index_revision means the site was
  // rebuilt under the request: the index drops what it cached and answers again from the new build.
  Index.prototype.consistent = function (fn) {
    var self = this, attempts = 0;
    function again(changed, otherwise) {
      if (!changed) return otherwise();
      if (++attempts >= C.MAX_ATTEMPTS) throw new OkfError('source_unavailable', 'the index was rebuilt ' + C.MAX_ATTEMPTS + ' times while answering; ask again');
      return once();
    }
    function once() {
      var reads = self.reads, known = !!self.state;
      return Promise.resolve().then(fn).then(function (result) {
        if (!self.loader.revalidate || self.reads === reads) return result;
        return moved(self).then(function (changed) { return again(changed, function () { return result; }); });
      }, function (err) {
        var suspect = err instanceof OkfError && self.reads !== reads
          && (err.code === 'index_changed' || (known && (err.code === 'index_corrupt' || self.loader.revalidate)));
        if (!suspect) throw err;
        return moved(self).then(function (changed) { return again(changed, function () { throw err; }); });
      });
    }
    return once();
  };
  // Has the manifest changed? If so, move to the new build.
  function moved(index) {
    var old = index.state;
    return Promise.resolve().then(function () { return index.loader('manifest', true); }).then(function (got) {
      var m = manifestOf(got);
      if (!old || m.index_revision === old.manifest.index_revision) return false;
      index.state = new State(m);
      return true;
    });
  }

  // The checked manifest of [build, value] as a loader gives it: its wrapper names its build.
  function manifestOf(got) {
    var m = V.checkManifest('manifest', got[1]);
    if (m.build !== got[0]) throw V.corrupt('manifest', 'its build is not the one its wrapper names');
    return m;
  }
  // The value of a loaded file ([build, value]) of the build the index answers from (index.py
  // Index._read_value): a file of another build is loaded once more past any cache, then it is
  // index_changed (consistent then reads the manifest again).
  function ofBuild(index, name, got) {
    var want = index.state.manifest.build;
    if (got[0] === want) return got[1];
    return Promise.resolve().then(function () { return index.loader(name, true); }).then(function (again) {
      if (again[0] !== want) {
        throw new OkfError('index_changed', 'index file ' + name + '.js belongs to another build (' + (again[0] || 'none') +
          ') than manifest.js (' + want + '): the site was rebuilt or is being deployed, or a cache serves files of two builds; ask again',
          { file: name + '.js', build: again[0], manifest_build: want });
      }
      return again[1];
    });
  }

  // A value derived from index files, cached with them (a Promise is kept unless it fails).
  Index.prototype.memo = function (key, compute) {
    var m = this.state.memo;
    if (m.has(key)) return m.get(key);
    var v = compute();
    m.set(key, v);
    if (v && typeof v.then === 'function') v.then(null, function () { if (m.get(key) === v) m.delete(key); });
    return v;
  };
  // Index file name, read once and passed through check (an engine/validators.js check).
  // Its own file, or its part of the bundle b/<k> the manifest's bundles puts it in (read once for all its parts).
  Index.prototype.load = function (name, check) {
    var files = this.state.files, self = this;
    if (!files.has(name)) {
      try { source.checkName(name); } catch (e) { return Promise.reject(e); }
      var st = this.state;
      if (!st.bundles) st.bundles = V.bundleMap(st.manifest.bundles === undefined ? [] : st.manifest.bundles) || new Map();
      var bundle = st.bundles.get(name), p;
      if (bundle === undefined) {
        this.reads++;
        p = Promise.resolve().then(function () { return self.loader(name); }).then(function (got) { return ofBuild(self, name, got); });
      } else {
        p = this.load(bundle, null).then(function (v) {
          if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.prototype.hasOwnProperty.call(v, name)) {
            throw V.corrupt(bundle, 'it does not hold ' + name);
          }
          return v[name];
        });
      }
      p = p.then(function (v) { return check ? check(name, v) : v; });
      files.set(name, p);
      p.catch(function () { if (files.get(name) === p) files.delete(name); });
    }
    return files.get(name);
  };
  // the build's Unicode tables as a Normaliser
  Index.prototype.normaliser = function () { return this.load('unicode', V.checkUnicode); };
  // JavaScript only: the Normaliser for text: without tables when it is ASCII
  Index.prototype.normaliserFor = function (text) {
    return S.isAscii(text) ? Promise.resolve(terms.ASCII) : this.normaliser();
  };
  // The build's stemmer (null: the build did not stem): a term's posting list sits in its stem's shard.
  Index.prototype.stem = function () {
    var m = this.state.manifest;
    return this.memo('stemmer', function () { return [stemmerOf(m)]; })[0];
  };
  var stemmers = root && root.OkfStemmer ? root.OkfStemmer : null;
  if (!stemmers && typeof require === 'function') { try { stemmers = require('./okf-stemmer.js'); } catch (e) { stemmers = null; } }
  function stemmerOf(manifest) {
    var m = V.checkStemmerBlock(manifest.smart);
    if (!m.stemmer) return null;
    var have = stemmers || (root && root.OkfStemmer) || null, version = have ? have.VERSION : 'no';
    var stem = have && m.stemmer_version === have.VERSION ? have.forLanguage(m.language) : null;
    if (!stem) {
      throw new OkfError('index_version_unsupported', 'this index was built with the ' + m.stemmer_version + ' stemmer for ' +
        errors.jsonText(m.language) + ', which this okf_sphinx does not have (it has ' + version +
        '): rebuild the site or use the okf_sphinx that built it', { found: m.stemmer_version, supported: [version] });
    }
    return stem;
  }
  // BM25's idf of a section df (pages: of a page df, smart mode's page idf) exactly as the build
  // computed it: core/index_format.js storedIdf with the manifest's idf steps.
  Index.prototype.idf = function (df, pages) {
    var m = this.state.manifest, block = pages ? V.checkSmart(m.smart) : m;
    var n = pages ? block.pages : m.sections, text = block.idf_steps;
    var steps = this.memo(pages ? 'idf_steps:pages' : 'idf_steps', function () { return fmt.readIdfSteps(text); });
    if (steps === null || !(fmt.isInt(df) && df >= 1 && df <= n)) throw V.corrupt('manifest', 'a document frequency or the idf steps are out of range');
    return fmt.storedIdf(n, df, steps);
  };
  // JavaScript only (Python: engine/spelling.py dictionary): [term, df] of the site's terms that
  // start with key, most frequent first — here so that smart mode's completions need not read
  // the spelling part of the runtime (okf-spelling.js)
  Index.prototype.dictionary = async function (key) {
    var shard = await this.load(fmt.dictShardName(key, V.checkSmart(this.manifest.smart).dict_shards), V.checkDict);
    return own.call(shard, key) ? shard[key] : [];
  };
  // the posting shard t/<hex> that holds term (and its stem group)
  Index.prototype.shardOf = function (term) { return this.keyShard(fmt.postingKey(term, this.stem())); };
  // the posting shard t/<hex> of posting key key (a stem group's stem)
  Index.prototype.keyShard = function (key) {
    var m = this.state.manifest;
    return fmt.shardName(key, m.shards, 't', m.shard_depths);
  };
  Index.prototype.shard = function (name) { return this.load(name, V.checkShard); };
  // The decoded posting list of term, or null when no searchable section has it
  // (folder 'x': smart mode's identifier postings, in shards shards).
  Index.prototype.posting = function (term, folder, shards) {
    var self = this, shardName;
    folder = folder || 't';
    return Promise.resolve().then(function () {
      if (folder === 't') {
        shardName = self.shardOf(term);
        return self.shard(shardName).then(function (s) { return s.terms; });
      }
      shardName = fmt.shardName(term, shards || 1, folder);
      return self.load(shardName, V.checkEntries);
    }).then(function (entries) {
      if (!own.call(entries, term)) return null;
      var e = entries[term];
      return self.memo(folder === 't' ? 'posting:' + term : 'posting:' + folder + ':' + term, function () {
        var digits = typeof e === 'string' ? e : self.load(source.checkName(e[1][0]), V.checkFlat);
        return Promise.resolve(digits).then(function (digits) {
          var p = V.checkPostings(shardName, digits, typeof e === 'string' ? null : e[0], self.sectionCount);
          return new Posting(self.idf(p[0].length), p[0].length, p[0], p[1], p[2]);
        });
      });
    });
  };
  // The record of section sid, from the section file s/<k> that holds it.
  Index.prototype.section = function (sid) {
    var self = this;
    if (!fmt.isInt(sid) || sid < 0 || sid >= this.sectionsAll) return Promise.reject(new OkfError('not_found', 'no section ' + errors.jsonText(sid) + ' in this index'));
    var starts = this.memo('section_starts', function () { return fmt.sectionStarts(self.manifest.section_files); });
    var k = fmt.sectionFileOf(starts, sid), end = k + 1 < starts.length ? starts[k + 1] : this.sectionsAll;
    return this.load('s/' + k, function (name, chunk) { return V.checkSections(name, chunk, starts[k], end); })
      .then(function (records) { return records[sid - starts[k]]; });
  };
  Index.prototype.concepts = function () { return this.load('concepts', V.checkConcepts); };
  // Page n's outline: entry n mod P of p/<n div P> (P: the manifest's pages_per_file).
  Index.prototype.page = function (n) {
    var per = this.manifest.pages_per_file, count = this.manifest.concepts;
    if (!fmt.isInt(n) || n < 0 || n >= count) return Promise.reject(V.corrupt('concepts', 'a concept refers to page ' + errors.jsonText(n) + ', past the ' + count + ' pages'));
    var k = Math.floor(n / per);
    return this.load('p/' + k, V.checkPages(Math.min(per, count - k * per))).then(function (pages) { return pages[n % per]; });
  };

  // search_sections: search(query, limit, opts) or search(query, {mode, limit, …options});
  // opts.present (JavaScript only) adds presentation fields to hits (url, title, level,
  // snippet_offset, text_length; kind and signature for objects).
  Index.prototype.search = function (query, limit, opts) {
    if (limit !== null && typeof limit === 'object' && !Array.isArray(limit)) { opts = limit; limit = opts.limit; }
    opts = opts || {};
    var self = this, mode = opts.mode !== undefined ? opts.mode : 'keyword', present = !!opts.present, options = {};
    for (var k in opts) if (own.call(opts, k) && k !== 'mode' && k !== 'limit' && k !== 'present' && opts[k] !== undefined) options[k] = opts[k];
    var names = Object.keys(options).sort();
    if (mode === 'keyword') {
      if (names.length) {
        return Promise.reject(new OkfError('schema_validation', names[0] + " applies to mode 'smart' only; add mode='smart' or leave it out", { field: names[0] }));
      }
      return this.consistent(function () { return use('engine/query').search(self, query, limit, present); });
    }
    if (mode === 'smart') {
      var unknown = names.filter(function (n) { return C.OPTIONS.indexOf(n) < 0; });
      if (unknown.length) {
        return Promise.reject(new OkfError('schema_validation', 'search does not take ' + errors.jsonText(unknown[0]) +
          '; smart mode takes ' + C.OPTIONS.join(', '), { field: unknown[0] }));
      }
      return this.consistent(function () {
        return self.open().then(function (m) {
          if (m.semantic !== undefined) {  // words and meaning: semantic mode's code is read now
            return semanticPart().then(function () { return use('engine/semantic').blend(self, query, limit, options, present); });
          }
          return use('engine/smart').search(self, query, limit, options, present);
        });
      });
    }
    if (mode === 'semantic') {
      var other = names.filter(function (n) { return C.SEMANTIC_OPTIONS.indexOf(n) < 0; });
      if (other.length) {
        return Promise.reject(new OkfError('schema_validation', 'search does not take ' + errors.jsonText(other[0]) +
          '; semantic mode takes ' + C.SEMANTIC_OPTIONS.join(', '), { field: other[0] }));
      }
      return this.consistent(function () {
        return semanticPart().then(function () { return use('engine/semantic').search(self, query, limit, options, present); });
      });
    }
    return Promise.reject(new OkfError('schema_validation', "mode must be 'keyword', 'smart' or 'semantic', got " + errors.jsonText(mode), { field: 'mode' }));
  };

  return { Posting: Posting, Index: Index };
});
