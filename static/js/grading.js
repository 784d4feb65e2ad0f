// Keyboard on the grading page. Enter or ArrowDown moves to the next criterion's points
// field, ArrowUp to the previous one; leaving a changed field fires its change event, which
// htmx saves; on the last field Enter saves in place. Ctrl+Enter (Cmd+Enter) submits the
// paper and opens the next unfinished one once every mark is stored (autosave.js). Focus never goes
// to a field the juror cannot see: a field is scrolled into view as it gets focus, and on
// load the first field gets focus only if it is on screen (else the page heading).
(function () {
  const fields = Array.from(document.querySelectorAll("form.criterion input.points"));

  function onScreen(element) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return false;
    if (box.top < 0 || box.left < 0) return false;
    if (box.bottom > window.innerHeight || box.right > window.innerWidth) return false;
    // Inside a section that scrolls on its own (wide screens): within its visible part too.
    for (let up = element.parentElement; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (!/(auto|scroll|hidden)/.test(style.overflowY + style.overflowX)) continue;
      const clip = up.getBoundingClientRect();
      if (box.top < clip.top || box.bottom > clip.bottom) return false;
    }
    return true;
  }

  function focusField(field) {
    field.scrollIntoView({ block: "center" });
    field.focus({ preventScroll: true });
    field.select();
  }

  fields.forEach(function (field, index) {
    field.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      let target = null;
      if (event.key === "Enter" || event.key === "ArrowDown") target = fields[index + 1];
      if (event.key === "ArrowUp") target = fields[index - 1];
      if (event.key === "Enter") {
        event.preventDefault();
        if (!target) field.dispatchEvent(new Event("change", { bubbles: true }));
      }
      if (target) {
        event.preventDefault();
        focusField(target);
      }
    });
  });

  // "Go to the first unmarked criterion": focus its field (the link alone would scroll).
  document.querySelectorAll("a.to-points").forEach(function (link) {
    link.addEventListener("click", function (event) {
      const field = document.getElementById("points-" + link.dataset.criterionId);
      if (!field || field.disabled) return;
      event.preventDefault();
      focusField(field);
    });
  });

  // Submit and next, from anywhere on the page, once every mark form is stored: autosave.js
  // saves a typed mark first and tries a failed save again; a mark it cannot store keeps the
  // paper unsubmitted and says so. The server then checks that every criterion is marked.
  const submitForm = document.getElementById("submit-paper");
  let submitting = false;
  function refuse(forms) {
    let alert = document.getElementById("submit-error");
    if (!alert) {
      alert = document.createElement("p");
      alert.id = "submit-error";
      alert.className = "error submit-error";
      alert.setAttribute("role", "alert");
      submitForm.before(alert);
    }
    const codes = forms.map(function (form) {
      return form.querySelector("input.points").dataset.criterion;
    });
    const label = document.createElement("strong");
    label.textContent = "Error:";
    alert.replaceChildren(
      label,
      " not submitted: the mark for " + codes.join(", ") + " is not saved (see its message).",
    );
    focusField(forms[0].querySelector("input.points"));
  }
  function submitNext() {
    if (submitting) return;
    const button = submitForm.querySelector("button[name=then][value=next]");
    const autosave = window.iolevalAutosave;
    const forms = Array.from(document.querySelectorAll("form.criterion")).filter(autosave.unsaved);
    submitting = true;
    Promise.all(forms.map(autosave.whenStored)).then(function (stored) {
      submitting = false;
      const failed = forms.filter(function (form, index) {
        return !stored[index];
      });
      if (failed.length) refuse(failed);
      else submitForm.requestSubmit(button);
    });
  }
  if (submitForm) {
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
      event.preventDefault();
      submitNext();
    });
  }

  // A refused submit names the first unmarked criterion: go there. Otherwise the first
  // field if it is on screen, else the heading, so that no key types an unseen mark.
  const wanted = document.querySelector("form.criterion input.points[data-focus]");
  if (wanted && !wanted.disabled) {
    focusField(wanted);
  } else if (fields.length && !fields[0].disabled && onScreen(fields[0])) {
    fields[0].focus({ preventScroll: true });
  } else {
    const heading = document.getElementById("paper-heading");
    if (heading) heading.focus({ preventScroll: true });
  }
})();

// Autosave state: "saving…" while a save is on its way, and "not saved" when it fails.
// A 422 (a refused value) comes back as a fragment with the reason; any other failure
// (server error, logged out, the jury busy, no connection) leaves the typed value in place
// and says so.
(function () {
  function statusOf(event) {
    const form = event.detail.elt && event.detail.elt.closest("form.criterion");
    return form ? form.querySelector(".status") : null;
  }
  function show(status, text, kind) {
    status.parentNode.querySelectorAll(".error-label").forEach(function (label) {
      label.remove();
    });
    status.textContent = text;
    status.className = "status " + kind;
  }
  // A refused value: the field says so (aria-invalid, described by the criterion's status
  // with its "Error:" text); a saved one clears that.
  document.body.addEventListener("htmx:afterSwap", function (event) {
    const form = event.detail.elt && event.detail.elt.closest("form.criterion");
    if (!form) return;
    const field = form.querySelector("input.points");
    const live = form.querySelector(".mark-live");
    if (form.querySelector(".status.error")) {
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("aria-describedby", live.id);
    } else {
      field.removeAttribute("aria-invalid");
      field.removeAttribute("aria-describedby");
    }
  });
  // A save on its way (autosave.js has already stopped one that would change nothing).
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    const status = statusOf(event);
    if (status) show(status, "saving…", "pending");
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
    } else if (code === 409) {
      // The jury is busy (an import or a new rubric version): the same save may be sent again.
      show(status, "not saved: " + event.detail.xhr.responseText, "error");
    } else {
      show(status, "not saved: server error (" + code + "). Try again.", "error");
    }
  });
  document.body.addEventListener("htmx:sendError", function (event) {
    const status = statusOf(event);
    if (status) show(status, "not saved: no connection to the server. Try again.", "error");
  });
})();
