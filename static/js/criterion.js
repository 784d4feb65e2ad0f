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
  const values = function () {
    return new URLSearchParams(new FormData(form)).toString();
  };
  let saved = values();
  let sending = null; // the values of the save on its way
  let goal = null; // the link to open once the save is stored

  function save() {
    field.dispatchEvent(new Event("change", { bubbles: true }));
  }
  // Open a paper's link, saving a changed mark first; a refused save keeps the juror here.
  function leave(link) {
    if (sending !== null) {
      goal = link;
      return;
    }
    if (!field.disabled && values() !== saved) {
      goal = link;
      save();
      return;
    }
    if (link) window.location.assign(link.href);
  }
  form.addEventListener("htmx:beforeRequest", function (event) {
    // One save per change: the pause after typing, then Enter or leaving the field, would
    // otherwise send the same values again.
    if (values() === saved) {
      event.preventDefault();
      return;
    }
    sending = values();
    const shown = status();
    if (shown) {
      shown.textContent = "saving…";
      shown.className = "status pending";
    }
  });
  form.addEventListener("htmx:afterRequest", function (event) {
    const stored = event.detail.xhr && event.detail.xhr.status === 200;
    if (stored) saved = sending;
    sending = null;
    const link = goal;
    goal = null;
    if (!stored) {
      const shown = status();
      const code = event.detail.xhr.status;
      if (shown && code !== 422) {
        shown.textContent =
          code === 409 // the jury is busy: the server says so
            ? "not saved: " + event.detail.xhr.responseText
            : "not saved (" + code + "): try again";
        shown.className = "status error";
      }
      return;
    }
    if (link) leave(link); // saves again first if more was typed meanwhile
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
      else if (values() !== saved) save();
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
