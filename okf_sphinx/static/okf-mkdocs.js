/* okf search for MkDocs themes: the theme's own search box leads to okf's search page.
 * Loaded on every page by the okf MkDocs plugin (replace_builtin: true) with
 * data-okf-search = the search page's URL relative to this page. Enter (or submit)
 * in the box of the mkdocs theme (#mkdocs-search-query), Material
 * (.md-search__input) or readthedocs (#rtd-search-form) opens search.html?q=...
 * Works over http(s) and file:// (where Material hides its own box: it is shown again). */
(function () {
  'use strict';
  var script = document.currentScript;
  var target = script && script.getAttribute('data-okf-search');
  if (!target) return;
  var SELECTORS = ['#mkdocs-search-query', 'input.md-search__input', '#rtd-search-form input[name=q]'];

  function go(input) {
    var q = input.value || '';
    window.location.href = target + (q ? '?q=' + encodeURIComponent(q) : '');
  }
  function hook(input) {
    if (input.getAttribute('data-okf-hooked')) return;
    input.setAttribute('data-okf-hooked', '1');
    // capture phase: runs before the theme's own handlers, which would keep the query in a popup
    input.addEventListener('keydown', function (ev) {
      if (ev.key !== 'Enter' || ev.isComposing) return;
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
    var holder = input.closest('[data-md-component=search]');
    if (!holder) return;
    var show = function () { if (holder.hasAttribute('hidden')) holder.removeAttribute('hidden'); };
    show();
    if (window.MutationObserver) new MutationObserver(show).observe(holder, { attributes: true, attributeFilter: ['hidden'] });
  }
  function init() {
    SELECTORS.forEach(function (sel) {
      Array.prototype.forEach.call(document.querySelectorAll(sel), function (input) {
        if (input.closest('#okf-search')) return;
        hook(input);
        keepShown(input);
      });
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
