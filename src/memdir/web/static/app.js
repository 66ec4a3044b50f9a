// Small enhancements; every page works without this script.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // Ask before a destructive form is sent.
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
  // A filter that is a choice applies as soon as it changes.
  for (const select of document.querySelectorAll("select[data-autosubmit]")) {
    select.addEventListener("change", () => select.form.requestSubmit());
  }
  // Warn before leaving an editor with unsaved changes.
  for (const form of document.querySelectorAll("form[data-editor]")) {
    let dirty = false;
    form.addEventListener("input", () => { dirty = true; });
    form.addEventListener("submit", () => { dirty = false; });
    window.addEventListener("beforeunload", (event) => { if (dirty) event.preventDefault(); });
  }
});
