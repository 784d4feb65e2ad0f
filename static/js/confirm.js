// Forms with data-confirm ask before they submit (no inline handlers: the pages' CSP
// allows scripts from this site only).
document.addEventListener("submit", function (event) {
  const message = event.target.dataset && event.target.dataset.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});
