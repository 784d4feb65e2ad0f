// Suggested marks (any page with a mark form) and the keys of the grade-by-criterion page.
// Loaded once per page, possibly by several script tags (one per suggestion): run once.
(function () {
  if (window.iolevalCriterion) return;
  window.iolevalCriterion = true;

  function flag(form) {
    return form.querySelector("input.from-suggestion");
  }
  function isPoints(element) {
    return element instanceof HTMLInputElement && element.classList.contains("points");
  }

  // "s" in a points field accepts the suggestion beside it: the value goes into the field
  // and is saved like a typed one, marked as accepted (the server checks it is the
  // suggestion). Typing in the field afterwards makes it the juror's own value again.
  document.addEventListener("keydown", function (event) {
    const field = event.target;
    if (!isPoints(field) || !field.form || field.disabled) return;
    if (event.key !== "s" || event.altKey || event.ctrlKey || event.metaKey) return;
    const box = field.form.querySelector(".suggestion");
    if (!box || !flag(field.form)) return;
    event.preventDefault();
    field.value = box.dataset.points;
    flag(field.form).value = "1";
    field.dispatchEvent(new Event("change", { bubbles: true }));
  });
  document.addEventListener("input", function (event) {
    if (!isPoints(event.target) || !event.target.form) return;
    const hidden = flag(event.target.form);
    if (hidden) hidden.value = "";
  });

  // The grade-by-criterion page: one mark form, previous/next links.
  const form = document.querySelector("form.by-criterion");
  if (!form) return;
  const field = form.querySelector("input.points");
  const status = function () {
    return form.querySelector(".status");
  };
  // static/js/autosave.js knows whether the form is stored (it loads after this script).
  const autosave = function () {
    return window.iolevalAutosave;
  };

  // Open a paper's link once the mark is stored (autosave.js saves a changed one first);
  // a save that fails or is refused keeps the juror here, its message beside the field.
  function leave(link) {
    autosave().whenStored(form).then(function (stored) {
      if (stored && link) window.location.assign(link.href);
    });
  }
  form.addEventListener("htmx:beforeRequest", function () {
    const shown = status();
    if (shown) {
      shown.textContent = "saving…";
      shown.className = "status pending";
    }
  });
  form.addEventListener("htmx:afterRequest", function (event) {
    const code = event.detail.xhr ? event.detail.xhr.status : 0;
    const shown = status();
    // A 422 comes back as a fragment with the reason (swapped in place); a 409 (the jury is
    // busy: an import or a new rubric version) says why in its text.
    if (shown && code !== 200 && code !== 422) {
      shown.textContent =
        code === 409
          ? "not saved: " + event.detail.xhr.responseText
          : "not saved (" + code + "): try again";
      shown.className = "status error";
    }
  });

  const next = document.getElementById("next-paper");
  const previous = document.getElementById("prev-paper");
  document.addEventListener("keydown", function (event) {
    const inField = event.target.closest && event.target.closest("input, textarea, select");
    const plain = !event.altKey && !event.ctrlKey && !event.metaKey;
    let link = undefined;
    if (event.altKey && event.key === "ArrowRight") link = next;
    else if (event.altKey && event.key === "ArrowLeft") link = previous;
    else if (!inField && plain && event.key === "j") link = next;
    else if (!inField && plain && event.key === "k") link = previous;
    else if (event.target === field && event.key === "Enter") {
      event.preventDefault();
      if (next) leave(next);
      else if (autosave().unsaved(form)) leave(null); // the last paper: saves in place
      return;
    }
    if (link === undefined) return;
    event.preventDefault();
    leave(link);
  });

  // Ready to type, and in view (the rubric column comes last on a narrow screen).
  if (!field.disabled) {
    field.scrollIntoView({ block: "center" });
    field.focus({ preventScroll: true });
    field.select();
  }
})();
