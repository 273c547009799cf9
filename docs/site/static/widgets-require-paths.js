// Loaded between require.js and the widget manager (embed-amd.js) on pages with widgets.
// The widget manager finds the fonts its CSS names (Font Awesome's, for widget icons) in the folder of its
// RequireJS module's URL, which RequireJS derives from the module's name: by default a folder named
// @jupyter-widgets/html-manager/dist/ beside the page, where there is none. Point that name at the bundled
// copy in _static/vendor/html-manager/, found from this script's own URL (_static/).
(function () {
  var statics = document.currentScript.src.replace(/[?#].*$/, "").replace(/[^/]*$/, "");
  window.requirejs.config({
    paths: {"@jupyter-widgets/html-manager/dist": statics + "vendor/html-manager"},
  });
})();
