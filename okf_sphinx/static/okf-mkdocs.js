/* okf search for MkDocs themes: the theme's own search box and shortcuts lead to okf.
 * Loaded on every page by the okf MkDocs plugin (replace_builtin: true) with
 * data-okf-search = the search page's URL relative to this page and data-okf-theme.
 *
 * With the dialog (okf-dialog.js, loaded after this file, which takes over the theme's
 * search box itself): the theme's own search shortcut opens okf's dialog instead (mkdocs
 * theme: its configured "s" key; Material: "s" and "f"; "/" is the dialog's own), and a
 * Material-style ?q= link to any page opens the dialog with that query.
 * Without the dialog (dialog: false): Enter (or submit) in the box of the mkdocs theme
 * (#mkdocs-search-query), Material (.md-search__input) or readthedocs (#rtd-search-form)
 * opens search.html?q=...
 * Works over http(s) and file:// (where Material hides its own box: it is shown again), and
 * with Material's instant loading (a page swapped in place is hooked and marked again). */
(function () {
  'use strict';
  var script = document.currentScript;
  var target = script && script.getAttribute('data-okf-search');
  if (!target) return;
  var theme = script.getAttribute('data-okf-theme') || '';
  var SELECTORS = ['#mkdocs-search-query', 'input.md-search__input', '#rtd-search-form input[name=q]'];

  function dialog() { return window.OkfDialog; }
  function go(input) {
    var q = input.value || '';
    window.location.href = target + (q ? '?q=' + encodeURIComponent(q) : '');
  }
  function hook(input) {
    if (input.getAttribute('data-okf-hooked')) return;
    input.setAttribute('data-okf-hooked', '1');
    // capture phase: runs before the theme's own handlers, which would keep the query in a popup
    input.addEventListener('keydown', function (ev) {
      if (ev.key !== 'Enter' || ev.isComposing || dialog()) return;
      ev.preventDefault();
      ev.stopImmediatePropagation();
      go(input);
    }, true);
    var form = input.form;
    if (form) form.addEventListener('submit', function (ev) { ev.preventDefault(); ev.stopImmediatePropagation(); go(input); }, true);
  }
  // Material hides its search box when its own search cannot run (file://, no worker):
  // ours can, so keep the box shown
  function keepShown(input) {
    var holder = input.closest('.md-search');
    if (!holder) return;
    var show = function () { if (holder.hasAttribute('hidden')) holder.removeAttribute('hidden'); };
    show();
    if (window.MutationObserver) new MutationObserver(show).observe(holder, { attributes: true, attributeFilter: ['hidden'] });
  }
  // okf-boot.js's rule for its own keys: a field one types into, not a checkbox, radio or button
  // (Material's drawer and search toggles are checkboxes)
  function typing(t) {
    var tag = t && t.tagName;
    return !!t && (t.isContentEditable || tag === 'TEXTAREA' || tag === 'SELECT'
      || (tag === 'INPUT' && !/^(button|submit|reset|checkbox|radio|range|color|file|image)$/i.test(t.type)));
  }
  // the theme's own search shortcut key: true when this keydown is it
  function themeShortcut(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return false;
    if (theme === 'material') return ev.key === 's' || ev.key === 'f';
    if (theme === 'mkdocs') {
      var keys = window.shortcuts;  // the mkdocs theme's configurable key codes (theme: shortcuts:)
      return !!keys && (ev.which || ev.keyCode) === keys.search;
    }
    return false;
  }
  // capture phase on window: before the theme's own keyboard handlers
  window.addEventListener('keydown', function (ev) {
    if (!dialog() || !themeShortcut(ev)) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    dialog().open();
  }, true);

  function init() {
    SELECTORS.forEach(function (sel) {
      Array.prototype.forEach.call(document.querySelectorAll(sel), function (input) {
        if (input.closest('#okf-search')) return;
        hook(input);
        keepShown(input);
      });
    });
    // Material's ?q= on any page opens its search with the query; okf's dialog does the same
    // (okf's own search page reads ?q= itself)
    if (theme === 'material' && dialog() && !document.getElementById('okf-search')) {
      var q = new URLSearchParams(window.location.search).get('q');
      if (q) dialog().open(q);
    }
  }
  // Material's instant loading (navigation.instant) swaps pages in place without running
  // these scripts again: hook the new page's box and mark its ?okf-hl= words, as a load would
  function instant() {
    var shown = window.location.pathname + window.location.search;
    if (theme !== 'material' || !window.document$ || typeof window.document$.subscribe !== 'function') return;
    window.document$.subscribe(function () {
      var now = window.location.pathname + window.location.search;
      if (now === shown) return;  // the page these scripts loaded with
      shown = now;
      SELECTORS.forEach(function (sel) {
        Array.prototype.forEach.call(document.querySelectorAll(sel), function (input) {
          if (!input.closest('#okf-search')) { hook(input); keepShown(input); }
        });
      });
      if (dialog() && dialog().land) dialog().land();
    });
  }
  // after every deferred script (okf-dialog.js comes after this one)
  if (document.readyState === 'complete') { init(); instant(); }
  else document.addEventListener('DOMContentLoaded', function () { init(); instant(); });
})();
