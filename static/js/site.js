// Site-wide behaviour, loaded by base.html.

// Forms with data-confirm ask before they submit (no inline handlers: the pages' CSP
// allows scripts from this site only).
document.addEventListener("submit", function (event) {
  const message = event.target.dataset && event.target.dataset.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});

// htmx requests carry the CSRF token of the csrftoken cookie, read when they are sent: a
// login in another tab rotates the token, and the page's copy would then be refused.
document.addEventListener("htmx:configRequest", function (event) {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (!match) return;
  const token = decodeURIComponent(match[1]);
  event.detail.headers["X-CSRFToken"] = token;
  // Django reads a form's hidden field before the header: refresh it too.
  const params = event.detail.parameters;
  if (params && params.csrfmiddlewaretoken !== undefined) params.csrfmiddlewaretoken = token;
});
