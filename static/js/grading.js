// Keyboard navigation between criteria on the grading page: Enter or ArrowDown moves to
// the next criterion's points field, ArrowUp to the previous one. Leaving a changed
// field fires its change event, which htmx saves; on the last field Enter saves in place.
(function () {
  const fields = Array.from(document.querySelectorAll("form.criterion input.points"));
  fields.forEach(function (field, index) {
    field.addEventListener("keydown", function (event) {
      let target = null;
      if (event.key === "Enter" || event.key === "ArrowDown") target = fields[index + 1];
      if (event.key === "ArrowUp") target = fields[index - 1];
      if (event.key === "Enter") {
        event.preventDefault();
        if (!target) field.dispatchEvent(new Event("change", { bubbles: true }));
      }
      if (target) {
        event.preventDefault();
        target.focus();
        target.select();
      }
    });
  });
  // Ready to type, but without scrolling past the problem and the answers on a narrow
  // screen, where the rubric comes last.
  if (fields.length && !fields[0].disabled) fields[0].focus({ preventScroll: true });
})();

// Autosave state: "saving…" while a save is on its way, and "not saved" when it fails.
// A 422 (a refused value) comes back as a fragment with the reason; any other failure
// (server error, logged out, no connection) leaves the typed value in place and says so.
(function () {
  function statusOf(event) {
    const form = event.detail.elt && event.detail.elt.closest("form.criterion");
    return form ? form.querySelector(".status") : null;
  }
  function show(status, text, kind) {
    status.textContent = text;
    status.className = "status " + kind;
  }
  function values(form) {
    return new URLSearchParams(new FormData(form)).toString();
  }
  // One save per change: Enter on the last field and the blur after it (or two change
  // events) would otherwise send the same values twice.
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    const status = statusOf(event);
    if (!status) return;
    const form = status.closest("form.criterion");
    const sent = values(form);
    if (form.dataset.sent === sent) {
      event.preventDefault();
      return;
    }
    form.dataset.sent = sent;
    show(status, "saving…", "pending");
  });
  // A save that was not stored (refused, failed, timed out) may be sent again as it is.
  document.body.addEventListener("htmx:afterRequest", function (event) {
    const status = statusOf(event);
    if (status && !event.detail.successful) delete status.closest("form.criterion").dataset.sent;
  });
  document.body.addEventListener("htmx:responseError", function (event) {
    const status = statusOf(event);
    if (!status) return;
    const code = event.detail.xhr.status;
    if (code === 401) {
      show(status, "not saved: you are logged out. ", "error");
      const link = document.createElement("a");
      const rubric = status.closest("[data-login-url]");
      const login = rubric ? rubric.dataset.loginUrl : "/login/";
      link.href = login + "?next=" + encodeURIComponent(location.pathname);
      link.target = "_blank";
      link.textContent = "Log in (new tab), then save again here.";
      status.appendChild(link);
    } else if (code === 403) {
      show(status, "not saved: refused (403). Reload the page.", "error");
    } else {
      show(status, "not saved: server error (" + code + "). Try again.", "error");
    }
  });
  document.body.addEventListener("htmx:sendError", function (event) {
    const status = statusOf(event);
    if (status) show(status, "not saved: no connection to the server. Try again.", "error");
  });
})();
