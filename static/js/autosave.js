// Autosaved mark forms (form[data-autosave], the paper page's and grade by criterion's): the
// one place that knows whether a form's values are stored. A form is stored when its values
// are the ones the page loaded with or the last ones the server answered 200 for; it is not
// while a pause in typing has not sent them yet, while a save is on its way, and after a save
// that failed or was refused (the typed value is still in the field).
//
// The pages ask through window.iolevalAutosave, and keep no state of their own:
//   unsaved(form)     true while the form's values are not stored;
//   whenStored(form)  a promise of true once they are, saving them first (again after a save
//                     that failed), or of false when the server failed or refused them.
// A save is sent only when it can change something: never with the values stored, nor with
// the values on their way or last refused (422) as they are. Leaving the page while a form
// is unsaved asks first.
(function () {
  const stored = new Map(); // form -> the values the server stored
  const sending = new Map(); // form -> the values of the save on its way
  const refused = new Map(); // form -> the values the server last refused (422)
  const waiting = new Map(); // form -> callbacks for the end of the save on its way

  function values(form) {
    return new URLSearchParams(new FormData(form)).toString();
  }
  function unsaved(form) {
    return stored.has(form) && values(form) !== stored.get(form);
  }
  document.querySelectorAll("form[data-autosave]").forEach(function (form) {
    stored.set(form, values(form));
  });
  function formOf(event) {
    const elt = event.detail && event.detail.elt;
    const form = elt && elt.closest ? elt.closest("form[data-autosave]") : null;
    return form && stored.has(form) ? form : null;
  }

  // Capture, so that these run before the pages' own handlers (which show "saving…" and may
  // leave the page once a save is stored). A save that would change nothing stops here.
  document.addEventListener(
    "htmx:beforeRequest",
    function (event) {
      const form = formOf(event);
      if (!form) return;
      const now = values(form);
      if (now === stored.get(form) || now === sending.get(form) || now === refused.get(form)) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
    true,
  );
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
      if (!form || !sending.has(form)) return;
      const status = event.detail.xhr ? event.detail.xhr.status : 0;
      const sent = sending.get(form);
      sending.delete(form);
      if (status === 200) {
        stored.set(form, sent);
        refused.delete(form);
      } else if (status === 422) {
        refused.set(form, sent);
      }
      const callbacks = waiting.get(form) || [];
      waiting.delete(form);
      // After htmx has finished with this request: a save started now is sent, not queued.
      setTimeout(function () {
        callbacks.forEach(function (callback) {
          callback(status === 200);
        });
      }, 0);
    },
    true,
  );

  function afterSave(form, callback) {
    if (!waiting.has(form)) waiting.set(form, []);
    waiting.get(form).push(callback);
  }
  function whenStored(form) {
    return new Promise(function (resolve) {
      function check(ownSaveFailed) {
        if (!unsaved(form)) return resolve(true);
        if (ownSaveFailed || values(form) === refused.get(form)) return resolve(false);
        if (sending.has(form)) {
          afterSave(form, function () {
            check(false); // one that failed is tried again, once, below
          });
          return;
        }
        const callback = function (ok) {
          check(!ok);
        };
        afterSave(form, callback);
        form.dispatchEvent(new Event("change", { bubbles: true })); // the form's save
        if (!sending.has(form)) {
          // Not sent (htmx refused to start it): nothing will come back to wait for.
          waiting.set(form, (waiting.get(form) || []).filter((c) => c !== callback));
          resolve(false);
        }
      }
      check(false);
    });
  }
  window.iolevalAutosave = { unsaved: unsaved, whenStored: whenStored };

  window.addEventListener("beforeunload", function (event) {
    const leaving = Array.from(stored.keys()).some(function (form) {
      return document.contains(form) && unsaved(form);
    });
    if (!leaving) return;
    event.preventDefault();
    event.returnValue = ""; // older browsers ask only when it is set
  });
})();
