/* JavaScript only: readable excerpts — a hit's snippet (the contract's exact source text) as
 * the text a reader sees, for display only (the dialog and the search page): roles, literals,
 * links, emphasis, substitutions and footnote references, heading underlines, rules and table
 * borders, directive markers, their options and arguments that are not prose, comments and
 * targets are dropped. */
define('surfaces/readable', function () {
  'use strict';
  // (\x60 is a backquote: the runtime's sources hold none, tests/test_js_mirror.py)
  var ROLE_RST = /:([A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)*):\x60([^\x60]+)\x60/g;
  var ROLE_MYST = /\{([A-Za-z][\w.:+-]*)\}\x60([^\x60]+)\x60/g;
  function roleText(role, s) {
    var m = /^([\s\S]*?)\s*<([^<>]*)>$/.exec(s);  // 'title <target>'
    if (m) s = m[1] || m[2];
    else if (s.charAt(0) === '~') { s = s.slice(1); s = s.slice(s.lastIndexOf('.') + 1); }
    s = s.replace(/^!/, '');
    if (role === 'doc' && !m) s = s.replace(/\/+$/, '').split('/').pop();  // :doc:'/guide/reqcontext': its last part
    return /^(pep|rfc)$/i.test(role) && /^\d/.test(s) ? role.toUpperCase() + ' ' + s : s;
  }
  function inline(t) {
    return t
      .replace(ROLE_MYST, function (_, r, x) { return roleText(r.split(':').pop(), x); })
      .replace(ROLE_RST, function (_, r, x) { return roleText(r.split(':').pop(), x); })
      .replace(/\x60\x60([^\x60]+?)\x60\x60/g, '$1')
      .replace(/\x60([^\x60<]*?)\s*<([^\x60>]*)>\x60__?/g, function (_, a, b) { return a || b; })  // 'text <url>'_
      .replace(/\x60([^\x60]+)\x60__?(?![\w])/g, '$1')
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')  // ![alt](src)
      .replace(/\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])/g, '$1')  // [text](url), [text][ref]
      .replace(/<((?:https?|ftp|mailto):[^<>\s]+)>/g, '$1')
      .replace(/\x60([^\x60]+)\x60/g, '$1')
      .replace(/\*\*(\S(?:[^*]*?\S)?)\*\*/g, '$1')
      .replace(/(^|[\s(["'])\*(\S(?:[^*]*?\S)?)\*(?=$|[\s)\].,;:!?'"])/g, '$1$2')
      .replace(/\s?\[(?:#[\w-]*|\d+|\*)\]_/g, '')  // footnote references
      .replace(/\|(\S(?:[^|]*?\S)?)\|(?!_)/g, '$1')  // |substitution|
      .replace(/\x60([^\x60<]*?)\s*<[^\x60>]*$/, '$1')  // a link cut by the snippet's end
      .replace(/^[^\x60<>\s]*>\x60__?/, '')  // ... or by its start
      .replace(/\x60\x60|\x60__?(?=\s|$)|\x60(?=[^\x60]*$)/g, '')  // other markup cut in two
      .replace(/\\([\\\x60*_{}[\]()#+\-.!|:<>~])/g, '$1');
  }
  // directives whose arguments are no prose a reader reads: code languages, file paths, module
  // names; a version directive's first argument is its version number (the rest of the line is prose)
  var NO_ARGUMENT = /^(?:[\w-]+:)?(?:code|code-block|sourcecode|highlight|literalinclude|include|currentmodule|module|image|figure|eval-rst|toctree|index|raw|testcode|testoutput|doctest|program|only|automodule|autoclass|autofunction|automethod|autoattribute|autodata|autoexception|autosummary|csv-table|list-table|table|tab-set|card|grid)$/;
  var VERSION = /^(?:versionadded|versionchanged|versionremoved|deprecated|deprecated-removed)$/;
  function argument(name, args) {
    if (NO_ARGUMENT.test(name)) return '';
    return VERSION.test(name) ? args.replace(/^\S+\s*/, '') : args;
  }
  // line by line: drop underlines, rules, fences, directive markers and options, comments and
  // targets; then the inline markup of the whole text (roles and links may span lines)
  // cutStart / cutEnd: the snippet starts / ends inside its section's text (snippet_offset > 0;
  // offset + length < text_length): the word cut there is dropped, not shown in part (a snippet
  // starts SNIPPET_LEAD code points before its first match, so the cut word is never the match)
  var CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
  function uncut(text, cutStart, cutEnd) {
    var m;
    if (cutStart && (m = /^\S{1,40}\s+/.exec(text)) && !CJK.test(m[0])) text = text.slice(m[0].length);
    if (cutEnd && (m = /\s+\S{1,40}$/.exec(text)) && !CJK.test(m[0])) text = text.slice(0, text.length - m[0].length);
    return text;
  }
  function readable(text, cutStart, cutEnd) {
    var out = [], opts = false;
    uncut(String(text), cutStart, cutEnd).replace(/\r\n?/g, '\n').split('\n').forEach(function (line) {
      var t = line.trim(), m;
      if (!t) { opts = false; return; }
      if (t.length >= 3 && /^[=\-~^"'\x60#*+<>_:.|\s]+$/.test(t)) { opts = false; return; }  // underlines, rules, table borders
      if ((m = /^(?:\x60{3,}|~{3,}|:{3,})\s*(\{[^}]*\})?\s*(.*)$/.exec(t))) {  // MyST / Markdown fences
        opts = !!m[1];
        if (m[1] && m[2] && argument(m[1].slice(1, -1).trim(), m[2])) out.push(argument(m[1].slice(1, -1).trim(), m[2]));
        return;
      }
      if ((m = /^\.\.\s+([\w:.+-]+)::\s*(.*)$/.exec(t))) { opts = true; if (argument(m[1], m[2])) out.push(argument(m[1], m[2])); return; }  // directive
      if (/^\.\.(\s|$)/.test(t) || /^\(.*\)=$/.test(t) || /^%/.test(t) || t === '::') { opts = false; return; }  // comments, targets
      if (opts && /^:[\w-]+:(\s|$)/.test(t)) return;  // directive options
      opts = false;
      t = t.replace(/^(?:>(?!>>)\s?)+/, '');  // Markdown quotes (not >>> prompts)
      if (!t) return;
      t = t.replace(/^#{1,6}\s+/, '').replace(/(\S)\s*::$/, '$1:').replace(/\s+::$/, '').replace(/^(?:[*+-]\s+)+/, '');
      if ((m = /^:([\w-]+)((?:\s+[^:]+)?):(\s|$)/.exec(t))) t = (m[2] ? m[2].trim() : m[1]) + ':' + t.slice(m[0].length - m[3].length);  // :param x: text
      if (/^\|.*\|$/.test(t)) t = t.slice(1, -1).trim();  // Markdown table row
      out.push(t);
    });
    return inline(out.join(' ')).replace(/\s+/g, ' ').trim();
  }

  return { readable: readable };
});
