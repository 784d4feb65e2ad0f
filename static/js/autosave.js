// Autosaved mark forms (form[data-autosave], the paper page's and grade by criterion's):
// leaving the page while a typed value is not stored yet asks first. A form is stored when
// its values are the ones the page loaded with or the last ones the server answered 200
// for; it is not while a pause in typing has not sent them yet, while a save is on its way,
// and after a save that failed or was refused (the typed value is still in the field).
(function () {
  const forms = Array.from(document.querySelectorAll("form[data-autosave]"));
  if (!forms.length) return;
  const stored = new Map();
  const sending = new Map();

  function values(form) {
    return new URLSearchParams(new FormData(form)).toString();
  }
  forms.forEach(function (form) {
    stored.set(form, values(form));
  });
  function formOf(event) {
    const elt = event.detail && event.detail.elt;
    const form = elt && elt.closest ? elt.closest("form[data-autosave]") : null;
    return form && stored.has(form) ? form : null;
  }
  // Capture, so that these run before the pages' own handlers, which may leave the page
  // (Enter on grade by criterion, Ctrl+Enter on the paper page) once a save is stored.
  document.addEventListener(
    "htmx:beforeSend",
    function (event) {
      const form = formOf(event);
      if (form) sending.set(form, values(form));
    },
    true,
  );
  document.addEventListener(
    "htmx:afterRequest",
    function (event) {
      const form = formOf(event);
      if (!form) return;
      const xhr = event.detail.xhr;
      if (xhr && xhr.status === 200 && sending.has(form)) stored.set(form, sending.get(form));
      sending.delete(form);
    },
    true,
  );

  window.addEventListener("beforeunload", function (event) {
    const unsaved = forms.some(function (form) {
      return document.contains(form) && values(form) !== stored.get(form);
    });
    if (!unsaved) return;
    event.preventDefault();
    event.returnValue = ""; // older browsers ask only when it is set
  });
})();
